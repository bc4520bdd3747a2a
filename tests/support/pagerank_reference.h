// An independent PageRank for tests (docs/pagerank.md, "The formula"): maps of names, no CSR, no threads,
// a different summation order than rank::ComputePageRank.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace webindex::testing {

//! Scores of every page and every name a page links to. `pages`: page -> its out-links
//! (duplicates count once, self links count).
std::map<std::string, double> ReferencePageRank(const std::map<std::string, std::vector<std::string>>& pages,
                                                int iterations);

//! Parses `name score` lines (the output of `webindex pagerank`).
std::map<std::string, double> ParseRanking(const std::string& text);

}  // namespace webindex::testing
