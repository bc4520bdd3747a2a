// PageRank as docs/pagerank.md defines it: PR_0 = 1, then N times
// PR(u) = 0.15 + 0.85 * sum over in-links P->u of PR(P) / C(P), no normalization, in double
// precision. Power iteration over a LinkGraph on several threads; the result does not depend on
// the thread count (each node's sum runs in the same order).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/status.h"
#include "rank/link_graph.h"

namespace webindex::rank {

constexpr double kDamping = 0.85;
constexpr int kDefaultIterations = 10;

struct PageRankOptions {
  int iterations = kDefaultIterations;
  unsigned threads = 0;  //!< 0: one per core
};

//! Scores per node of `g`, after `options.iterations` iterations.
std::vector<double> ComputePageRank(const LinkGraph& g, const PageRankOptions& options);

//! Nodes by score descending, then name ascending (byte order); the first `limit` (0: all).
std::vector<uint32_t> RankOrder(const LinkGraph& g, const std::vector<double>& scores, size_t limit = 0);

//! A score as the output spells it: 9 significant digits (%.9g).
std::string FormatScore(double score);

//! Writes `name score` lines for `order` to `out`. IoError when the write fails (a full disk,
//! a closed pipe).
Status WriteRanking(std::FILE* out, const LinkGraph& g, const std::vector<double>& scores,
                    const std::vector<uint32_t>& order);

}  // namespace webindex::rank
