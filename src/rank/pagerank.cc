#include "rank/pagerank.h"

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <thread>

namespace webindex::rank {
namespace {

//! Splits the nodes into `parts` ranges of about equal work (in-links plus one per node).
std::vector<uint32_t> SplitByWork(const LinkGraph& g, unsigned parts) {
  const size_t n = g.nodes();
  const uint64_t total = g.edges() + n;
  std::vector<uint32_t> bounds{0};
  uint32_t u = 0;
  for (unsigned p = 1; p < parts; ++p) {
    const uint64_t goal = total * p / parts;
    while (u < n && g.in_begin[u] + u < goal) ++u;
    bounds.push_back(u);
  }
  bounds.push_back(static_cast<uint32_t>(n));
  return bounds;
}

}  // namespace

std::vector<double> ComputePageRank(const LinkGraph& g, const PageRankOptions& options) {
  const size_t n = g.nodes();
  std::vector<double> rank(n, 1.0);
  if (n == 0 || options.iterations <= 0) return rank;
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n / 1024)));
  const std::vector<uint32_t> bounds = SplitByWork(g, threads);
  std::vector<double> next(n), contrib(n);
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));
  const double base = 1.0 - kDamping;
  auto work = [&](unsigned t) {
    const uint32_t lo = bounds[t], hi = bounds[t + 1];
    const uint32_t* sources = g.in_sources.data();
    for (int k = 0; k < options.iterations; ++k) {
      std::vector<double>& from = k % 2 == 0 ? rank : next;
      std::vector<double>& to = k % 2 == 0 ? next : rank;
      for (uint32_t u = lo; u < hi; ++u) {
        contrib[u] = g.out_degree[u] ? from[u] / g.out_degree[u] : 0.0;
      }
      sync.arrive_and_wait();
      for (uint32_t u = lo; u < hi; ++u) {
        double sum = 0;
        for (uint64_t e = g.in_begin[u], end = g.in_begin[u + 1]; e < end; ++e) sum += contrib[sources[e]];
        to[u] = base + kDamping * sum;
      }
      sync.arrive_and_wait();
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  pool.clear();
  if (options.iterations % 2 == 1) rank.swap(next);
  return rank;
}

std::vector<uint32_t> RankOrder(const LinkGraph& g, const std::vector<double>& scores, size_t limit) {
  std::vector<uint32_t> order(g.nodes());
  std::iota(order.begin(), order.end(), 0u);
  auto before = [&](uint32_t a, uint32_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    return g.name(a) < g.name(b);
  };
  if (limit > 0 && limit < order.size()) {
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit), order.end(), before);
    order.resize(limit);
  } else {
    std::sort(order.begin(), order.end(), before);
  }
  return order;
}

std::string FormatScore(double score) {
  char buf[32];
  const int len = std::snprintf(buf, sizeof buf, "%.9g", score);
  return std::string(buf, static_cast<size_t>(len));
}

Status WriteRanking(std::FILE* out, const LinkGraph& g, const std::vector<double>& scores,
                    const std::vector<uint32_t>& order) {
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&]() -> Status {
    if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) {
      return Status::IoError(std::string("cannot write the ranking: ") + std::strerror(errno));
    }
    buf.clear();
    return Status::Ok();
  };
  for (uint32_t u : order) {
    buf.append(g.name(u)).push_back(' ');
    buf.append(FormatScore(scores[u])).push_back('\n');
    if (buf.size() >= (1 << 20) - 4096) RETURN_IF_ERROR(flush());
  }
  RETURN_IF_ERROR(flush());
  if (std::fflush(out) != 0) return Status::IoError(std::string("cannot write the ranking: ") + std::strerror(errno));
  return Status::Ok();
}

}  // namespace webindex::rank
