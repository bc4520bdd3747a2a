// The live link graph (docs/pagerank.md, "Live") read through a query::TableRead: the p: rows
// scanned page by page, in key order, whatever holds them (a whole table's store, or every shard
// of a partitioned table merged, query/sharded_table.h). The same graph as ReadTableGraph of a
// store holding that table. Any thread; one call reads through `read` alone.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/status.h"
#include "query/table_source.h"
#include "rank/link_graph.h"

namespace webindex::rank {

struct SourceGraphStats {
  uint64_t cells = 0;    //!< p: cells read
  uint64_t scans = 0;    //!< pages scanned
  uint64_t dropped = 0;  //!< edges whose source changed during the read (remote reads only)
  double read_seconds = 0;
  double seconds = 0;
  int attempts = 0;  //!< reads: 2 when node URIs shared a hash (the second tells them apart)
};

struct SourceGraphOptions {
  size_t page_cells = 10000;                  //!< cells per Scan (a remote shard answers at most 10,001)
  const std::atomic<bool>* cancel = nullptr;  //!< Aborted soon after it turns true
};

//! Builds the graph from the p: rows `read` returns. Corruption as ReadTableGraph says, the
//! read's errors (Unavailable: a shard without an owner) as they are. A read that sees one
//! snapshot per shard (no remote shard) gives exactly that state's graph; one that asks other
//! members page by page may see a shard change in between: an inlinks cell whose source then has
//! no row is an edge the read caught half-changed, left out and counted in stats.dropped.
Result<LinkGraph> ReadSourceGraph(query::TableRead& read, SourceGraphStats* stats = nullptr,
                                  SourceGraphOptions options = {});

}  // namespace webindex::rank
