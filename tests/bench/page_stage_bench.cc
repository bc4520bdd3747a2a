// Hot path: the page stage's batch: decode crawl events (URL parsing and link resolution
// included), one MultiGet of the page states, diff the links, emit page exports and combined
// uri-deltas, one WriteBatch, on a real RocksDB in a temp dir. Items are events (new pages).
#include <benchmark/benchmark.h>

#include "bench_fixtures.h"
#include "pipeline/page_stage.h"

namespace webindex::benchmarks {
namespace {

void BM_PageStageBatch(benchmark::State& state) {
  const size_t batch = static_cast<size_t>(state.range(0));
  TempStore db;
  pipeline::TopicLayout layout;
  layout.uri_delta_partitions = layout.export_partitions = 8;
  pipeline::PageStage stage(layout, codec::DecodeLimits{});
  RunnerEmulator runner(db.store(), "page");
  uint64_t next_page = 0, links = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto values = Events(next_page, batch);
    next_page += batch;
    const auto records = Records(layout.names.pages, values);
    state.ResumeTiming();
    if (Status st = runner.RunBatch(stage, records); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  links = runner.metrics().uri_deltas;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
  state.counters["uri_deltas/s"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PageStageBatch)->ArgNames({"batch"})->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace webindex::benchmarks
