#include "pagerank_reference.h"

#include <set>
#include <sstream>

namespace webindex::testing {

std::map<std::string, double> ReferencePageRank(const std::map<std::string, std::vector<std::string>>& pages,
                                                int iterations) {
  std::map<std::string, std::set<std::string>> out;
  std::map<std::string, double> pr;
  for (const auto& [page, links] : pages) {
    pr[page] = 1.0;
    out[page].insert(links.begin(), links.end());
    for (const auto& l : links) pr[l] = 1.0;
  }
  for (int k = 0; k < iterations; ++k) {
    std::map<std::string, double> next;
    for (const auto& [node, _] : pr) next[node] = 0.15;
    for (const auto& [p, targets] : out) {
      for (const auto& t : targets) next[t] += 0.85 * pr[p] / static_cast<double>(targets.size());
    }
    pr = std::move(next);
  }
  return pr;
}

std::map<std::string, double> ParseRanking(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

}  // namespace webindex::testing
