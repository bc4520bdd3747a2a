#include "bench/report.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace webindex::bench {
namespace {

double Percentile(const std::vector<double>& sorted, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double Mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

std::string LatencyLine(const char* what, const LatencySummary& l) {
  return fmt::format("  {:<28} p50 {:8.1f} ms   p99 {:8.1f} ms   max {:8.1f} ms   ({} samples)\n", what, l.p50_ms,
                     l.p99_ms, l.max_ms, l.samples);
}

std::string LatencyJson(const LatencySummary& l) {
  return fmt::format(R"({{"samples":{},"p50_ms":{:.3f},"p99_ms":{:.3f},"max_ms":{:.3f}}})", l.samples, l.p50_ms,
                     l.p99_ms, l.max_ms);
}

}  // namespace

LatencySummary Summarize(std::vector<double>* ms) {
  LatencySummary s;
  s.samples = ms->size();
  if (ms->empty()) return s;
  std::sort(ms->begin(), ms->end());
  s.p50_ms = Percentile(*ms, 0.50);
  s.p99_ms = Percentile(*ms, 0.99);
  s.max_ms = ms->back();
  return s;
}

std::string FormatText(const BenchReport& r) {
  std::string out;
  out += fmt::format("webindex bench: {} + {} pages, {} links/page, {} domains, URI space {}, zipf {}, seed {}\n",
                     r.pages, r.latency_pages, r.links_per_page, r.domains, r.uri_space, r.zipf, r.seed);
  out += fmt::format("  embedded broker, {} partitions per topic, {} CPUs, avg event {:.0f} bytes\n", r.partitions,
                     r.cpus, r.avg_event_bytes);
  out += fmt::format("integrity: produced {}, acknowledged {}, consumed {}, invalid {}, lost {} (throttled {}x)\n",
                     r.produced, r.acked, r.consumed, r.invalid, r.lost, r.throttled_waits);
  out += fmt::format(
      "(a) throughput: {:.0f} pages/s, {:.0f} links/s over {:.2f} s "
      "(page stage done after {:.2f} s; {:.2f} cores busy)\n",
      r.pages_per_s, r.links_per_s, r.throughput_seconds, r.page_stage_seconds, r.cpu_cores);
  if (!r.stages.empty()) {
    out += "    stages busy:";
    for (const auto& st : r.stages) {
      out += fmt::format(" {} {:.0f}% ({} batches)", st.stage, 100 * st.busy_share, st.batches);
      if (&st != &r.stages.back()) out += ",";
    }
    out += "\n";
  }
  if (r.pagerank_computations > 0) {
    out += fmt::format("    the background PageRank computed {} results meanwhile (on the same cores; `[pagerank] "
                       "interval_s = 0` turns it off)\n",
                       r.pagerank_computations);
  }
  out += fmt::format("(b) event-to-query latency at {:.0f} events/s (achieved {:.0f}):\n", r.latency_rate,
                     r.latency_achieved_rate);
  out += LatencyLine("page row (p:<uri>|page|cur)", r.page_latency);
  out += LatencyLine("link count (incount)", r.count_latency);
  out += LatencyLine("both (event-to-query)", r.full_latency);
  out += fmt::format(
      "(c) memory: peak RSS {:.1f} MiB in the throughput phase (includes the broker's log, at most {:.0f} MiB); "
      "RocksDB {:.1f} MiB on disk; {} distinct URIs; block cache {:.0f} MiB, write buffer {:.0f} MiB\n",
      Mib(r.peak_rss_bytes), Mib(r.broker_retention_bytes), Mib(r.rocksdb_bytes), r.distinct_uris,
      Mib(r.block_cache_bytes), Mib(r.write_buffer_bytes));
  out += fmt::format(
      "(d) raw consume of the throughput phase's records: {:.0f} records/s, {:.1f} MiB/s ({} records x {} passes); "
      "pipeline reaches {:.1f}% of it\n",
      r.raw_records_per_s, r.raw_mb_per_s, r.raw_records, r.raw_passes, 100 * r.raw_ratio);
  out += fmt::format("total {:.1f} s\n", r.total_seconds);
  return out;
}

std::string FormatJson(const BenchReport& r) {
  std::string out = "{";
  out += fmt::format(R"("input":{{"pages":{},"latency_pages":{},"links":{},"links_per_page":{},"domains":{},)"
                     R"("uri_space":{},"zipf":{},"seed":{},"partitions":{},"avg_event_bytes":{:.1f},"cpus":{}}},)",
                     r.pages, r.latency_pages, r.links, r.links_per_page, r.domains, r.uri_space, r.zipf, r.seed,
                     r.partitions, r.avg_event_bytes, r.cpus);
  out += fmt::format(R"("integrity":{{"produced":{},"acked":{},"consumed":{},"invalid":{},"lost":{},)"
                     R"("throttled_waits":{}}},)",
                     r.produced, r.acked, r.consumed, r.invalid, r.lost, r.throttled_waits);
  std::string stages;
  for (const auto& st : r.stages) {
    if (!stages.empty()) stages += ",";
    stages += fmt::format(R"({{"stage":"{}","batches":{},"busy_seconds":{:.3f},"busy_share":{:.3f}}})", st.stage,
                          st.batches, st.busy_seconds, st.busy_share);
  }
  out += fmt::format(R"("throughput":{{"seconds":{:.3f},"pages_per_s":{:.1f},"links_per_s":{:.1f},)"
                     R"("page_stage_seconds":{:.3f},"cpu_cores":{:.2f},"stages":[{}],"pagerank_computations":{}}},)",
                     r.throughput_seconds, r.pages_per_s, r.links_per_s, r.page_stage_seconds, r.cpu_cores, stages,
                     r.pagerank_computations);
  out += fmt::format(R"("latency":{{"rate":{:.1f},"achieved_rate":{:.1f},"page":{},"count":{},"full":{}}},)",
                     r.latency_rate, r.latency_achieved_rate, LatencyJson(r.page_latency), LatencyJson(r.count_latency),
                     LatencyJson(r.full_latency));
  out += fmt::format(R"("memory":{{"peak_rss_bytes":{},"rocksdb_bytes":{},"distinct_uris":{},)"
                     R"("block_cache_bytes":{},"write_buffer_bytes":{},"broker_retention_bytes":{}}},)",
                     r.peak_rss_bytes, r.rocksdb_bytes, r.distinct_uris, r.block_cache_bytes, r.write_buffer_bytes,
                     r.broker_retention_bytes);
  out += fmt::format(R"("raw_consume":{{"records":{},"passes":{},"records_per_s":{:.1f},"mb_per_s":{:.2f},)"
                     R"("pipeline_ratio":{:.4f}}},)",
                     r.raw_records, r.raw_passes, r.raw_records_per_s, r.raw_mb_per_s, r.raw_ratio);
  out += fmt::format(R"("total_seconds":{:.3f}}})", r.total_seconds);
  return out;
}

uint64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

double CpuSeconds() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

uint64_t DirectoryBytes(const std::string& dir) {
  std::error_code ec;
  uint64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace webindex::bench
