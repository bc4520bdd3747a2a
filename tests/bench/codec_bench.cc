// Hot path: decoding crawl events (the page stage's first step) and the JSON records the
// uri stage and the sink decode. Items are records; links/s counts the links they carry.
#include <benchmark/benchmark.h>

#include "bench_fixtures.h"
#include "codec/event.h"
#include "codec/records.h"

namespace webindex::benchmarks {
namespace {

constexpr uint64_t kEvents = 4096;

void BM_DecodeCrawlEvent(benchmark::State& state) {
  const auto events = Events(0, kEvents);
  codec::EventDecoder decoder;
  size_t i = 0, bytes = 0, links = 0;
  for (auto _ : state) {
    const std::string& json = events[i++ % events.size()];
    auto ev = decoder.Decode(json);
    if (!ev.ok()) {
      state.SkipWithError(ev.status().ToString().c_str());
      break;
    }
    bytes += json.size();
    links += ev->page.links.size();
    benchmark::DoNotOptimize(ev);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["links/s"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeCrawlEvent);

void BM_EncodeDecodeUriDelta(benchmark::State& state) {
  const auto uris = UriPool(4096);
  codec::RecordDecoder decoder;
  uint64_t seq = 0;
  for (auto _ : state) {
    codec::UriDelta d{{"page", ++seq}, uris[seq % uris.size()], {1, 0}};
    auto back = decoder.DecodeUriDelta(codec::Encode(d));
    benchmark::DoNotOptimize(back);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeDecodeUriDelta);

void BM_DecodePageExport(benchmark::State& state) {
  std::vector<std::string> exports;
  for (auto& page : Pages(0, 1024)) {
    codec::ExportRecord e{codec::ExportRecord::Type::kPage, page.uri, 1, std::move(page), {}, 0};
    exports.push_back(codec::Encode(e));
  }
  codec::RecordDecoder decoder;
  size_t i = 0;
  for (auto _ : state) {
    auto e = decoder.DecodeExport(exports[i++ % exports.size()]);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodePageExport);

void BM_EncodePageExport(benchmark::State& state) {
  const auto pages = Pages(0, 1024);
  size_t i = 0;
  for (auto _ : state) {
    const model::Page& page = pages[i++ % pages.size()];
    codec::ExportRecord e{codec::ExportRecord::Type::kPage, page.uri, 1, page, {}, 0};
    benchmark::DoNotOptimize(codec::Encode(e));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodePageExport);

}  // namespace
}  // namespace webindex::benchmarks
