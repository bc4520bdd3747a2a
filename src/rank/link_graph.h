// The link graph PageRank runs on: nodes named by title or URL, each node's in-links in
// compressed sparse row form, and each node's number of unique out-links C. Built once by
// LinkGraphBuilder, then immutable and safe to read from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace webindex::rank {

struct LinkGraph {
  std::vector<std::string> names;    //!< node -> name
  std::vector<uint64_t> in_begin;    //!< node u's in-links are in_sources[in_begin[u], in_begin[u+1])
  std::vector<uint32_t> in_sources;  //!< source nodes, ascending per target
  std::vector<uint32_t> out_degree;  //!< C(node): unique out-links, self links included

  size_t nodes() const { return names.size(); }
  uint64_t edges() const { return in_sources.size(); }
  //! Bytes of the arrays (names' heap included), for the memory figures.
  size_t MemoryBytes() const;
};

//! Collects nodes by name and pages' out-links in any order, then builds the LinkGraph. A node
//! is in the graph when it is a page (has SetOutlinks, even empty) or a page links to it.
//! Owned and called by one thread.
class LinkGraphBuilder {
 public:
  static constexpr uint32_t kNoNode = UINT32_MAX;

  //! The id of `name`, a new one the first time.
  uint32_t Intern(std::string_view name);
  //! The id of `name`, or kNoNode when it was never interned.
  uint32_t Find(std::string_view name) const;
  //! Makes `node` a page with these out-links (duplicates removed), replacing earlier ones.
  void SetOutlinks(uint32_t node, std::vector<uint32_t> targets);
  //! Makes `node` no longer a page (it stays a node only if a page links to it).
  void ClearPage(uint32_t node);
  bool IsPage(uint32_t node) const { return node < page_.size() && page_[node]; }
  size_t interned() const { return names_.size(); }

  //! The graph of the pages and their targets; node ids are renumbered densely in interning
  //! order. Leaves the builder empty.
  LinkGraph Build();

 private:
  std::deque<std::string> names_;  //!< stable storage for the views in ids_
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<std::vector<uint32_t>> outlinks_;
  std::vector<bool> page_;
};

}  // namespace webindex::rank
