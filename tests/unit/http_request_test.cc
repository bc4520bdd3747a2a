// The HTTP module without sockets: request targets and percent-decoding, listen addresses,
// the latency histogram and Prometheus text, and the Api's routing over an empty table.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "http/api.h"
#include "http/histogram.h"
#include "http/query_string.h"
#include "http/server.h"
#include "pipeline_harness.h"
#include "sink/table.h"

namespace webindex::http {
namespace {

TEST(HttpRequestTest, PercentDecoding) {
  EXPECT_EQ(PercentDecode("a%20b+c", true).value(), "a b c");
  EXPECT_EQ(PercentDecode("a%20b+c", false).value(), "a b+c");
  EXPECT_EQ(PercentDecode("%2f%2F%3A", true).value(), "//:");
  EXPECT_EQ(PercentDecode("%E2%9C%93", true).value(), "\xe2\x9c\x93");
  EXPECT_EQ(PercentDecode("", true).value(), "");
  for (const char* bad : {"%", "%4", "%zz", "a%g0", "%C3", "%FF"}) {
    EXPECT_EQ(PercentDecode(bad, true).status().code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST(HttpRequestTest, TargetsSplitIntoPathAndParameters) {
  auto t = ParseTarget("/api/links?url=http%3A%2F%2Fa.com%2F%3Fq%3D1%26r&linkType=out&&limit=");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->path, "/api/links");
  EXPECT_EQ(t->params.at("url"), "http://a.com/?q=1&r");
  EXPECT_EQ(t->params.at("linkType"), "out");
  EXPECT_EQ(t->params.at("limit"), "");
  EXPECT_EQ(t->params.size(), 3u);
  EXPECT_EQ(ParseTarget("/healthz").value().path, "/healthz");
  EXPECT_TRUE(ParseTarget("/x?").value().params.empty());
  EXPECT_FALSE(ParseTarget("http://host/api/top").ok());
  EXPECT_FALSE(ParseTarget("").ok());
  EXPECT_FALSE(ParseTarget("/api/top?limit=1&limit=2").ok());
  EXPECT_FALSE(ParseTarget("/api/top?next=%zz").ok());
}

TEST(HttpRequestTest, ListenAddresses) {
  auto full = ParseListenAddress("0.0.0.0:8080");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->host, "0.0.0.0");
  EXPECT_EQ(full->port, 8080);
  EXPECT_EQ(ParseListenAddress(":9000").value().host, "127.0.0.1");
  EXPECT_EQ(ParseListenAddress("9000").value().port, 9000);
  EXPECT_EQ(ParseListenAddress("localhost:0").value().host, "127.0.0.1");
  EXPECT_EQ(ParseListenAddress("[::1]:80").value().host, "::1");
  for (const char* bad : {"", "host", "1.2.3.4:", "1.2.3.4:70000", "example.com:80", "1.2.3.4:8x"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

TEST(HttpRequestTest, HistogramBucketsAreCumulative) {
  LatencyHistogram h;
  h.Observe(0.00005);
  h.Observe(0.003);
  h.Observe(0.003);
  h.Observe(100);
  EXPECT_EQ(h.count(), 4u);
  PrometheusWriter w;
  w.Family("t_seconds", "histogram", "test");
  h.Write(w, "t_seconds", {{"route", "/a\"b"}});
  const std::string text = w.Take();
  EXPECT_NE(text.find("# TYPE t_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\\\"b\",le=\"0.0001\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\\\"b\",le=\"0.0025\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\\\"b\",le=\"0.005\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\\\"b\",le=\"10\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_seconds_bucket{route=\"/a\\\"b\",le=\"+Inf\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_seconds_count{route=\"/a\\\"b\"} 4\n"), std::string::npos) << text;
}

TEST(HttpRequestTest, PipelineCounters) {
  pipeline::Metrics m;
  m.events = 7;
  m.invalid_events = 2;
  m.corrupt_records = 1;
  m.dead_lettered = 4;  // counted apart: triples records and undeliverable records are dead letters too
  PrometheusWriter w;
  WritePipelineMetrics(m, w);
  const std::string text = w.Take();
  EXPECT_NE(text.find("# TYPE webindex_events_total counter\nwebindex_events_total 7\n"), std::string::npos);
  EXPECT_NE(text.find("webindex_dead_lettered_total 4\n"), std::string::npos);
  for (const char* name : {"webindex_stale_events_total", "webindex_dropped_links_total", "webindex_duplicates_total",
                           "webindex_lost_records_total", "webindex_invalid_events_total"}) {
    EXPECT_NE(text.find(std::string("\n") + name + " "), std::string::npos) << name;
  }
}

//! The routes over an empty table: status codes and JSON errors without a socket.
class HttpApiRoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-api");
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    api_ = std::make_unique<Api>(*store_, [](PrometheusWriter& w) { w.Counter("extra_total", "x", 1); });
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  ApiResponse Get(std::string_view target) { return api_->Handle({"GET", target, false}); }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<Api> api_;
};

TEST_F(HttpApiRoutingTest, Routes) {
  EXPECT_EQ(Get("/healthz").body, R"({"status":"ok"})");
  EXPECT_EQ(Get("/api/top").body, R"({"results":[],"next":null})");
  EXPECT_EQ(Get("/api/pages?domain=a.com").body, R"({"domain":"a.com","total":0,"results":[],"next":null})");
  EXPECT_EQ(Get("/api/page?url=http%3A%2F%2Fa.com%2F").status, 404);
  EXPECT_EQ(Get("/api/links?url=http://a.com/&linkType=out").status, 404);
  const auto metrics = Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, kPrometheusContentType);
  EXPECT_NE(metrics.body.find("extra_total 1\n"), std::string::npos);
  EXPECT_NE(metrics.body.find("webindex_http_request_duration_seconds_count{route=\"/api/top\"} 1\n"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("webindex_http_responses_total{route=\"/api/page\",code=\"404\"} 1\n"), std::string::npos)
      << metrics.body;
}

TEST_F(HttpApiRoutingTest, ClientErrors) {
  struct Case {
    const char* method;
    const char* target;
    bool body;
    int status;
    const char* message;
  };
  const Case cases[] = {
      {"GET", "/nope", false, 404, "no such route"},
      {"GET", "/api/top?limit=0", false, 400, "limit"},
      {"GET", "/api/top?limit=1001", false, 400, "limit"},
      {"GET", "/api/top?limit=abc", false, 400, "limit"},
      {"GET", "/api/top?limit=-1", false, 400, "limit"},
      {"GET", "/api/top?next=@@", false, 400, "cursor"},
      {"GET", "/api/pages", false, 400, "missing parameter 'domain'"},
      {"GET", "/api/page", false, 400, "missing parameter 'url'"},
      {"GET", "/api/page?url=", false, 400, "missing parameter 'url'"},
      {"GET", "/api/links?url=http://a.com/&linkType=both", false, 400, "linkType"},
      {"GET", "/api/page?url=http%3", false, 400, "percent-encoding"},
      {"GET", "/api/page?url=%FF", false, 400, "UTF-8"},
      {"GET", "/api/page?url=notaurl", false, 400, "URL"},
      {"POST", "/api/top", false, 405, "not allowed"},
      {"DELETE", "/healthz", false, 405, "not allowed"},
      {"GET", "/api/top", true, 400, "no body"},
  };
  for (const auto& c : cases) {
    const ApiResponse r = api_->Handle({c.method, c.target, c.body});
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.target;
    EXPECT_EQ(r.content_type, "application/json");
    EXPECT_TRUE(r.body.starts_with("{\"error\":\"")) << r.body;
    EXPECT_NE(r.body.find(c.message), std::string::npos) << c.target << ": " << r.body;
    EXPECT_EQ(r.allow, c.status == 405 ? "GET, HEAD" : "");
    // Only a request the API never takes ends the connection, not a parameter's error.
    EXPECT_EQ(r.close, c.status == 405 || c.body) << c.method << " " << c.target;
  }
  EXPECT_TRUE(api_->Handle({"POST", "/nope", true}).close);
}

//! A replay switched generations: the Api serves the new store, and requests running on
//! other threads while it switches answer from one store or the other, never fail.
TEST_F(HttpApiRoutingTest, SetSourceMovesToAnotherStoreUnderLoad) {
  const std::string other_dir = dir_ + "-other";
  auto other = state::Store::Open(other_dir, {});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  {
    state::WriteBatch wb(**other);
    sink::TableWriter(**other, wb).SetDomainCount("com.a", 3);
    ASSERT_TRUE((*other)->Write(wb).ok());
  }
  const std::string empty = R"({"domain":"a.com","total":0,"results":[],"next":null})";
  EXPECT_EQ(Get("/api/pages?domain=a.com").body, empty);
  std::atomic<bool> done{false};
  std::atomic<int> failures{0}, answers{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!done) {
        auto r = Get("/api/pages?domain=a.com");
        if (r.status != 200) ++failures;
        ++answers;
      }
    });
  }
  while (answers < 50) std::this_thread::yield();
  api_->SetSource(**other, [](PrometheusWriter& w) { w.Counter("other_total", "x", 2); });
  const int before = answers;
  while (answers < before + 50) std::this_thread::yield();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures, 0);
  const auto after = Get("/api/pages?domain=a.com").body;
  EXPECT_NE(after, empty);
  EXPECT_NE(after.find(R"("total":3)"), std::string::npos) << after;
  const auto metrics = Get("/metrics").body;
  EXPECT_NE(metrics.find("other_total 2\n"), std::string::npos);
  EXPECT_EQ(metrics.find("extra_total"), std::string::npos);
  store_.reset();  // the old store may close once SetSource returned
  EXPECT_NE(Get("/api/pages?domain=a.com").body.find(R"("total":3)"), std::string::npos);
  api_.reset();
  other->reset();
  std::filesystem::remove_all(other_dir);
}

}  // namespace
}  // namespace webindex::http
