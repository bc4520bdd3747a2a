// Instance details (docs/graph.md, "Instance details"): the first run records the instance's
// name, version, creation time and indexes; later runs keep exactly those indexes whatever
// their configuration says (Rya's installer behaviour: an index is never left behind), warning
// once with the command that changes them; `webindex replay --indexes` rebuilds with another
// set while a live run keeps answering and events keep arriving, and the result equals a fresh
// build with that set.
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_cluster.h"
#include "gzip_file.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

constexpr char kDate[] = "^^<http://www.w3.org/2001/XMLSchema#dateTime>";

//! One record of topic `triples` adding `n` statements about subject `s<i>`: a date and a title.
OutRecord Statements(int i) {
  const std::string s = "<http://ex.org/s" + std::to_string(i) + ">";
  const std::string text = s + " <http://purl.org/dc/terms/created> \"2015-07-" + std::to_string(10 + i % 20) +
                           "T12:00:00Z\"" + kDate + " .\n" + s + " <http://purl.org/dc/terms/title> \"report number " +
                           std::to_string(i) + "\" .\n";
  return OutRecord{"triples", i % 4, s, text, {}};
}

std::vector<OutRecord> Range(int from, int to) {
  std::vector<OutRecord> out;
  for (int i = from; i < to; ++i) out.push_back(Statements(i));
  return out;
}

//! The value of "key": in a flat JSON object (strings, numbers, booleans, null).
std::string Field(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return "<absent>";
  size_t begin = at + key.size() + 3, end = begin;
  if (json[begin] == '"') {
    end = json.find('"', begin + 1);
    return json.substr(begin + 1, end - begin - 1);
  }
  while (end < json.size() && json[end] != ',' && json[end] != '}') ++end;
  return json.substr(begin, end - begin);
}

class InstanceDetailsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-details", 4);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
  }

  //! A configuration file with these [indexes] and [pagerank] lines.
  std::string Config(const std::string& name, const std::string& body) {
    const std::string path = cluster_->dir() + "/" + name + ".toml";
    WriteFileBytes(path, body);
    return path;
  }

  std::vector<std::string> Args(std::vector<std::string> args, const std::string& config,
                                const std::string& data_dir = "") {
    args.insert(args.end(), {"--config", config, "--data-dir", data_dir.empty() ? cluster_->data_dir() : data_dir});
    return args;
  }

  std::string Details(const std::string& data_dir = "") {
    std::string out;
    EXPECT_EQ(cluster_->Run({"details", "--data-dir", data_dir.empty() ? cluster_->data_dir() : data_dir}, &out), 0);
    return out;
  }

  std::unique_ptr<CliCluster> cluster_;
};

TEST_F(InstanceDetailsTest, RecordedOnceKeptWhateverTheConfigurationAndChangedByReplay) {
  const std::string first = Config("first", "[instance]\nname = \"crawl-1\"\n[indexes]\ntemporal = false\n"
                                             "[pagerank]\ninterval_s = 0\n");
  ASSERT_TRUE(cluster_->ProduceRecords(Range(0, 40)));
  ASSERT_EQ(cluster_->Start(Args({"run", "--brokers", cluster_->brokers(), "--exit-when-idle"}, first))->Wait(), 0)
      << "see " << cluster_->log();
  const std::string details = Details();
  EXPECT_EQ(Field(details, "name"), "crawl-1") << details;
  EXPECT_EQ(Field(details, "generation"), "1") << details;
  EXPECT_NE(Field(details, "version"), "null") << details;
  EXPECT_NE(Field(details, "createdAt"), "null") << details;
  EXPECT_NE(details.find(R"("indexes":{"graph":true,"web_triples":false,"temporal":false,"freetext":true,)"
                         R"("pagerank":false,"temporal.predicates":[],"freetext.by_predicate":true})"),
            std::string::npos)
      << details;

  // A configuration that asks for temporal and drops freetext changes nothing but a warning:
  // statements that arrive now are still searchable, and temporal queries are still refused.
  const std::string second = Config("second", "[indexes]\ntemporal = true\nfreetext = false\n");
  ASSERT_TRUE(cluster_->ProduceRecords(Range(40, 60)));
  size_t from = cluster_->LogSize();
  ASSERT_EQ(cluster_->Start(Args({"run", "--brokers", cluster_->brokers(), "--exit-when-idle"}, second))->Wait(), 0);
  EXPECT_TRUE(cluster_->WaitForLog("temporal: off in this table, on in the configuration; freetext: on in this table, "
                                   "off in the configuration",
                                   1000, from))
      << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("--indexes +temporal,-freetext", 1000, from));
  std::string out;
  ASSERT_EQ(cluster_->Run(Args({"query", "search", "--q", "number 55", "--format", "ntriples"}, second), &out), 0);
  EXPECT_EQ(out, "<http://ex.org/s55> <http://purl.org/dc/terms/title> \"report number 55\" .\n");
  EXPECT_EQ(cluster_->Run(Args({"query", "temporal", "--after", "2000-01-01T00:00:00Z"}, second), &out), 6);
  EXPECT_EQ(Details(), details);

  // Replay with the configured set while a live run answers and events arrive.
  EXPECT_EQ(cluster_->Run(Args({"replay", "--brokers", cluster_->brokers(), "--indexes", "+temporal,-bogus"}, second),
                          &out),
            2);
  from = cluster_->LogSize();
  auto live = cluster_->Start(Args({"run", "--brokers", cluster_->brokers()}, second));
  ASSERT_TRUE(cluster_->WaitForLog("query table in " + cluster_->data_dir() + "/gen-1", 30000, from));
  auto replay = cluster_->Start(
      Args({"replay", "--brokers", cluster_->brokers(), "--switch-lag", "0", "--indexes", "+temporal,-freetext"}, second));
  ASSERT_TRUE(cluster_->WaitForLog("into generation 2", 30000, from)) << "see " << cluster_->log();
  ASSERT_TRUE(cluster_->ProduceRecords(Range(60, 90)));
  ASSERT_EQ(replay->Wait(), 0) << "see " << cluster_->log();
  ASSERT_TRUE(cluster_->WaitForLog("now running generation 2", 20000, from)) << "see " << cluster_->log();
  ASSERT_TRUE(cluster_->ProduceRecords(Range(90, 100)));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  live->Signal(SIGTERM);
  ASSERT_EQ(live->Wait(), 0) << "see " << cluster_->log();
  ASSERT_EQ(cluster_->Start(Args({"run", "--brokers", cluster_->brokers(), "--exit-when-idle"}, second))->Wait(), 0);

  const std::string replayed = Details();
  EXPECT_EQ(Field(replayed, "name"), "crawl-1") << replayed;
  EXPECT_EQ(Field(replayed, "createdAt"), Field(details, "createdAt"));
  EXPECT_EQ(Field(replayed, "generation"), "2");
  EXPECT_GE(Field(replayed, "generationCreatedAt"), Field(details, "generationCreatedAt"));
  EXPECT_NE(replayed.find(R"("indexes":{"graph":true,"web_triples":false,"temporal":true,"freetext":false,)"
                          R"("pagerank":false,)"),
            std::string::npos)
      << replayed;
  EXPECT_EQ(cluster_->Run(Args({"query", "search", "--q", "report"}, second), &out), 6);
  EXPECT_NE(out.find("no free-text index"), std::string::npos) << out;

  // The same as a fresh build with that set, from the same topics.
  const std::string fresh_dir = cluster_->dir() + "/fresh";
  const std::string fresh = Config("fresh", "[indexes]\ntemporal = true\nfreetext = false\n[pagerank]\ninterval_s = 0\n");
  ASSERT_EQ(cluster_->Start(Args({"run", "--brokers", cluster_->brokers(), "--exit-when-idle"}, fresh, fresh_dir))->Wait(), 0);
  EXPECT_NE(Details(fresh_dir).find(R"("temporal":true,"freetext":false,"pagerank":false)"), std::string::npos);
  for (const std::vector<std::string>& q :
       {std::vector<std::string>{"query", "temporal", "--after", "1970-01-01T00:00:00Z", "--format", "ntriples"},
        std::vector<std::string>{"query", "temporal", "--within", "2015-07-12T00:00:00Z/2015-07-15T00:00:00Z", "--p",
                                 "http://purl.org/dc/terms/created", "--format", "ntriples"},
        std::vector<std::string>{"query", "triples", "--graph", "all", "--format", "ntriples"}}) {
    std::string replayed_out, fresh_out;
    ASSERT_EQ(cluster_->Run(Args(q, second), &replayed_out), 0);
    ASSERT_EQ(cluster_->Run(Args(q, fresh, fresh_dir), &fresh_out), 0);
    EXPECT_EQ(replayed_out, fresh_out) << q[1] << " " << q[2];
    EXPECT_NE(replayed_out, "");
  }
  std::string all;
  ASSERT_EQ(cluster_->Run(Args({"query", "temporal", "--after", "1970-01-01T00:00:00Z", "--format", "ntriples"}, second),
                          &all),
            0);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 100);
}

TEST_F(InstanceDetailsTest, DetailsOfADataDirThatNeverRanIsAnError) {
  std::string out;
  EXPECT_EQ(cluster_->Run({"details", "--data-dir", cluster_->dir() + "/nothing"}, &out), 1);
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace webindex::testing
