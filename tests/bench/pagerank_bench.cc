// PageRank's power iteration (rank/pagerank.h) on a 10M-edge graph, against Boost.Graph's
// page_rank on the same graph with the same formula (initial rank 1, damping 0.85, 10
// iterations): adjacency_list (bidirectional, pull) and compressed_sparse_row_graph (push).
// Items are edges visited (edges x iterations). Also the CSR build from pages' out-links.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/page_rank.hpp>

#include <filesystem>

#include "rank/link_graph.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"
#include "rank/table_graph.h"
#include "sink/table.h"
#include "state/store.h"

namespace webindex::benchmarks {
namespace {

constexpr uint32_t kNodes = 1'000'000;
constexpr uint32_t kMeanOut = 10;  // 10M edges
constexpr int kIterations = 10;

//! Pages' out-links with a skewed in-degree (a few pages get many links), self links included.
const std::vector<std::vector<uint32_t>>& Outlinks() {
  static const auto out = [] {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<uint32_t> degree(0, 2 * kMeanOut);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<std::vector<uint32_t>> links(kNodes);
    for (auto& l : links) {
      for (uint32_t k = degree(rng); k > 0; --k) {
        l.push_back(static_cast<uint32_t>(std::pow(unit(rng), 3) * kNodes));  // density ~ x^(-2/3)
      }
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
    return links;
  }();
  return out;
}

rank::LinkGraph BuildGraph() {
  rank::LinkGraphBuilder b;
  for (uint32_t u = 0; u < kNodes; ++u) b.Intern("n" + std::to_string(u));
  const auto& out = Outlinks();
  for (uint32_t u = 0; u < kNodes; ++u) b.SetOutlinks(u, out[u]);
  return b.Build();
}

const rank::LinkGraph& Graph() {
  static const rank::LinkGraph g = BuildGraph();
  return g;
}

void BM_PageRank(benchmark::State& state) {
  const auto& g = Graph();
  for (auto _ : state) {
    auto scores = rank::ComputePageRank(g, {kIterations, static_cast<unsigned>(state.range(0))});
    benchmark::DoNotOptimize(scores.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * g.edges() * kIterations));
  state.counters["edges"] = static_cast<double>(g.edges());
  state.counters["bytes_per_edge"] = static_cast<double>(g.MemoryBytes()) / static_cast<double>(g.edges());
  state.counters["bytes_per_node"] =
      static_cast<double>(g.MemoryBytes() - g.in_sources.capacity() * sizeof(uint32_t)) / g.nodes();
}
BENCHMARK(BM_PageRank)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

//! Largest relative difference between our scores and `other` (indexed like our nodes).
template <typename Scores>
double MaxRelativeDiff(const Scores& other) {
  static const auto ours = rank::ComputePageRank(Graph(), {kIterations, 1});
  double worst = 0;
  for (size_t u = 0; u < ours.size(); ++u) worst = std::max(worst, std::abs(ours[u] - other[u]) / ours[u]);
  return worst;
}

using BglList = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using BglCsr = boost::compressed_sparse_row_graph<boost::directedS>;

template <typename G>
void RunBgl(benchmark::State& state, const G& bgl) {
  std::vector<double> ranks(boost::num_vertices(bgl)), scratch(ranks.size());
  for (auto _ : state) {
    // n = 1 makes BGL's initial rank 1/n = 1, docs/pagerank.md's PR_0.
    boost::graph::page_rank(bgl, boost::make_iterator_property_map(ranks.begin(), boost::get(boost::vertex_index, bgl)),
                            boost::graph::n_iterations(kIterations), 0.85, 1,
                            boost::make_iterator_property_map(scratch.begin(), boost::get(boost::vertex_index, bgl)));
    benchmark::DoNotOptimize(ranks.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * Graph().edges() * kIterations));
  state.counters["max_rel_diff_vs_webindex"] = MaxRelativeDiff(ranks);
}

//! The LinkGraph's edges as (source, target) pairs, node ids as in the LinkGraph.
std::vector<std::pair<uint32_t, uint32_t>> EdgePairs() {
  const auto& g = Graph();
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(g.edges());
  for (uint32_t v = 0; v < g.nodes(); ++v) {
    for (uint64_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) edges.emplace_back(g.in_sources[e], v);
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

void BM_BglPageRankAdjacencyList(benchmark::State& state) {
  const auto edges = EdgePairs();
  const BglList bgl(edges.begin(), edges.end(), Graph().nodes());
  RunBgl(state, bgl);
}
BENCHMARK(BM_BglPageRankAdjacencyList)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BglPageRankCsr(benchmark::State& state) {
  const auto edges = EdgePairs();
  const BglCsr bgl(boost::edges_are_sorted, edges.begin(), edges.end(), Graph().nodes());
  RunBgl(state, bgl);
}
BENCHMARK(BM_BglPageRankCsr)->Unit(benchmark::kMillisecond)->UseRealTime();

//! Interning 1M names and building the CSR from pages' out-links, what a snapshot costs before
//! the iterations.
void BM_BuildLinkGraph(benchmark::State& state) {
  Outlinks();
  for (auto _ : state) {
    auto g = BuildGraph();
    benchmark::DoNotOptimize(g.in_sources.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * Graph().edges()));
}
BENCHMARK(BM_BuildLinkGraph)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

//! A store whose query table holds the benchmark graph as `webindex run` leaves it: page|cur per
//! page and one inlinks cell per link (the cells ReadTableGraph reads), under URIs of a few
//! thousand domains. Built once (tens of seconds), in $TMPDIR.
state::Store& TableStore() {
  static const std::string dir = [] {
    const auto path = std::filesystem::temp_directory_path() / "webindex-pagerank-bench";
    std::filesystem::remove_all(path);
    return path.string();
  }();
  static std::unique_ptr<state::Store> store = [] {
    state::StoreOptions options;
    options.sync_commits = false;
    auto opened = state::Store::Open(dir, options);
    if (!opened.ok()) std::abort();
    auto uri = [](uint32_t u) { return "com.site" + std::to_string(u % 5000) + ">>o>/p" + std::to_string(u); };
    const auto& out = Outlinks();
    std::vector<std::vector<uint32_t>> in(kNodes);
    for (uint32_t s = 0; s < kNodes; ++s) {
      for (uint32_t t : out[s]) in[t].push_back(s);
    }
    auto wb = std::make_unique<state::WriteBatch>(**opened);
    for (uint32_t u = 0; u < kNodes; ++u) {
      const std::string row = sink::PageRow(uri(u));
      wb->Put(state::Family::kTable, sink::EncodeCellKey(row, "page", "cur"), "{}");
      if (!in[u].empty()) wb->Put(state::Family::kTable, sink::EncodeCellKey(row, "page", "incount"), "1");
      for (uint32_t s : in[u]) wb->Put(state::Family::kTable, sink::EncodeCellKey(row, "inlinks", uri(s)), "anchor");
      if (wb->Count() > 200000) {
        if (!(*opened)->Write(*wb).ok()) std::abort();
        wb = std::make_unique<state::WriteBatch>(**opened);
      }
    }
    if (!(*opened)->Write(*wb).ok() || !(*opened)->Flush().ok()) std::abort();
    return std::move(opened).value();
  }();
  return *store;
}

//! What `webindex run` does every pagerank.interval_s: snapshot -> graph -> 10 iterations ->
//! stored result. Counters split the time.
void BM_TableSnapshotToStoredResult(benchmark::State& state) {
  auto& store = TableStore();
  double read_s = 0, scan_s = 0, rank_s = 0, store_s = 0;
  uint64_t edges = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    rank::TableGraphStats stats;
    auto g = rank::ReadTableGraph(store, nullptr, &stats);
    if (!g.ok()) {
      state.SkipWithError(g.status().ToString().c_str());
      break;
    }
    auto t1 = std::chrono::steady_clock::now();
    const auto scores = rank::ComputePageRank(*g, {kIterations, 0});
    auto t2 = std::chrono::steady_clock::now();
    auto stored = rank::StoreRankResult(store, *g, scores, {});
    if (!stored.ok()) {
      state.SkipWithError(stored.status().ToString().c_str());
      break;
    }
    auto t3 = std::chrono::steady_clock::now();
    read_s += std::chrono::duration<double>(t1 - t0).count();
    scan_s += stats.read_seconds;
    rank_s += std::chrono::duration<double>(t2 - t1).count();
    store_s += std::chrono::duration<double>(t3 - t2).count();
    edges = g->edges();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["edges"] = static_cast<double>(edges);
  state.counters["read_s"] = read_s / n;
  state.counters["scan_s"] = scan_s / n;  // of read_s: the cells, on all readers
  state.counters["iterate_s"] = rank_s / n;
  state.counters["store_s"] = store_s / n;
}
BENCHMARK(BM_TableSnapshotToStoredResult)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
}  // namespace webindex::benchmarks
