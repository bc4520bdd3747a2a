// Hot path: reading the query table. A table of 100k URIs with Zipf-skewed in-link counts is
// built once through sink::TableWriter; then full prefix scans (query::ScanRows, items are
// cells) and top-N queries (query::TopUris / DomainUris, items are rows returned).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <random>

#include "bench_fixtures.h"
#include "model/url.h"
#include "query/table_reader.h"
#include "sink/table.h"

namespace webindex::benchmarks {
namespace {

constexpr uint64_t kUris = 100000;

//! The table, built on first use and shared by every benchmark of this binary.
struct Table {
  TempStore db;
  std::vector<std::string> domains;

  Table() {
    const auto uris = UriPool(kUris);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    std::map<std::string, int64_t> pages;
    for (size_t i = 0; i < uris.size();) {
      state::WriteBatch wb(db.store());
      sink::TableWriter table(db.store(), wb);
      for (size_t end = std::min(uris.size(), i + 10000); i < end; ++i) {
        // Zipf in-degree: count ~ N / rank.
        const auto rank = bench::SyntheticCrawl::ZipfRank(u(rng), kUris, 0.9);
        const int64_t count = static_cast<int64_t>(kUris / (rank + 1)) + 1;
        Check(table.SetUriInfo(uris[i], {count, 0}));
        ++pages[std::string(model::DomainOfUri(uris[i]))];
      }
      Check(db.store().Write(wb));
    }
    state::WriteBatch wb(db.store());
    sink::TableWriter table(db.store(), wb);
    for (const auto& [domain, n] : pages) {
      table.SetDomainCount(domain, n);
      domains.push_back(domain);
    }
    Check(db.store().Write(wb));
    Check(db.store().Flush());
  }
  static void Check(const Status& st) {
    if (!st.ok()) {
      std::fprintf(stderr, "building the table: %s\n", st.ToString().c_str());
      abort();
    }
  }
  static Table& Get() {
    static Table table;
    return table;
  }
};

void BM_ScanRows(benchmark::State& state, const char* prefix) {
  auto& store = Table::Get().db.store();
  uint64_t cells = 0;
  for (auto _ : state) {
    Status st = query::ScanRows(store, prefix, [&](const sink::Cell& c) {
      benchmark::DoNotOptimize(c.value.data());
      ++cells;
      return true;
    });
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(cells));
}
BENCHMARK_CAPTURE(BM_ScanRows, total_rows, "t:")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScanRows, page_rows, "p:")->Unit(benchmark::kMillisecond);

void BM_TopUris(benchmark::State& state) {
  auto& store = Table::Get().db.store();
  uint64_t rows = 0;
  for (auto _ : state) {
    auto top = query::TopUris(store, static_cast<size_t>(state.range(0)));
    if (!top.ok()) {
      state.SkipWithError(top.status().ToString().c_str());
      break;
    }
    rows += top->size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["queries/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TopUris)->ArgNames({"limit"})->Arg(10)->Arg(100)->Arg(1000);

void BM_DomainUris(benchmark::State& state) {
  auto& table = Table::Get();
  uint64_t rows = 0;
  size_t i = 0;
  for (auto _ : state) {
    uint64_t pagecount = 0;
    auto top = query::DomainUris(table.db.store(), table.domains[i++ % table.domains.size()], 10, &pagecount);
    if (!top.ok()) {
      state.SkipWithError(top.status().ToString().c_str());
      break;
    }
    rows += top->size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["queries/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DomainUris);

}  // namespace
}  // namespace webindex::benchmarks
