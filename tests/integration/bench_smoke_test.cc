// `webindex bench`, tiny: the end-to-end benchmark runs through the library and through the
// binary, every event produced is consumed, and every field of the report is filled in. No
// timing assertions: only that the measurements exist and are consistent with each other.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "bench/end_to_end.h"
#include "child_process.h"
#include "pipeline_harness.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

bench::BenchConfig TinyConfig() {
  bench::BenchConfig c;
  c.crawl.pages = 1000;
  c.crawl.domains = 50;
  c.latency_pages = 200;
  c.rate = 2000;
  c.latency_samples = 50;
  c.partitions = 2;
  c.min_raw_seconds = 0;
  return c;
}

void ExpectOrdered(const bench::LatencySummary& l) {
  EXPECT_GT(l.samples, 0u);
  EXPECT_GT(l.p50_ms, 0);
  EXPECT_LE(l.p50_ms, l.p99_ms);
  EXPECT_LE(l.p99_ms, l.max_ms);
}

TEST(BenchSmokeTest, LibraryRunConsumesEveryEventAndFillsTheReport) {
  bench::BenchReport r;
  const Status st = bench::RunEndToEnd(TinyConfig(), &r);
  ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << bench::FormatText(r);

  EXPECT_EQ(r.produced, 1200u);
  EXPECT_EQ(r.consumed, r.produced);
  EXPECT_EQ(r.acked, r.produced);
  EXPECT_EQ(r.lost, 0u);
  EXPECT_EQ(r.invalid, 0u);
  EXPECT_GE(r.links, 1200u * 5);  // at least half of 10 links per page

  EXPECT_GT(r.throughput_seconds, 0);
  EXPECT_GT(r.pages_per_s, 0);
  EXPECT_GT(r.links_per_s, r.pages_per_s);
  EXPECT_LE(r.page_stage_seconds, r.throughput_seconds);
  std::vector<std::string> stages;
  for (const auto& st : r.stages) {
    stages.push_back(st.stage);
    EXPECT_GE(st.busy_seconds, 0) << st.stage;
    // One thread per stage; its first batch may have started a moment before the phase did.
    EXPECT_LE(st.busy_seconds, r.throughput_seconds + 0.5) << st.stage;
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"page", "graph", "uri", "domain", "sink"}));
  ASSERT_EQ(r.stages.size(), 5u);
  EXPECT_GT(r.stages[0].batches, 0u) << "the page stage committed no batch in the throughput phase";
  EXPECT_GT(r.stages[4].busy_seconds, 0) << "the sink was never busy in the throughput phase";

  EXPECT_EQ(r.latency_rate, 2000);
  EXPECT_GT(r.latency_achieved_rate, 0);
  ExpectOrdered(r.page_latency);
  ExpectOrdered(r.count_latency);
  ExpectOrdered(r.full_latency);
  EXPECT_GE(r.full_latency.p99_ms, r.page_latency.p99_ms);
  EXPECT_EQ(r.full_latency.samples, 50u);

  EXPECT_GT(r.peak_rss_bytes, 0u);
  EXPECT_GT(r.rocksdb_bytes, 0u);
  EXPECT_GT(r.distinct_uris, 1200u);  // every crawled page, plus link targets and probes
  EXPECT_EQ(r.raw_records, 1000u);    // the throughput phase's events, all still retained
  EXPECT_GE(r.raw_passes, 3);
  EXPECT_GT(r.raw_records_per_s, 0);
  EXPECT_GT(r.raw_ratio, 0);
}

TEST(BenchSmokeTest, CommandPrintsAJsonReportWithEveryEventConsumed) {
  const std::string dir = MakeTempDir("bench-smoke");
  std::string out;
  const int code = RunCommand({WEBINDEX_BINARY, "bench", "--pages", "1000", "--latency-pages", "100", "--rate", "1000",
                               "--domains", "50", "--partitions", "2", "--json"},
                              &out, dir + "/log");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(code, 0) << out;
  auto number = [&](const std::string& field) -> long long {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex("\"" + field + "\":([0-9.]+)"))) return -1;
    return std::stoll(m[1]);
  };
  EXPECT_EQ(number("produced"), 1100);
  EXPECT_EQ(number("consumed"), 1100);
  EXPECT_EQ(number("lost"), 0);
  for (const char* field : {"pages_per_s", "links_per_s", "p50_ms", "p99_ms", "peak_rss_bytes", "rocksdb_bytes",
                            "distinct_uris", "records_per_s", "pipeline_ratio", "pagerank_computations"}) {
    EXPECT_GE(number(field), 0) << field << " missing in " << out;
  }
  EXPECT_EQ(out.front(), '{');
  EXPECT_EQ(out.substr(out.size() - 2), "}\n");
}

}  // namespace
}  // namespace webindex::testing
