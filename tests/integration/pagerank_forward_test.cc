// /api/pagerank on a partitioned table (http/pagerank_route.h), between real servers on
// 127.0.0.1: the member computing the PageRank answers from its results; another member forwards
// the question to it and answers the same, cursors and errors (400, 404, 409) included; a member
// with none to forward to, or whose computing member does not answer, says so (503); the
// internal route never forwards. A whole table's /api/pagerank still reads its own store.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "http/server.h"
#include "http_test_client.h"
#include "pipeline_harness.h"
#include "query/table_source.h"
#include "rank/link_graph.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"

namespace webindex::testing {
namespace {

//! A graph of `n` pages where page i links to pages 0..i-1.
rank::LinkGraph Graph(int n) {
  rank::LinkGraphBuilder b;
  for (int i = 0; i < n; ++i) b.Intern("http://a.com/" + std::to_string(i));
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> out;
    for (int j = 0; j < i; ++j) out.push_back(static_cast<uint32_t>(j));
    b.SetOutlinks(static_cast<uint32_t>(i), out);
  }
  return b.Build();
}

class PageRankForwardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("pagerank-forward");
    for (const char* name : {"table", "results", "empty"}) {
      auto store = state::Store::Open(dir_ + "/" + name, state::StoreOptions{});
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      stores_[name] = std::move(store).value();
    }
    const rank::LinkGraph g = Graph(5);
    ASSERT_TRUE(rank::StoreRankResult(*stores_["results"], g, rank::ComputePageRank(g, {3, 1}), {}).ok());
  }
  void TearDown() override {
    servers_.clear();
    stores_.clear();
    std::filesystem::remove_all(dir_);
  }
  //! A member of a partitioned table whose PageRank is where `home` says; its port.
  uint16_t Member(http::PageRankHome home) {
    http::ServerOptions o;
    o.listen = "127.0.0.1:0";
    auto& server = servers_.emplace_back(std::make_unique<http::Server>(*stores_["table"], o));
    server->api().SetTable(std::make_shared<query::StoreTableSource>(*stores_["table"]));
    server->api().SetPageRank([home] { return home; }, std::chrono::milliseconds(500));
    EXPECT_TRUE(server->Start().ok());
    return server->port();
  }
  static std::string Address(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

  std::string dir_;
  std::map<std::string, std::unique_ptr<state::Store>> stores_;
  std::vector<std::unique_ptr<http::Server>> servers_;
};

TEST_F(PageRankForwardTest, AnotherMemberAnswersAsTheComputingMember) {
  const uint16_t computing = Member({stores_["results"].get(), ""});
  const uint16_t other = Member({nullptr, Address(computing)});
  const Reply first = Get(computing, "/api/pagerank?limit=2");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(Get(other, "/api/pagerank?limit=2").body, first.body);
  const auto next = NextCursor(first.body);
  ASSERT_TRUE(next);
  const Reply second = Get(computing, "/api/pagerank?limit=2&next=" + *next);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_NE(second.body, first.body);
  EXPECT_EQ(Get(other, "/api/pagerank?limit=2&next=" + *next).body, second.body);
  // The computing member's errors come back as they are: a cursor that is not one, a bad limit.
  const Reply bad = Get(computing, "/api/pagerank?next=zz");
  EXPECT_EQ(bad.status, 400) << bad.body;
  const Reply relayed = Get(other, "/api/pagerank?next=zz");
  EXPECT_EQ(relayed.status, bad.status);
  EXPECT_EQ(relayed.body, bad.body);
  EXPECT_EQ(Get(other, "/api/pagerank?limit=0").status, 400);
  // The internal route answers from a member's own results only.
  EXPECT_EQ(Get(computing, "/internal/pagerank?limit=2").body, first.body);
  const Reply internal = Get(other, "/internal/pagerank?limit=2");
  EXPECT_EQ(internal.status, 503) << internal.body;
  EXPECT_NE(internal.body.find("does not compute"), std::string::npos) << internal.body;
}

TEST_F(PageRankForwardTest, NoComputingMemberOrNoResultIsSaid) {
  const uint16_t without_result = Member({stores_["empty"].get(), ""});
  const Reply none = Get(Member({nullptr, Address(without_result)}), "/api/pagerank");
  EXPECT_EQ(none.status, 404) << none.body;
  EXPECT_NE(none.body.find("computes it every pagerank.interval_s"), std::string::npos) << none.body;

  const Reply nobody = Get(Member({}), "/api/pagerank");
  EXPECT_EQ(nobody.status, 503) << nobody.body;
  EXPECT_NE(nobody.body.find("no member serves it now"), std::string::npos) << nobody.body;

  // A computing member that does not answer: a port nobody listens on.
  uint16_t closed = 0;
  {
    http::ServerOptions o;
    o.listen = "127.0.0.1:0";
    http::Server gone(*stores_["empty"], o);
    ASSERT_TRUE(gone.Start().ok());
    closed = gone.port();
  }
  const Reply silent = Get(Member({nullptr, Address(closed)}), "/api/pagerank");
  EXPECT_EQ(silent.status, 503) << silent.body;
  EXPECT_NE(silent.body.find("did not answer"), std::string::npos) << silent.body;
}

TEST_F(PageRankForwardTest, AWholeTableReadsItsOwnStore) {
  http::ServerOptions o;
  o.listen = "127.0.0.1:0";
  http::Server whole(*stores_["results"], o);
  whole.api().SetPageRank([] { return http::PageRankHome{}; });  // not partitioned: not asked
  ASSERT_TRUE(whole.Start().ok());
  EXPECT_EQ(Get(whole.port(), "/api/pagerank?limit=2").status, 200);
  EXPECT_EQ(Get(whole.port(), "/internal/pagerank?limit=2").status, 503);
}

}  // namespace
}  // namespace webindex::testing
