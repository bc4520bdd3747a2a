// Common Crawl WAT input end to end: the WAT reader's events, and `webindex load --format wat`
// on a multi-member gzip file, through the whole pipeline; the table must equal the batch model
// over the same events, and over the independent test-only extractor's events.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "batch_model.h"
#include "child_process.h"
#include "gzip_file.h"
#include "ingest/wat.h"
#include "model/url.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"
#include "test_paths.h"
#include "wat_extract.h"

namespace webindex::testing {
namespace {

//! The keyed events of a WAT file, read with the product's reader.
std::vector<std::pair<std::string, std::string>> ReadWatEvents(const std::string& path) {
  auto reader = ingest::WatEventReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<std::pair<std::string, std::string>> out;
  ingest::KeyedEvent ev;
  for (;;) {
    auto got = (*reader)->Next(&ev);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok() || !*got) return out;
    out.emplace_back(ev.key, ev.value);
  }
}

std::vector<std::string> ModelTable(const std::vector<std::pair<std::string, std::string>>& events) {
  BatchModel model;
  for (const auto& [key, value] : events) model.Apply(value);
  EXPECT_EQ(model.invalid_events(), 0u);
  return model.TableLines();
}

size_t Count(const std::vector<std::string>& table, const std::string& text) {
  return std::count_if(table.begin(), table.end(), [&](const auto& l) { return l.find(text) != std::string::npos; });
}

class WatLoadTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("wat-load-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(WatLoadTest, ReaderEventsThroughThePipelineEqualTheBatchModel) {
  auto events = ReadWatEvents(TestData("wat-18.warc"));
  const auto single = ReadWatEvents(TestData("wat.warc"));
  events.insert(events.end(), single.begin(), single.end());
  ASSERT_EQ(events.size(), 6u);
  PipelineHarness h;
  h.Produce(events);
  h.RunUntilIdle();
  const auto table = h.Dump();
  EXPECT_EQ(table, ModelTable(events));
  // Cross-check: the test-only extractor's events give the very same table.
  std::vector<std::pair<std::string, std::string>> extracted;
  for (const char* file : {"wat-18.warc", "wat.warc"}) {
    for (auto& e : ExtractWatEvents(TestData(file))) extracted.emplace_back("", std::move(e));
  }
  EXPECT_EQ(table, ModelTable(extracted));
  EXPECT_EQ(Count(table, "|page|cur|"), 6u);
  EXPECT_EQ(Count(table, "|inlinks|"), 29u);  // 0 + 4 + 8 + 7 + 10 + 0 external links
}

TEST_F(WatLoadTest, LoadCommandOnMultiMemberGzip) {
  const std::string gz = dir_ + "/wat-18.warc.gz", log = dir_ + "/load.log";
  WriteGzipWarc(gz, ReadFileBytes(TestData("wat-18.warc")), /*per_record=*/true);
  PipelineHarness h;
  std::string out;
  const int rc = RunCommand(
      {WEBINDEX_BINARY, "load", "--brokers", h.brokers(), "--format", "wat", gz, TestData("wat.warc")}, &out, log);
  const std::string log_text = ReadFileBytes(log);
  ASSERT_EQ(rc, 0) << log_text;
  EXPECT_NE(log_text.find("loaded 19 records: 6 events produced, skipped request 6, metadata 5, warcinfo 2; "
                          "44 links kept, 35 dropped (unresolvable)"),
            std::string::npos)
      << log_text;
  h.RunUntilIdle();
  auto events = ReadWatEvents(TestData("wat-18.warc"));
  const auto single = ReadWatEvents(TestData("wat.warc"));
  events.insert(events.end(), single.begin(), single.end());
  const auto table = h.Dump();
  EXPECT_EQ(table, ModelTable(events));
  EXPECT_EQ(Count(table, "|page|cur|"), 6u);
  // Records are keyed by page URL, in the partition of their page's task (the normalized URI's).
  const auto records = h.ReadTopic(h.config().topics.pages);
  ASSERT_EQ(records.size(), 6u);
  std::set<int32_t> partitions;
  for (const auto& r : records) {
    EXPECT_NE(r.value.find("\"url\":\"" + r.key + "\""), std::string::npos) << r.key;
    auto url = model::ParseUrl(r.key);
    ASSERT_TRUE(url.ok()) << r.key;
    EXPECT_EQ(r.partition, pipeline::PartitionFor(url->ToUri(), 3)) << r.key;
    partitions.insert(r.partition);
  }
  EXPECT_GT(partitions.size(), 1u);
}

TEST_F(WatLoadTest, LoadCommandAllLinks) {
  const std::string log = dir_ + "/load.log";
  PipelineHarness h;
  std::string out;
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", h.brokers(), "--format", "wat", "--all-links",
                        TestData("wat-18.warc")},
                       &out, log),
            0)
      << ReadFileBytes(log);
  h.RunUntilIdle();
  const auto table = h.Dump();
  std::vector<std::pair<std::string, std::string>> extracted;
  for (auto& e : ExtractWatEvents(TestData("wat-18.warc"), /*external_links_only=*/false)) {
    extracted.emplace_back("", std::move(e));
  }
  EXPECT_EQ(table, ModelTable(extracted));
  EXPECT_EQ(Count(table, "|inlinks|"), 0u + 88 + 40 + 75 + 110);
}

TEST_F(WatLoadTest, LoadCommandFailsOnACorruptFileNamingItAndTheOffset) {
  std::string warc = ReadFileBytes(TestData("wat-18.warc"));
  const auto records = SplitWarcRecords(warc);
  const size_t offset = static_cast<size_t>(records[7].data() - warc.data());
  const size_t line = offset + 10;  // the field after "WARC/1.0\r\n"
  ASSERT_EQ(warc.substr(line, 10), "WARC-Type:");
  warc[line + 9] = ' ';  // the colon is gone
  const std::string path = dir_ + "/bad.warc", log = dir_ + "/load.log";
  WriteFileBytes(path, warc);
  PipelineHarness h;
  std::string out;
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", h.brokers(), "--format", "wat", path}, &out, log), 1);
  const std::string log_text = ReadFileBytes(log);
  EXPECT_NE(log_text.find(path + ": offset " + std::to_string(line) + ": malformed WARC header line"),
            std::string::npos)
      << log_text;
  // The two pages before the bad record were produced all the same.
  EXPECT_EQ(h.ReadTopic(h.config().topics.pages).size(), 2u);
}

// The events validate against schemas/crawl-event.schema.json (python3-jsonschema needed).
TEST_F(WatLoadTest, EventsMatchTheCrawlEventSchema) {
  const std::string events = dir_ + "/events.jsonl", log = dir_ + "/validate.log";
  std::string lines;
  for (bool all_links : {false, true}) {
    ingest::WatOptions options;
    options.all_links = all_links;
    auto reader = ingest::WatEventReader::Open(TestData("wat-18.warc"), options);
    ASSERT_TRUE(reader.ok());
    ingest::KeyedEvent ev;
    for (auto got = (*reader)->Next(&ev); got.ok() && *got; got = (*reader)->Next(&ev)) lines += ev.value + "\n";
  }
  WriteFileBytes(events, lines);
  const std::string script = std::filesystem::path(WEBINDEX_TEST_DATA).parent_path().string() + "/schemas/validate.py";
  std::string out;
  const int rc = RunCommand({"/usr/bin/python3", script, "--min-records", "10", "crawl-event", events}, &out, log);
  if (rc == 3) GTEST_SKIP() << "python3-jsonschema is not installed";
  EXPECT_EQ(rc, 0) << out << ReadFileBytes(log);
}

}  // namespace
}  // namespace webindex::testing
