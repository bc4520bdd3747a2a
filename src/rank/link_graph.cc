#include "rank/link_graph.h"

#include <algorithm>

namespace webindex::rank {

size_t LinkGraph::MemoryBytes() const {
  size_t bytes = in_begin.capacity() * sizeof(uint64_t) + in_sources.capacity() * sizeof(uint32_t) +
                 out_degree.capacity() * sizeof(uint32_t) + names.capacity() * sizeof(std::string);
  for (const auto& n : names) {
    if (n.capacity() > 15) bytes += n.capacity() + 1;  // beyond libstdc++'s in-place buffer
  }
  return bytes;
}

uint32_t LinkGraphBuilder::Intern(std::string_view name) {
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(names_.back(), id);
  return id;
}

uint32_t LinkGraphBuilder::Find(std::string_view name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? kNoNode : it->second;
}

void LinkGraphBuilder::SetOutlinks(uint32_t node, std::vector<uint32_t> targets) {
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  targets.shrink_to_fit();
  if (node >= outlinks_.size()) {
    outlinks_.resize(node + 1);
    page_.resize(node + 1);
  }
  outlinks_[node] = std::move(targets);
  page_[node] = true;
}

void LinkGraphBuilder::ClearPage(uint32_t node) {
  if (node >= page_.size()) return;
  page_[node] = false;
  outlinks_[node] = {};
}

LinkGraph LinkGraphBuilder::Build() {
  const size_t n = names_.size();
  outlinks_.resize(n);
  page_.resize(n);
  std::vector<uint32_t> dense(n, kNoNode);
  std::vector<bool> in_graph(page_.begin(), page_.end());
  for (size_t p = 0; p < n; ++p) {
    if (!page_[p]) continue;
    for (uint32_t t : outlinks_[p]) in_graph[t] = true;
  }
  LinkGraph g;
  for (size_t u = 0; u < n; ++u) {
    if (!in_graph[u]) continue;
    dense[u] = static_cast<uint32_t>(g.names.size());
    g.names.push_back(std::move(names_[u]));
  }
  const size_t m = g.names.size();
  g.out_degree.assign(m, 0);
  g.in_begin.assign(m + 1, 0);
  for (size_t p = 0; p < n; ++p) {
    if (!page_[p]) continue;
    g.out_degree[dense[p]] = static_cast<uint32_t>(outlinks_[p].size());
    for (uint32_t t : outlinks_[p]) ++g.in_begin[dense[t] + 1];
  }
  for (size_t u = 0; u < m; ++u) g.in_begin[u + 1] += g.in_begin[u];
  g.in_sources.resize(g.in_begin[m]);
  std::vector<uint64_t> fill(g.in_begin.begin(), g.in_begin.end() - 1);
  for (size_t p = 0; p < n; ++p) {  // ascending sources, so each target's list is sorted
    if (!page_[p]) continue;
    for (uint32_t t : outlinks_[p]) g.in_sources[fill[dense[t]]++] = dense[p];
    std::vector<uint32_t>().swap(outlinks_[p]);
  }
  *this = LinkGraphBuilder();
  return g;
}

}  // namespace webindex::rank
