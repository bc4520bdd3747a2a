// The web UI's files as the Api serves them: compiled in (ui_assets.h), with their content types
// and caching, a hash of the files in index.html's references, 404 and 405 like the routes.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "http/api.h"
#include "http/ui_assets.h"
#include "pipeline_harness.h"

namespace webindex::http {
namespace {

TEST(UiAssetsTest, IndexAndItsFilesAreCompiledIn) {
  const auto index = FindUiAsset("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(index->cache_control, "no-cache");
  EXPECT_NE(index->body.find("<main id=\"view\""), std::string_view::npos);
  // The build replaced the version placeholder with a hash of app.js and style.css.
  EXPECT_EQ(index->body.find("@UI_VERSION@"), std::string_view::npos);
  EXPECT_TRUE(std::regex_search(std::string(index->body), std::regex(R"(ui/app\.js\?v=[0-9a-f]{12})")));

  const auto js = FindUiAsset("/ui/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->content_type, "application/javascript; charset=utf-8");
  EXPECT_EQ(js->cache_control, "public, max-age=31536000, immutable");
  EXPECT_NE(js->body.find("textContent"), std::string_view::npos);
  EXPECT_EQ(js->body.find("innerHTML"), std::string_view::npos) << "data must never become markup";
  const auto css = FindUiAsset("/ui/style.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->content_type, "text/css; charset=utf-8");
  EXPECT_EQ(css->body.find("@import"), std::string_view::npos) << "no external resources";

  for (const char* path : {"", "/index.html", "/ui/", "/ui/index.html", "/ui/app.js/", "/app.js", "/ui/../ui/app.js"}) {
    EXPECT_FALSE(FindUiAsset(path)) << path;
  }
}

class UiRoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-ui");
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    api_ = std::make_unique<Api>(*store_, nullptr);
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<Api> api_;
};

TEST_F(UiRoutingTest, ServesTheFilesAtSlashAndUnderUi) {
  const ApiResponse index = api_->Handle({"GET", "/", false});
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(index.cache_control, "no-cache");
  EXPECT_EQ(index.body, FindUiAsset("/")->body);
  EXPECT_EQ(api_->Handle({"GET", "/?utm=x", false}).status, 200);  // a query does not matter
  const ApiResponse js = api_->Handle({"GET", "/ui/app.js?v=0123456789ab", false});
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "application/javascript; charset=utf-8");
  EXPECT_EQ(js.cache_control, "public, max-age=31536000, immutable");
  EXPECT_EQ(api_->Handle({"GET", "/ui/style.css", false}).content_type, "text/css; charset=utf-8");
  // The API's answers stay uncached.
  EXPECT_EQ(api_->Handle({"GET", "/api/top", false}).cache_control, "no-store");

  const ApiResponse unknown = api_->Handle({"GET", "/ui/nope.js", false});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.content_type, "application/json");
  EXPECT_EQ(unknown.cache_control, "no-store");
  EXPECT_EQ(api_->Handle({"GET", "/ui", false}).status, 404);
  const ApiResponse post = api_->Handle({"POST", "/", false});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD");
  EXPECT_EQ(api_->Handle({"GET", "/", true}).status, 400);

  const std::string metrics = api_->Metrics();
  EXPECT_NE(metrics.find("webindex_http_responses_total{route=\"ui\",code=\"200\"} 4\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_http_responses_total{route=\"ui\",code=\"405\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_http_request_duration_seconds_count{route=\"ui\"} 6\n"), std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace webindex::http
