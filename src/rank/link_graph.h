// The link graph PageRank runs on: nodes named by title or URL, each node's in-links in
// compressed sparse row form, and each node's number of unique out-links C. Built once by
// LinkGraphBuilder, then immutable and safe to read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace webindex::rank {

struct LinkGraph {
  //! The nodes' names back to back: node u's is name_bytes[name_end[u - 1], name_end[u]) (from 0
  //! for node 0). One buffer instead of a string per node: 8 bytes of overhead per node instead
  //! of 32 plus a heap block for every name longer than 15 bytes (most URLs).
  std::string name_bytes;
  std::vector<uint64_t> name_end;
  std::vector<uint64_t> in_begin;    //!< node u's in-links are in_sources[in_begin[u], in_begin[u+1])
  std::vector<uint32_t> in_sources;  //!< source nodes, ascending per target
  std::vector<uint32_t> out_degree;  //!< C(node): unique out-links, self links included

  size_t nodes() const { return name_end.size(); }
  uint64_t edges() const { return in_sources.size(); }
  std::string_view name(uint32_t u) const {
    const uint64_t begin = u == 0 ? 0 : name_end[u - 1];
    return std::string_view(name_bytes).substr(begin, name_end[u] - begin);
  }
  //! Appends a node named `name`.
  void AddName(std::string_view name) {
    name_bytes.append(name);
    name_end.push_back(name_bytes.size());
  }
  //! Bytes of the arrays, for the memory figures.
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
  //! Intern() of each name, appended to `ids`; faster than one at a time (the table's lines
  //! are fetched for all names before the first is looked up).
  void InternAll(const std::vector<std::string>& names, std::vector<uint32_t>* ids);
  //! The id of `name`, or kNoNode when it was never interned.
  uint32_t Find(std::string_view name) const;
  //! Makes `node` a page with these out-links (duplicates removed), replacing earlier ones.
  void SetOutlinks(uint32_t node, std::vector<uint32_t> targets);
  //! Makes `node` no longer a page (it stays a node only if a page links to it).
  void ClearPage(uint32_t node);
  bool IsPage(uint32_t node) const { return node < page_.size() && page_[node]; }
  size_t interned() const { return offsets_.size() - 1; }
  //! The name of an interned id.
  std::string_view name(uint32_t id) const { return Name(id); }

  //! The graph of the pages and their targets; node ids are renumbered densely in interning
  //! order. Leaves the builder empty.
  LinkGraph Build();

 private:
  std::string_view Name(uint32_t id) const {
    return std::string_view(arena_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  //! The slot that holds `name` (hash `h`), or the empty slot where it would go.
  size_t Probe(std::string_view name, uint64_t h) const;
  uint32_t Intern(std::string_view name, uint64_t h);
  void Grow();

  // Names back to back in one buffer, and an open-addressing table of (tag, id + 1) slots:
  // one cache miss per lookup where a node-based map takes three (PageRank's input is mostly
  // lookups of titles seen before).
  std::string arena_;
  std::vector<uint64_t> offsets_{0};  //!< id -> start of its name in arena_; one past the last
  std::vector<uint64_t> slots_ = std::vector<uint64_t>(1024);  //!< (hash >> 32) << 32 | (id + 1); 0 = empty
  std::vector<uint64_t> hashes_;  //!< InternAll's, reused
  std::vector<std::vector<uint32_t>> outlinks_;
  std::vector<bool> page_;
};

}  // namespace webindex::rank
