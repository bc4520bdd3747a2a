// The graph of the latest Wikipedia revisions (docs/pagerank.md, "Batch"): per title the revision
// with the greatest rev_id (among those at or before `until`, when set) gives the article's
// out-links. Fed one revision at a time in any order; owned and called by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/time.h"
#include "rank/link_graph.h"
#include "ingest/wikipedia.h"

namespace webindex::rank {

class RevisionGraph {
 public:
  explicit RevisionGraph(std::optional<Instant> until = std::nullopt) : until_(until) {}

  //! Counts `rev` when it is at or before `until` and its rev_id is not below the title's
  //! latest so far; an equal rev_id replaces the earlier one (the later record wins, as a
  //! Kafka topic replays it).
  void Add(const ingest::Revision& rev);

  uint64_t revisions() const { return revisions_; }      //!< every revision added
  uint64_t after_until() const { return after_until_; }  //!< left out by `until`
  uint64_t superseded() const { return superseded_; }    //!< older than the title's latest

  LinkGraph Build() { return builder_.Build(); }

 private:
  std::optional<Instant> until_;
  LinkGraphBuilder builder_;
  std::vector<uint64_t> latest_;  //!< node -> rev_id of its counted revision (when a page)
  std::vector<uint32_t> targets_;  //!< reused
  uint64_t revisions_ = 0, after_until_ = 0, superseded_ = 0;
};

}  // namespace webindex::rank
