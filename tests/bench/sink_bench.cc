// Hot path: the sink's batch: decode export records, keep the newest per key, one MultiGet of
// the applied seqs, write the table rows (page|cur and inlinks from page exports, incount,
// t: and d: rank rows from uri exports), one WriteBatch, on a real RocksDB in a temp dir. The
// stream mixes them like the real one: per page, one page export and one uri export per link.
#include <benchmark/benchmark.h>

#include "bench_fixtures.h"
#include "codec/records.h"
#include "sink/sink_stage.h"

namespace webindex::benchmarks {
namespace {

using Type = codec::ExportRecord::Type;

//! About `n` export records for the pages from `*next_page` on; seqs only grow per key.
std::vector<std::string> Exports(size_t n, uint64_t* next_page, uint64_t* seq) {
  std::vector<std::string> out;
  while (out.size() < n) {
    for (auto& page : Pages(*next_page, 64)) {
      for (const auto& link : page.links) {
        codec::ExportRecord e{Type::kUri, link.uri, ++*seq, std::nullopt, {static_cast<int64_t>(*seq % 97 + 1), 0}, 0};
        out.push_back(codec::Encode(e));
      }
      codec::ExportRecord e{Type::kPage, page.uri, 1, std::move(page), {}, 0};
      out.push_back(codec::Encode(e));
    }
    *next_page += 64;
  }
  return out;
}

void BM_SinkBatch(benchmark::State& state) {
  const size_t batch = static_cast<size_t>(state.range(0));
  TempStore db;
  pipeline::TopicLayout layout;
  sink::SinkStage stage(layout);
  RunnerEmulator runner(db.store(), "sink");
  uint64_t next_page = 0, seq = 0, records = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto values = Exports(batch, &next_page, &seq);
    const auto in = Records(layout.names.exports, values);
    records += in.size();
    state.ResumeTiming();
    if (Status st = runner.RunBatch(stage, in); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.counters["pages/s"] = benchmark::Counter(static_cast<double>(next_page), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SinkBatch)->ArgNames({"batch"})->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace webindex::benchmarks
