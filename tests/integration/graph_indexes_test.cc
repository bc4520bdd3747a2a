// The temporal and free-text indexes through the real pipeline (docs/graph.md): statements from
// topic `triples` and the web graph's pages answered by `webindex query temporal|search` and
// GET /api/temporal|search, removals leaving both indexes, unparsable dates counted, and a table
// set up without an index refusing its queries (exit code 6, HTTP 409) whatever the
// configuration says later.
#include <gtest/gtest.h>

#include <string>

#include "child_process.h"
#include "gzip_file.h"
#include "graph/index_set.h"
#include "http/prometheus.h"
#include "http/server.h"
#include "http_test_client.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 2;
constexpr char kDate[] = "^^<http://www.w3.org/2001/XMLSchema#dateTime>";

class GraphIndexesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    harness_ = std::make_unique<PipelineHarness>(kPartitions);
    auto producer = kafka::Producer::Create(harness_->config().kafka, [](uint64_t, const Status& st) {
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    producer_ = std::move(producer).value();
  }

  void Send(const std::string& key, const std::string& text, const std::string& op = "") {
    OutRecord r{"triples", pipeline::PartitionFor(key, kPartitions), key, text, {}};
    if (!op.empty()) r.headers.emplace_back("op", op);
    ASSERT_TRUE(producer_->Produce(r, sent_++).ok());
    ASSERT_TRUE(producer_->Flush(30000).ok());
  }

  //! `webindex query ARGS... --data-dir DIR`: exit code, stdout in *out.
  int Query(std::vector<std::string> args, std::string* out) {
    args.insert(args.begin(), {WEBINDEX_BINARY, "query"});
    args.insert(args.end(), {"--data-dir", harness_->config().data_dir});
    return RunCommand(args, out, harness_->data_dir() + "/query.log");
  }

  std::unique_ptr<PipelineHarness> harness_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t sent_ = 0;
};

TEST_F(GraphIndexesTest, TemporalAndSearchFromTheCommandLineAndTheApi) {
  Send("<http://ex.org/launch>",
       "<http://ex.org/launch> <http://purl.org/dc/terms/created> \"2015-07-28T05:06:17+02:00\"" + std::string(kDate) +
           " .\n"
           "<http://ex.org/launch> <http://purl.org/dc/terms/modified> \"2015-07-29T00:00:00Z\"" + kDate + " .\n"
           "<http://ex.org/launch> <http://purl.org/dc/terms/title> \"Streaming graph store, released\"@en .\n");
  Send("<http://ex.org/old>",
       "<http://ex.org/old> <http://purl.org/dc/terms/created> \"1999-12-31T23:59:59.9\"" + std::string(kDate) +
           " <http://ex.org/archive> .\n"
           "<http://ex.org/old> <http://purl.org/dc/terms/title> \"The graph of the old web\" <http://ex.org/archive> .\n"
           "<http://ex.org/old> <http://purl.org/dc/terms/created> \"1999-02-30T00:00:00Z\"" + kDate + " .\n");
  std::string unparsed_seen;
  harness_->RunUntilIdle([&](const pipeline::Metrics& m) { unparsed_seen = std::to_string(m.unparsed_dates.load()); });
  EXPECT_EQ(unparsed_seen, "1");

  std::string out;
  ASSERT_EQ(Query({"temporal", "--after", "2015-07-28T03:06:16Z", "--format", "ntriples"}, &out), 0) << out;
  EXPECT_EQ(out,
            "<http://ex.org/launch> <http://purl.org/dc/terms/created> \"2015-07-28T05:06:17+02:00\"" +
                std::string(kDate) + " .\n<http://ex.org/launch> <http://purl.org/dc/terms/modified> "
                "\"2015-07-29T00:00:00Z\"" + kDate + " .\n");
  ASSERT_EQ(Query({"temporal", "--equals", "2015-07-28T03:06:17.5Z", "--p", "http://purl.org/dc/terms/created"}, &out), 0);
  EXPECT_EQ(out, R"({"results":[{"s":"<http://ex.org/launch>","p":"<http://purl.org/dc/terms/created>",)"
                 R"("o":"\"2015-07-28T05:06:17+02:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>",)"
                 R"("graph":"default"}],"next":null})"
                 "\n");
  ASSERT_EQ(Query({"temporal", "--before", "2000-01-01T00:00:00Z", "--graph", "all", "--format", "ntriples"}, &out), 0);
  EXPECT_EQ(out, "<http://ex.org/old> <http://purl.org/dc/terms/created> \"1999-12-31T23:59:59.9\"" +
                     std::string(kDate) + " <http://ex.org/archive> .\n");
  ASSERT_EQ(Query({"search", "--q", "GRAPH", "--graph", "all", "--format", "ntriples"}, &out), 0);
  EXPECT_EQ(out,
            "<http://ex.org/launch> <http://purl.org/dc/terms/title> \"Streaming graph store, released\"@en .\n"
            "<http://ex.org/old> <http://purl.org/dc/terms/title> \"The graph of the old web\" <http://ex.org/archive> .\n");
  ASSERT_EQ(Query({"search", "--q", "graph NOT stream*", "--graph", "all", "--limit", "5"}, &out), 0);
  EXPECT_NE(out.find("old web"), std::string::npos) << out;
  EXPECT_EQ(out.find("Streaming"), std::string::npos) << out;

  // Mistakes: a usage error (2) with the reason as JSON.
  EXPECT_EQ(Query({"search", "--q", "graph AND"}, &out), 2);
  EXPECT_EQ(out, "{\"error\":\"query: 'AND' needs a term after it at character 7\"}\n");
  EXPECT_EQ(Query({"temporal", "--within", "2016-01-01T00:00:00Z/2015-01-01T00:00:00Z"}, &out), 2);
  EXPECT_EQ(out, "{\"error\":\"within: T1 is after T2\"}\n");
  EXPECT_EQ(Query({"temporal", "--before", "2015-01-01T00:00:00Z", "--q", "x"}, &out), 2);
  EXPECT_NE(out.find("--q does not apply to `query temporal`"), std::string::npos) << out;
  EXPECT_EQ(Query({"search", "--q", "x", "--s", "<http://a/>"}, &out), 2);
  EXPECT_NE(out.find("--s does not apply to `query search`"), std::string::npos) << out;
  EXPECT_EQ(Query({"top", "--q", "x"}, &out), 2);

  // The API answers the same from the live store.
  {
    auto store = harness_->OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    http::ServerOptions options;
    options.listen = "127.0.0.1:0";
    http::Server server(**store, options, {});
    ASSERT_TRUE(server.Start().ok());
    const uint16_t port = server.port();
    auto first = Get(port, "/api/search?q=graph&graph=all&limit=1");
    ASSERT_EQ(first.status, 200) << first.body;
    EXPECT_NE(first.body.find("Streaming graph store"), std::string::npos) << first.body;
    auto cursor = NextCursor(first.body);
    ASSERT_TRUE(cursor);
    auto second = Get(port, "/api/search?q=graph&graph=all&limit=1&next=" + *cursor);
    EXPECT_NE(second.body.find("old web"), std::string::npos) << second.body;
    EXPECT_NE(second.body.find("\"next\":null"), std::string::npos) << second.body;
    auto text = Raw(port, "GET /api/temporal?within=2015-07-28T03:06:16Z/2015-07-28T05:06:18%2B02:00 HTTP/1.1\r\n"
                          "Host: x\r\nAccept: application/n-triples\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(text.status, 200);
    EXPECT_EQ(text.body, "<http://ex.org/launch> <http://purl.org/dc/terms/created> \"2015-07-28T05:06:17+02:00\"" +
                             std::string(kDate) + " .\n");
    auto bad = Get(port, "/api/temporal?before=yesterday");
    EXPECT_EQ(bad.status, 400);
    EXPECT_NE(bad.body.find("before: 'yesterday' is not a date-time"), std::string::npos) << bad.body;
    EXPECT_EQ(Get(port, "/api/search?q=").status, 400);
    EXPECT_EQ(Get(port, "/api/search?q=%28graph").body,
              R"({"error":"query: '(' without a matching ')' at character 1"})");
    server.Stop();
  }

  // Removing the statements removes them from both indexes.
  Send("<http://ex.org/launch>",
       "<http://ex.org/launch> <http://purl.org/dc/terms/created> \"2015-07-28T05:06:17+02:00\"" + std::string(kDate) +
           " .\n<http://ex.org/launch> <http://purl.org/dc/terms/title> \"Streaming graph store, released\"@en .\n",
       "remove");
  harness_->RunUntilIdle();
  ASSERT_EQ(Query({"temporal", "--after", "2015-01-01T00:00:00Z", "--format", "ntriples"}, &out), 0);
  EXPECT_EQ(out, "<http://ex.org/launch> <http://purl.org/dc/terms/modified> \"2015-07-29T00:00:00Z\"" +
                     std::string(kDate) + " .\n");
  ASSERT_EQ(Query({"search", "--q", "graph", "--format", "ntriples"}, &out), 0);
  EXPECT_EQ(out, "");
}

TEST_F(GraphIndexesTest, ATableWithoutAnIndexRefusesItsQueries) {
  harness_->config().indexes.temporal = false;
  Send("<http://ex.org/a>", "<http://ex.org/a> <http://ex.org/at> \"2015-07-28T00:00:00Z\"" + std::string(kDate) +
                                " .\n<http://ex.org/a> <http://ex.org/name> \"alpha\" .\n");
  harness_->RunUntilIdle();
  // Asking for the index later changes nothing: the generation keeps what it was set up with.
  harness_->config().indexes.temporal = true;
  Send("<http://ex.org/b>", "<http://ex.org/b> <http://ex.org/at> \"2015-07-29T00:00:00Z\"" + std::string(kDate) + " .\n");
  harness_->RunUntilIdle();

  std::string out;
  EXPECT_EQ(Query({"temporal", "--after", "2000-01-01T00:00:00Z"}, &out), 6);
  EXPECT_NE(out.find("this table has no temporal index"), std::string::npos) << out;
  EXPECT_NE(out.find("webindex replay"), std::string::npos) << out;
  ASSERT_EQ(Query({"search", "--q", "alpha", "--format", "ntriples"}, &out), 0);
  EXPECT_EQ(out, "<http://ex.org/a> <http://ex.org/name> \"alpha\" .\n");

  auto store = harness_->OpenReadOnly();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto recorded = graph::RecordedIndexes(**store);
  ASSERT_TRUE(recorded.ok());
  EXPECT_FALSE(recorded->temporal);
  EXPECT_TRUE(recorded->freetext);
  http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  http::Server server(**store, options, {});
  ASSERT_TRUE(server.Start().ok());
  auto refused = Get(server.port(), "/api/temporal?after=2000-01-01T00:00:00Z");
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("no temporal index"), std::string::npos) << refused.body;
  server.Stop();
}

// The web graph's statements are indexed like any others: pages by crawl date, titles and
// anchor texts by their words.
TEST_F(GraphIndexesTest, TheWebGraphIsSearchableAndByDate) {
  harness_->config().web_triples = true;
  std::vector<std::pair<std::string, std::string>> pages;
  for (const auto& line : ReadLines(TestData("5-pages.txt"))) pages.emplace_back("", line);
  harness_->Produce(pages);
  harness_->RunUntilIdle();

  std::string out;
  ASSERT_EQ(Query({"temporal", "--within", "2015-07-28T01:32:25Z/2015-07-28T01:32:27Z", "--graph", "urn:webindex:web",
                   "--format", "ntriples"},
                  &out),
            0);
  EXPECT_EQ(out,
            "<http://apple.stackexchange.com/help/badges/9/autobiographer?userid=796> <urn:webindex:crawled> "
            "\"2015-07-28T01:32:26Z\"" + std::string(kDate) + " .\n");
  ASSERT_EQ(Query({"search", "--q", "autobiographer badge", "--p", "urn:webindex:title", "--graph", "urn:webindex:web",
                   "--format", "ntriples"},
                  &out),
            0);
  EXPECT_EQ(out,
            "<http://apple.stackexchange.com/help/badges/9/autobiographer?userid=796> <urn:webindex:title> "
            "\"Autobiographer - Badge - Ask Different\" .\n");
  ASSERT_EQ(Query({"search", "--q", "*", "--graph", "urn:webindex:web"}, &out), 2);
}

}  // namespace
}  // namespace webindex::testing
