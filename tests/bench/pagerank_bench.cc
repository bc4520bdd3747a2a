// PageRank's power iteration (rank/pagerank.h) on a 10M-edge graph, against Boost.Graph's
// page_rank on the same graph with the same formula (initial rank 1, damping 0.85, 10
// iterations): adjacency_list (bidirectional, pull) and compressed_sparse_row_graph (push).
// Items are edges visited (edges x iterations). Also the CSR build from pages' out-links.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/page_rank.hpp>

#include "rank/link_graph.h"
#include "rank/pagerank.h"

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
    // n = 1 makes BGL's initial rank 1/n = 1, the seed's PR_0.
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

}  // namespace
}  // namespace webindex::benchmarks
