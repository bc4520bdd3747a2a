// The external sort of bulk builds (state/external_sort.h): 10M records of 40-byte keys (a
// shared 16-byte prefix, as table rows have, then 24 random bytes) and 8-byte values, added,
// sorted and read back in key order. Budgets of 64 MiB (about ten runs spilled and merged) and
// 1 GiB (all in memory: the cost of the sort alone). Items are records; peak_rss_mb is the
// process's, so run one budget per process to read it (--benchmark_filter=.../67108864).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "state/external_sort.h"

namespace webindex::benchmarks {
namespace {

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

void BM_ExternalSort(benchmark::State& state) {
  const auto records = static_cast<uint64_t>(state.range(0));
  const auto budget = static_cast<size_t>(state.range(1));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("external-sort-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  state::ExternalSortStats stats;
  for (auto _ : state) {
    state::ExternalSortOptions options;
    options.budget_bytes = budget;
    options.temp_dir = dir.string();
    state::ExternalSorter sorter(options);
    uint64_t rng = 42;
    std::string key = "p:com.example>.w";  // 16 bytes shared
    key.resize(40);
    char value[8];
    for (uint64_t i = 0; i < records; ++i) {
      const uint64_t r[3] = {SplitMix(rng), SplitMix(rng), SplitMix(rng)};
      std::memcpy(key.data() + 16, r, 24);
      std::memcpy(value, &i, sizeof(value));
      if (!sorter.Add(key, std::string_view(value, sizeof(value))).ok()) state.SkipWithError("add failed");
    }
    auto sorted = sorter.Finish();
    if (!sorted.ok()) {
      state.SkipWithError(sorted.status().ToString().c_str());
      break;
    }
    uint64_t read = 0, check = 0;
    for (; (*sorted)->Valid(); (*sorted)->Next()) {
      ++read;
      check += static_cast<unsigned char>((*sorted)->key()[39]);
    }
    benchmark::DoNotOptimize(check);
    if (read != records || !(*sorted)->status().ok()) state.SkipWithError("records lost");
    stats = (*sorted)->stats();
  }
  std::filesystem::remove_all(dir);
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * records));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stats.bytes));
  state.counters["runs"] = static_cast<double>(stats.runs);
  state.counters["spilled_mb"] = static_cast<double>(stats.spilled_bytes) / (1 << 20);
  state.counters["peak_buffered_mb"] = static_cast<double>(stats.peak_buffered_bytes) / (1 << 20);
  state.counters["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024;
}
BENCHMARK(BM_ExternalSort)
    ->Args({10'000'000, int64_t{64} << 20})
    ->Args({10'000'000, int64_t{1} << 30})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace webindex::benchmarks
