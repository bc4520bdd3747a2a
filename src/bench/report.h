// What `webindex bench` measured in one run, and its text and JSON forms. Plain values;
// also the process and disk figures it reads (peak RSS, CPU time, directory size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace webindex::bench {

//! p50/p99/max of one latency series, in milliseconds.
struct LatencySummary {
  uint64_t samples = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};
//! Percentiles of `ms` (sorted in place); zeros when empty.
LatencySummary Summarize(std::vector<double>* ms);

struct BenchReport {
  // The input.
  uint64_t pages = 0, links = 0, latency_pages = 0;
  uint32_t links_per_page = 0, domains = 0;
  uint64_t uri_space = 0, seed = 0;
  double zipf = 0;
  int partitions = 0;
  double avg_event_bytes = 0;

  // Integrity: every event produced was consumed, nothing was lost to retention.
  uint64_t produced = 0, acked = 0, consumed = 0, invalid = 0, lost = 0;
  uint64_t throttled_waits = 0;  //!< producer pauses to keep lag under the broker's retention

  // (a) throughput phase: first event consumed -> every stage idle.
  double throughput_seconds = 0, pages_per_s = 0, links_per_s = 0;
  double page_stage_seconds = 0;  //!< first event consumed -> last event consumed
  double cpu_cores = 0;           //!< process CPU time / wall time in that phase
  //! Per stage, in that phase: batches committed and the time spent processing and committing
  //! them. A stage busy nearly all the phase is what bounds the rate.
  struct StageBusy {
    std::string stage;
    uint64_t batches = 0;
    double busy_seconds = 0;
    double busy_share = 0;  //!< busy_seconds / throughput_seconds
  };
  std::vector<StageBusy> stages;
  //! Results the background PageRank (`[pagerank] interval_s`) computed by the end of the
  //! phase: it shares the cores and holds the graph in memory while it runs.
  uint64_t pagerank_computations = 0;

  // (b) latency phase at a fixed produce rate.
  double latency_rate = 0, latency_achieved_rate = 0;
  LatencySummary page_latency;   //!< produce -> p:<uri>|page|cur readable
  LatencySummary count_latency;  //!< produce -> in-link count of the event's probe link readable
  LatencySummary full_latency;   //!< produce -> both readable (event-to-query)

  // (c) memory and disk.
  uint64_t peak_rss_bytes = 0;  //!< VmHWM at the end of the throughput phase
  uint64_t rocksdb_bytes = 0;   //!< data dir after a clean stop
  uint64_t distinct_uris = 0;   //!< keys of the uri stage's state (0: not counted)
  uint64_t block_cache_bytes = 0, write_buffer_bytes = 0;
  uint64_t broker_retention_bytes = 0;  //!< upper bound of the embedded broker's log memory

  // (d) baseline: the same records read with a plain consumer.
  uint64_t raw_records = 0;  //!< per pass: the pages topic as the throughput phase left it
  int raw_passes = 0;
  double raw_records_per_s = 0, raw_mb_per_s = 0;
  double raw_ratio = 0;  //!< pages_per_s / raw_records_per_s

  double total_seconds = 0;
  int cpus = 0;
};

std::string FormatText(const BenchReport& r);
std::string FormatJson(const BenchReport& r);

//! Peak resident set size of this process (VmHWM), in bytes.
uint64_t PeakRssBytes();
//! User + system CPU seconds of this process so far.
double CpuSeconds();
//! Total size of the regular files under `dir`.
uint64_t DirectoryBytes(const std::string& dir);

}  // namespace webindex::bench
