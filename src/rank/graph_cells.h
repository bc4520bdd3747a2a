// The live link graph's cells (docs/pagerank.md, "Live"), whatever reads them: a row p:<uri> is
// a node when it has a page or an inlinks cell, each `p:<target> inlinks <source>` cell an edge,
// nodes named by their canonical URL. GraphCells takes the encoded cell keys of the p: rows in
// key order and collects nodes and edges without interning (edge sources by a hash of their
// URI); BuildLinkGraph resolves them into the LinkGraph. One reader owns a GraphCells.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/status.h"
#include "rank/link_graph.h"

namespace webindex::rank {

using UriHashSet = std::unordered_set<uint64_t>;

//! The hash that names a URI (never 0); table_graph_hash_for_testing when set.
uint64_t GraphUriHash(std::string_view uri);

//! Tests only: the hash of a URI (nullptr: the real one), to make URIs collide.
extern uint64_t (*table_graph_hash_for_testing)(std::string_view uri);

//! The nodes and edges of a run of p: cells in key order. A URI is kept only where its hash is
//! in `ambiguous` (a second read, after two node URIs turned out to share a hash).
class GraphCells {
 public:
  explicit GraphCells(const UriHashSet* ambiguous) : ambiguous_(ambiguous) {}

  //! Takes the next cell key. Returns false, with status() set, at a key that does not decode;
  //! false with status() ok at the first key past the p: rows (the run is over).
  bool Add(std::string_view key);
  //! Ends the run: the last row becomes a node when it is one. False when that fails (status()).
  bool Finish();
  //! Appends `part`, the run that follows this one in key order, and empties it. A node cut in
  //! two by the border continues this run's last node.
  void Append(GraphCells& part);

  const Status& status() const { return status_; }
  uint64_t cells() const { return cells_; }
  size_t nodes() const { return uri_hash_.size(); }

 private:
  friend Result<LinkGraph> BuildLinkGraph(GraphCells& cells, UriHashSet* collided, bool drop_unknown_sources,
                                          uint64_t* dropped);
  bool FinishRow();

  const UriHashSet* ambiguous_;
  LinkGraph names_;                                                  //!< the nodes' URLs (only name_bytes and name_end)
  std::vector<uint64_t> uri_hash_;                                   //!< per node
  std::vector<uint32_t> edge_target_;                                //!< node of each inlinks cell, in key order
  std::vector<uint64_t> edge_source_;                                //!< hash of its source URI
  std::vector<std::pair<uint32_t, std::string>> ambiguous_nodes_;    //!< (node, URI), ascending
  std::vector<std::pair<uint64_t, std::string>> ambiguous_sources_;  //!< (edge, source URI), ascending
  uint64_t cells_ = 0;
  Status status_;
  std::string row_storage_, cf_storage_, cq_storage_;  //!< for keys with escaped bytes
  std::string current_;                                //!< the row's URI
  bool started_ = false, node_ = false;
};

//! The graph of `cells` (finished), which it empties: nodes in key order, sources resolved from
//! hashes to nodes. When two node URIs outside the ambiguous set share a hash, returns an empty
//! graph with their hashes in `*collided`, for a read that treats them as ambiguous. An inlinks
//! cell whose source is no node is Corruption, or with `drop_unknown_sources` (a read that did
//! not see one state of the table) an edge left out and counted in `*dropped`.
Result<LinkGraph> BuildLinkGraph(GraphCells& cells, UriHashSet* collided, bool drop_unknown_sources = false,
                                 uint64_t* dropped = nullptr);

}  // namespace webindex::rank
