// The live link graph as docs/pagerank.md §6 defines it, read from one consistent snapshot of
// the query table: nodes = every URI that exists (a current page or a target of one), edges =
// each current page's unique out-links (the `p:<target> inlinks <source>` cells), nodes named by
// their canonical URL. Any thread; reads only.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/status.h"
#include "rank/link_graph.h"
#include "state/store.h"

namespace webindex::rank {

struct TableGraphStats {
  uint64_t cells = 0;  //!< p: cells read
  double seconds = 0;  //!< reading and building
};

//! Builds the graph from `snapshot` of `store`'s table (nullptr: a snapshot of now).
//! Corruption when a cell key does not decode or a URI has no URL form; Aborted soon after
//! `*cancel` turns true (a reader that is stopping need not finish a table of millions of rows).
Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot,
                                 TableGraphStats* stats = nullptr, const std::atomic<bool>* cancel = nullptr);

}  // namespace webindex::rank
