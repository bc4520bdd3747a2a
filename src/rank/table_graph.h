// The live link graph as docs/pagerank.md ("Live") defines it, read from one consistent snapshot of
// the query table: nodes = every URI that exists (a current page or a target of one), edges =
// each current page's unique out-links (the `p:<target> inlinks <source>` cells), nodes named by
// their canonical URL. Any thread; reads only, in key ranges on up to one thread per core.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "rank/graph_cells.h"
#include "rank/link_graph.h"
#include "state/store.h"

namespace webindex::rank {

struct TableGraphStats {
  uint64_t cells = 0;       //!< p: cells read
  int readers = 0;          //!< threads that read key ranges of the p: rows
  double read_seconds = 0;  //!< reading the cells
  double seconds = 0;       //!< reading and building
  int attempts = 0;         //!< reads: 2 when node URIs shared a hash (the second tells them apart)
};

//! Builds the graph from `snapshot` of `store`'s table (nullptr: a snapshot of now), reading key
//! ranges of the p: rows on up to `readers` threads (0: one per core, at most 4; fewer when the
//! table spans few files). Corruption when a cell key does not decode, a URI has no URL form or
//! an inlinks cell names a source without a row; Aborted soon after `*cancel` turns true (a
//! reader that is stopping need not finish a table of millions of rows).

Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot,
                                 TableGraphStats* stats = nullptr, const std::atomic<bool>* cancel = nullptr,
                                 int readers = 0);

}  // namespace webindex::rank
