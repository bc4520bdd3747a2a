#include "rank/link_graph.h"

#include <algorithm>
#include <functional>

namespace webindex::rank {

size_t LinkGraph::MemoryBytes() const {
  return name_bytes.capacity() + name_end.capacity() * sizeof(uint64_t) + in_begin.capacity() * sizeof(uint64_t) +
         in_sources.capacity() * sizeof(uint32_t) + out_degree.capacity() * sizeof(uint32_t);
}

namespace {

uint64_t HashOf(std::string_view name) { return std::hash<std::string_view>()(name); }
uint64_t Tag(uint64_t h) { return h & 0xffffffff00000000ull; }

}  // namespace

size_t LinkGraphBuilder::Probe(std::string_view name, uint64_t h) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot & 0xffffffff00000000ull) == Tag(h) && Name(static_cast<uint32_t>(slot) - 1) == name) return i;
  }
}

void LinkGraphBuilder::Grow() {
  std::vector<uint64_t> old(slots_.size() * 2);
  old.swap(slots_);
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    const auto id = static_cast<uint32_t>(slot) - 1;
    slots_[Probe(Name(id), HashOf(Name(id)))] = slot;
  }
}

uint32_t LinkGraphBuilder::Intern(std::string_view name) { return Intern(name, HashOf(name)); }

void LinkGraphBuilder::InternAll(const std::vector<std::string>& names, std::vector<uint32_t>* ids) {
  hashes_.clear();
  for (const auto& name : names) {
    hashes_.push_back(HashOf(name));
    __builtin_prefetch(&slots_[hashes_.back() & (slots_.size() - 1)]);
  }
  for (size_t k = 0; k < names.size(); ++k) ids->push_back(Intern(names[k], hashes_[k]));
}

uint32_t LinkGraphBuilder::Intern(std::string_view name, uint64_t h) {
  size_t i = Probe(name, h);
  if (slots_[i] != 0) return static_cast<uint32_t>(slots_[i]) - 1;
  const auto id = static_cast<uint32_t>(interned());
  arena_.append(name);
  offsets_.push_back(arena_.size());
  slots_[i] = Tag(h) | (uint64_t{id} + 1);
  if (2 * interned() > slots_.size()) Grow();  // load factor <= 1/2
  return id;
}

uint32_t LinkGraphBuilder::Find(std::string_view name) const {
  const size_t i = Probe(name, HashOf(name));
  return slots_[i] == 0 ? kNoNode : static_cast<uint32_t>(slots_[i]) - 1;
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
  const size_t n = interned();
  outlinks_.resize(n);
  page_.resize(n);
  std::vector<uint32_t> dense(n, kNoNode);
  std::vector<bool> in_graph(page_.begin(), page_.end());
  for (size_t p = 0; p < n; ++p) {
    if (!page_[p]) continue;
    for (uint32_t t : outlinks_[p]) in_graph[t] = true;
  }
  size_t m = 0;
  for (size_t u = 0; u < n; ++u) {
    if (in_graph[u]) dense[u] = static_cast<uint32_t>(m++);
  }
  LinkGraph g;
  if (m == n) {  // every name is a node's, in the same order: the arena is the graph's
    g.name_bytes = std::move(arena_);
    g.name_end.assign(offsets_.begin() + 1, offsets_.end());
  } else {
    g.name_end.reserve(m);
    for (size_t u = 0; u < n; ++u) {
      if (in_graph[u]) g.AddName(Name(static_cast<uint32_t>(u)));
    }
  }
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
