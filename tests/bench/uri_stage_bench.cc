// Hot path: the uri stage's batch: decode uri-deltas, combine them per URI, one MultiGet of
// the current counters, one WriteBatch with the new counters, uri exports and the outbox, on a
// real RocksDB in a temp dir. Targets are Zipf-skewed like in-links. Items are deltas.
#include <benchmark/benchmark.h>

#include <random>

#include "bench_fixtures.h"
#include "codec/records.h"
#include "pipeline/uri_stage.h"

namespace webindex::benchmarks {
namespace {

void BM_UriStageBatch(benchmark::State& state) {
  const size_t batch = static_cast<size_t>(state.range(0));
  const auto uris = UriPool(static_cast<uint64_t>(state.range(1)));
  TempStore db;
  pipeline::TopicLayout layout;
  layout.uri_delta_partitions = layout.export_partitions = 8;
  pipeline::UriStage stage(layout);
  if (!stage.Open(db.store()).ok()) return state.SkipWithError("open");
  RunnerEmulator runner(db.store(), "uri");
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::string> values(batch);
  uint64_t seq = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& v : values) {
      const auto& uri = uris[bench::SyntheticCrawl::ZipfRank(u(rng), uris.size(), 0.9)];
      v = codec::Encode(codec::UriDelta{{"page", ++seq}, uri, {1, 0}});
    }
    const auto records = Records(layout.names.uri_deltas, values);
    state.ResumeTiming();
    if (Status st = runner.RunBatch(stage, records); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
  state.counters["exports/batch"] =
      static_cast<double>(runner.emitted()) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
BENCHMARK(BM_UriStageBatch)
    ->ArgNames({"batch", "uris"})
    ->Args({10000, 100000})
    ->Args({10000, 1000000})
    ->Args({1000, 1000000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace webindex::benchmarks
