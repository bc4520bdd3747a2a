// The graph stage through the real pipeline: records of topic `triples` (N-Triples / N-Quads,
// header op) applied to the graph store with set semantics, bad records dead-lettered whole,
// several runs of the processor in between; and `webindex load --format ntriples|nquads` and
// `webindex query triples` as a user runs them. The store is checked against an independent
// reference: a std::set of N-Quads lines folded from the records in production order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "gzip_file.h"
#include "graph/graph_query.h"
#include "graph/term.h"
#include "http/prometheus.h"
#include "http/server.h"
#include "http_test_client.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"
#include "seeds.h"
#include "test_paths.h"
#include "triple_generator.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 3;

class GraphStageTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }

  //! A new broker, data dir and producer.
  void Reset() {
    producer_.reset();
    harness_ = std::make_unique<PipelineHarness>(kPartitions);
    auto producer = kafka::Producer::Create(harness_->config().kafka, [](uint64_t, const Status& st) {
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    producer_ = std::move(producer).value();
  }

  //! Produces one record to `triples`, keyed by `key` (the partition follows the key, as load's).
  void Send(const std::string& key, const std::string& text, const std::string& op = "") {
    SendWithOps(key, text, op.empty() ? std::vector<std::string>{} : std::vector<std::string>{op});
  }
  //! Send with a header op for each of `ops`, in order.
  void SendWithOps(const std::string& key, const std::string& text, const std::vector<std::string>& ops) {
    OutRecord r{"triples", pipeline::PartitionFor(key, kPartitions), key, text, {}};
    for (const auto& op : ops) r.headers.emplace_back("op", op);
    ASSERT_TRUE(producer_->Produce(r, sent_++).ok());
  }
  void Flush() { ASSERT_TRUE(producer_->Flush(30000).ok()); }

  std::unique_ptr<PipelineHarness> harness_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t sent_ = 0;
};

// Random adds and removes (repeats, removes of absent statements, several statements per record,
// named graphs, some records invalid) over a small universe of terms, in rounds with a processor
// started and stopped in between: the store equals the reference after every round. The middle
// round's batches are large enough for the stage to apply them in two lanes (by subject); the
// last round's are small, each processed while the one before it is being written.
TEST_F(GraphStageTest, RandomAddsAndRemovesEqualTheReference) {
  for (const uint64_t seed : RandomTestSeeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (WEBINDEX_SEEDS=" + std::to_string(seed) + ")");
    std::cout << "graph stage seed " << seed << std::endl;
    Reset();
    TripleGenerator gen(seed);
    std::set<std::string> reference;
    uint64_t invalid = 0;
    for (int round = 0; round < 3; ++round) {
      harness_->config().runner.max_batch = round == 2 ? 5 : 40000;
      for (int r = 0; r < (round == 1 ? 1500 : round == 2 ? 400 : 150); ++r) {
        const TripleRecord record = gen.Next();
        Send(record.key, record.text, record.op);
        Fold(record, &reference);
        invalid += record.invalid;
      }
      Flush();
      harness_->RunUntilIdle();
      ASSERT_EQ(harness_->Quads(), reference) << "round " << round;
    }
    uint64_t dead_letters = 0;
    for (const auto& r : harness_->ReadTopic("webindex.dead-letters")) {
      dead_letters += r.value.find("<rel>") != std::string::npos;
    }
    EXPECT_EQ(dead_letters, invalid);
  }
}

TEST_F(GraphStageTest, BadRecordsAreDeadLetteredWholeWithTheLine) {
  Send("<http://a.example/s>", "<http://a.example/s> <http://a.example/p> \"kept\" .\n");
  Send("<http://a.example/s>",
       "<http://a.example/s> <http://a.example/p> \"one\" .\n\n"
       "<http://a.example/s> <http://a.example/p> \"two\" \n");  // line 3: no final dot
  Send("<http://a.example/s>", "<http://a.example/s> <http://a.example/p> \"x\" <urn:webindex:web> .\n");
  Send("<http://a.example/s>", "<http://a.example/s> <http://a.example/p> \"kept\" .\n", "delete");
  Flush();
  std::string metrics;  // as /metrics serves them
  harness_->RunUntilIdle([&](const pipeline::Metrics& m) {
    http::PrometheusWriter w;
    http::WritePipelineMetrics(m, w);
    metrics = w.Take();
  });
  EXPECT_NE(metrics.find("\nwebindex_invalid_triple_records_total 3\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nwebindex_dead_lettered_total 3\n"), std::string::npos) << metrics;
  EXPECT_EQ(harness_->Quads(), std::set<std::string>{"<http://a.example/s> <http://a.example/p> \"kept\" ."});
  std::vector<std::string> reasons;
  for (const auto& r : harness_->ReadTopic("webindex.dead-letters")) {
    for (const auto& [name, value] : r.headers) {
      if (name == "reason") reasons.push_back(value);
    }
  }
  ASSERT_EQ(reasons.size(), 3u);
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons[0], "invalid statements: header op is 'delete'; it must be add or remove");
  EXPECT_TRUE(reasons[1].starts_with("invalid statements: line 1: graph <urn:webindex:web> holds the web graph"))
      << reasons[1];
  EXPECT_TRUE(reasons[2].starts_with("invalid statements: line 3, column ")) << reasons[2];
}

// A record that says two things is refused whole: two op headers (the stage would read only the
// first), or a line with text after its statement's final '.' (serd's reader would stop there).
TEST_F(GraphStageTest, TwoOpHeadersOrTextAfterAStatementDeadLetterTheRecord) {
  const std::string s = "<http://a.example/s> <http://a.example/p> ";
  Send("<http://a.example/s>", s + "\"kept\" .\n");
  SendWithOps("<http://a.example/s>", s + "\"two ops\" .\n", {"add", "remove"});
  Send("<http://a.example/s>", s + "\"first\" .\n" + s + "\"trailing\" . extra .\n");
  Send("<http://a.example/s>", s + "\"commented\" . # a comment\n");
  Flush();
  harness_->RunUntilIdle();
  EXPECT_EQ(harness_->Quads(), (std::set<std::string>{s + "\"commented\" .", s + "\"kept\" ."}));
  std::vector<std::string> reasons;
  for (const auto& r : harness_->ReadTopic("webindex.dead-letters")) {
    for (const auto& [name, value] : r.headers) {
      if (name == "reason") reasons.push_back(value);
    }
  }
  ASSERT_EQ(reasons.size(), 2u);
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons[0], "invalid statements: header op is set 2 times; a record takes it once");
  EXPECT_EQ(reasons[1], "invalid statements: line 2, column 56: text after the statement's final '.'");
}

// The CLI as a user runs it: load N-Quads (a bad line reported and skipped), run, query; then
// load --remove; the query table's cells are untouched by the graph's rows.
TEST_F(GraphStageTest, LoadRunAndQueryFromTheCommandLine) {
  const std::string dir = harness_->data_dir();
  const std::string file = dir + "/people.nq", log = dir + "/cli.log";
  WriteFileBytes(file,
                 "# people\n"
                 "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/name> \"Alice\"@en .\n"
                 "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/bob> <http://g.ex/1> .\n"
                 "<http://ex.org/bob> <http://xmlns.com/foaf/0.1/name> \"Bob\" .\n"
                 "<http://ex.org/bob> <http://xmlns.com/foaf/0.1/name> \"B\" <urn:webindex:web> .\n"
                 "<http://ex.org/carol> <rel> \"x\" .\n");
  std::string out;
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", harness_->brokers(), "--format", "nquads", file}, &out, log),
            5);
  const std::string log_text = ReadFileBytes(log);
  EXPECT_NE(log_text.find(file + ":5: "), std::string::npos) << log_text;
  EXPECT_NE(log_text.find(file + ":6:"), std::string::npos) << log_text;
  EXPECT_EQ(log_text.find("line 6, column"), std::string::npos) << log_text;  // the place is said once
  harness_->Produce({{"", ReadLines(TestData("5-pages.txt")).front()}});
  harness_->RunUntilIdle();
  const auto table = harness_->Dump();
  EXPECT_FALSE(table.empty());

  const std::string data = harness_->config().data_dir;
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "query", "triples", "--data-dir", data, "--graph", "all", "--format",
                        "ntriples"},
                       &out, log),
            0)
      << ReadFileBytes(log);
  EXPECT_EQ(out,
            "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/name> \"Alice\"@en .\n"
            "<http://ex.org/bob> <http://xmlns.com/foaf/0.1/name> \"Bob\" .\n"
            "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/bob> <http://g.ex/1> .\n");
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "query", "triples", "--data-dir", data, "--p", "http://xmlns.com/foaf/0.1/name",
                        "--limit", "1"},
                       &out, log),
            0);
  EXPECT_TRUE(out.starts_with(R"({"results":[{"s":"<http://ex.org/alice>","p":"<http://xmlns.com/foaf/0.1/name>",)"
                              R"("o":"\"Alice\"@en","graph":"default"}],"next":")"))
      << out;
  const std::string cursor = out.substr(out.find("\"next\":\"") + 8, out.rfind('"') - out.find("\"next\":\"") - 8);
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "query", "triples", "--data-dir", data, "--p", "http://xmlns.com/foaf/0.1/name",
                        "--limit", "1", "--next", cursor},
                       &out, log),
            0);
  EXPECT_EQ(out, R"({"results":[{"s":"<http://ex.org/bob>","p":"<http://xmlns.com/foaf/0.1/name>","o":"\"Bob\"",)"
                 R"("graph":"default"}],"next":null})"
                 "\n");
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "triples", "--data-dir", data, "--s", "\"lit\""}, &out, log), 2);
  EXPECT_EQ(out, "{\"error\":\"s: a subject is never a literal\"}\n");
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "triples", "--data-dir", data, "--url", "http://a.com/"}, &out, log), 2);

  // --remove, and the graph's rows never show in the table's cells.
  const std::string gone = dir + "/gone.nt";
  WriteFileBytes(gone, "<http://ex.org/bob> <http://xmlns.com/foaf/0.1/name> \"Bob\" .\n");
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", harness_->brokers(), "--format", "ntriples", "--remove",
                        gone},
                       &out, log),
            0);
  harness_->RunUntilIdle();
  EXPECT_EQ(harness_->Quads(),
            (std::set<std::string>{"<http://ex.org/alice> <http://xmlns.com/foaf/0.1/name> \"Alice\"@en .",
                                   "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/bob> "
                                   "<http://g.ex/1> ."}));
  EXPECT_EQ(harness_->Dump(), table);
}

// GET /api/triples: JSON pages with cursors, all matches as N-Triples (N-Quads for graph=all) with
// Accept: application/n-triples, bad terms as 400; /metrics counts statements.
TEST_F(GraphStageTest, HttpApiAnswersPatterns) {
  Send("<http://ex.org/a>",
       "<http://ex.org/a> <http://ex.org/p> \"x\"@en .\n<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n"
       "<http://ex.org/a> <http://ex.org/q> <http://ex.org/b> <http://ex.org/g> .\n");
  Flush();
  harness_->RunUntilIdle();
  auto store = harness_->OpenReadOnly();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  pipeline::Metrics metrics;
  metrics.statements_added = 3;
  http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  http::Server server(**store, options, [&](http::PrometheusWriter& w) { http::WritePipelineMetrics(metrics, w); });
  ASSERT_TRUE(server.Start().ok());
  const uint16_t port = server.port();

  auto first = Get(port, "/api/triples?p=http://ex.org/p&limit=1");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_TRUE(first.body.starts_with(R"({"results":[{"s":"<http://ex.org/a>","p":"<http://ex.org/p>",)"
                                     R"("o":"<http://ex.org/b>","graph":"default"}],"next":")"))
      << first.body;
  auto cursor = NextCursor(first.body);
  ASSERT_TRUE(cursor);
  auto second = Get(port, "/api/triples?p=http://ex.org/p&limit=1&next=" + *cursor);
  EXPECT_EQ(second.body, R"({"results":[{"s":"<http://ex.org/a>","p":"<http://ex.org/p>","o":"\"x\"@en",)"
                         R"("graph":"default"}],"next":null})");

  auto text = Raw(port, "GET /api/triples?s=%3Chttp%3A%2F%2Fex.org%2Fa%3E&graph=all HTTP/1.1\r\nHost: x\r\n"
                        "Accept: application/n-triples\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(text.status, 200);
  EXPECT_NE(text.head.find("Content-Type: application/n-quads"), std::string::npos) << text.head;
  EXPECT_EQ(text.body,
            "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n"
            "<http://ex.org/a> <http://ex.org/p> \"x\"@en .\n"
            "<http://ex.org/a> <http://ex.org/q> <http://ex.org/b> <http://ex.org/g> .\n");

  auto bad = Get(port, "/api/triples?s=%22lit%22");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"s: a subject is never a literal"})");
  EXPECT_EQ(Get(port, "/api/triples?next=not-a-cursor").status, 400);
  auto m = Get(port, "/metrics");
  EXPECT_NE(m.body.find(R"(webindex_statements_total{graph="statements",change="added"} 3)"), std::string::npos)
      << m.body;
  server.Stop();
}

}  // namespace
}  // namespace webindex::testing
