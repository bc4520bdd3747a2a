// Flow control between the stages of one process (pipeline/flow_control.h): the embedded broker
// keeps about 5 MiB per partition, so a stage that runs ahead of the stage reading its output
// loses records. A crawl whose pages fan out into many times their size downstream (long link
// lists) must reach the table whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "batch_model.h"
#include "cli_cluster.h"
#include "gzip_file.h"
#include "pipeline_harness.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

//! `pages` pages of `links` links each, with long anchor texts: ~60 bytes of input per link
//! become a uri delta, a uri export and part of a page export downstream.
std::vector<std::pair<std::string, std::string>> FanOutCrawl(int pages, int links) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < pages; ++i) {
    std::string value = R"({"url":"http://site)" + std::to_string(i % 50) + ".com/page/" + std::to_string(i) +
                        R"(","outboundLinks":[)";
    for (int l = 0; l < links; ++l) {
      if (l) value += ',';
      value += R"({"url":"http://target)" + std::to_string((i * 7 + l) % 400) + ".org/p/" + std::to_string((i + l) % 97) +
               R"(","anchorText":"anchor text number )" + std::to_string(l) + R"("})";
    }
    value += "]}";
    out.emplace_back("k" + std::to_string(i), std::move(value));
  }
  return out;
}

struct Outcome {
  uint64_t lost = 0;
  bool equal = false;
};

//! `table_later`: the stages run first without the table (the sink), then the table alone.
Outcome RunCrawl(int pages, uint64_t max_backlog_bytes, bool table_later = false) {
  // Input spread over 4 partitions (~3 MiB each), every export in one partition for the sink.
  PipelineHarness h(4, {{"webindex.exports", 1}});
  h.config().max_backlog_bytes = max_backlog_bytes;
  const auto crawl = FanOutCrawl(pages, /*links=*/150);
  BatchModel model;
  for (const auto& [key, value] : crawl) model.Apply(value);
  h.Produce(crawl);
  Outcome out;
  if (table_later) {
    h.config().table = false;
    h.RunUntilIdle([&](const pipeline::Metrics& m) { out.lost += m.lost_records; });
    h.config().table = true;
    h.config().stages = false;
  }
  h.RunUntilIdle([&](const pipeline::Metrics& m) { out.lost += m.lost_records; });
  out.equal = h.Dump() == model.TableLines();
  return out;
}

TEST(BacklogTest, StagesWaitForTheStagesReadingThemSoTheEmbeddedBrokerDeletesNothingUnread) {
  // Sanitizer builds run the paced crawl only, smaller and under a smaller limit, so that the
  // stages still wait for each other (a run at full size took 73 s under ThreadSanitizer).
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  constexpr int kPages = 1000;
  constexpr uint64_t kLimit = 3ull << 20;
#else
  constexpr int kPages = 300;
  constexpr uint64_t kLimit = 1ull << 20;
#endif
  const Outcome paced = RunCrawl(kPages, kLimit);
  EXPECT_EQ(paced.lost, 0u);
  EXPECT_TRUE(paced.equal) << "the table differs from the batch model";
  // Without the limit the crawl's exports are more than the broker keeps of a partition nobody
  // reads: the test above would fail without pacing whenever the sink falls that far behind.
  // (How far it falls behind in one run is a matter of the stages' speeds, so the check runs
  // the stages with no sink, then the sink: it finds the records the broker deleted.) Plain
  // builds only, for its cost.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  const Outcome unpaced = RunCrawl(kPages, 0, /*table_later=*/true);
  EXPECT_GT(unpaced.lost, 0u) << "the crawl no longer overflows the embedded broker: make it fan out more";
  EXPECT_FALSE(unpaced.equal);
#endif
}

//! A JSON lines file of `pages` crawl events of ~1 KB each; returns its path.
std::string WriteCrawlFile(const std::string& dir, int pages) {
  const std::string path = dir + "/crawl.jsonl";
  std::ofstream out(path);
  const std::string title(900, 't');
  for (int i = 0; i < pages; ++i) {
    out << R"({"url":"http://site)" << i % 30 << ".com/" << i << R"(","title":")" << title
        << R"(","outboundLinks":[{"url":"http://hub.org/)" << i % 10 << R"("}]})" << '\n';
  }
  return path;
}

//! Rows of the table that record a crawled page.
size_t CrawledPages(const std::vector<std::string>& table) {
  return static_cast<size_t>(std::count_if(table.begin(), table.end(), [](const std::string& row) {
    return row.starts_with("p:") && row.find("|page|cur|") != std::string::npos;
  }));
}

//! Loads `file` into `cluster` while a `webindex run` reads it, stops the run after the load and
//! applies the rest with --exit-when-idle (each exits 0); returns where the log stood when the
//! load began, nullopt when the run did not start.
std::optional<size_t> LoadWithARunReading(CliCluster& cluster, const std::string& file) {
  auto run = cluster.StartRun(/*exit_when_idle=*/false);
  if (!cluster.WaitForLog("processing pages", 30000)) {
    ADD_FAILURE() << "the run did not start: " << ReadFileBytes(cluster.log());
    return std::nullopt;
  }
  const size_t from = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"load", "--brokers", cluster.brokers(), file}), 0) << ReadFileBytes(cluster.log());
  run->Signal(SIGINT);
  EXPECT_EQ(run->Wait(), 0) << ReadFileBytes(cluster.log());
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}), 0)
      << ReadFileBytes(cluster.log());
  return from;
}

// A load smaller than what a partition may hold unread never waits for its reader, and does
// not say it does: records still on their way to the broker are waited for quietly, a
// millisecond at a time (they once cost 50 ms each and a "waiting for" line).
TEST(BacklogTest, ALoadUnderThePacingBudgetNeverSaysItWaitsForTheReader) {
  CliCluster cluster(WEBINDEX_BINARY, "load-unpaced", 1);
  ASSERT_TRUE(cluster.ok()) << ReadFileBytes(cluster.log());
  const std::string file = WriteCrawlFile(cluster.dir(), 2500);  // ~2.4 MiB into one partition
  const std::optional<size_t> from = LoadWithARunReading(cluster, file);
  ASSERT_TRUE(from.has_value());
  EXPECT_FALSE(cluster.WaitForLog("waiting for webindex-page", 0, *from)) << ReadFileBytes(cluster.log());
  EXPECT_EQ(CrawledPages(cluster.Dump()), 2500u);
}

// `webindex load` into the embedded broker keeps each partition's unread part under ~3 MiB,
// watching the position the running `webindex run` reports; with nobody reading, it says what
// the broker deleted and exits 4.
TEST(BacklogTest, LoadIntoTheEmbeddedBrokerWaitsForTheRunReadingItAndSaysWhatNobodyRead) {
  CliCluster cluster(WEBINDEX_BINARY, "load-backlog", 1);
  ASSERT_TRUE(cluster.ok()) << ReadFileBytes(cluster.log());
  const std::string file = WriteCrawlFile(cluster.dir(), 8000);  // ~8 MiB into one partition
  const std::optional<size_t> loaded_from = LoadWithARunReading(cluster, file);
  ASSERT_TRUE(loaded_from.has_value());
  size_t from = *loaded_from;
  EXPECT_TRUE(cluster.WaitForLog("waiting for webindex-page to read pages", 0, from)) << ReadFileBytes(cluster.log());
  EXPECT_FALSE(cluster.WaitForLog("DATA LOSS", 0, from)) << ReadFileBytes(cluster.log());
  EXPECT_EQ(CrawledPages(cluster.Dump()), 8000u);

  // The same again with no run reading: the load waits for a reader a while, then loads on,
  // and the broker deletes what its partition cannot keep.
  from = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"load", "--brokers", cluster.brokers(), file}), 4) << ReadFileBytes(cluster.log());
  EXPECT_TRUE(cluster.WaitForLog("records this load wrote, before they were read", 0, from))
      << ReadFileBytes(cluster.log());
  // A run starting after it finds the hole, and says so.
  from = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}), 4)
      << ReadFileBytes(cluster.log());
  EXPECT_TRUE(cluster.WaitForLog("DATA LOSS: pages[0]", 0, from)) << ReadFileBytes(cluster.log());
}

// A new table starts where its input starts now, and names what the broker deleted before:
// counted in webindex_deleted_before_start_total, not skipped without a word, not "lost".
TEST(BacklogTest, ANewTableNamesTheInputDeletedBeforeItBegan) {
  PipelineHarness h(1);
  const std::string padding(900, 'x');
  std::vector<std::pair<std::string, std::string>> events;
  constexpr uint64_t kEvents = 8000;
  for (uint64_t i = 0; i < kEvents; ++i) {
    events.emplace_back("k", R"({"url":"http://c.com/)" + std::to_string(i) + R"(","title":")" + padding + R"("})");
  }
  h.Produce(events, 0);  // ~8 MiB: the broker keeps the newest ~5
  uint64_t lost = 0, consumed = 0, deleted = 0;
  h.RunUntilIdle([&](const pipeline::Metrics& m) {
    lost = m.lost_records;
    consumed = m.events;
    deleted = m.deleted_before_start;
  });
  EXPECT_GT(deleted, 0u) << "the test needs the broker to have deleted records";
  EXPECT_EQ(lost, 0u);
  EXPECT_EQ(deleted + consumed, kEvents);
}

}  // namespace
}  // namespace webindex::testing
