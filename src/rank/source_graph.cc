#include "rank/source_graph.h"

#include <chrono>
#include <string>
#include <vector>

#include "rank/graph_cells.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

//! One pass over the p: rows through `read`, page by page.
Status ReadCells(query::TableRead& read, const SourceGraphOptions& options, GraphCells* cells, uint64_t* scans) {
  const std::string prefix = sink::RowPrefixKey("p:");
  std::string after;
  std::vector<query::KeyValue> page;
  while (true) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      return Status::Aborted("stopping: the table was being read");
    }
    RETURN_IF_ERROR(read.Scan(prefix, after, options.page_cells, &page));
    ++*scans;
    for (const query::KeyValue& cell : page) {
      if (!cells->Add(cell.key)) return cells->status().ok() ? Status::Ok() : cells->status();
    }
    if (page.size() < options.page_cells) break;
    after = std::move(page.back().key);
  }
  return cells->Finish() ? Status::Ok() : cells->status();
}

}  // namespace

Result<LinkGraph> ReadSourceGraph(query::TableRead& read, SourceGraphStats* stats, SourceGraphOptions options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.page_cells == 0) options.page_cells = SourceGraphOptions{}.page_cells;
  // Only a read that asks other members can see a shard in two states.
  const bool one_state = !read.remote();
  SourceGraphStats local;
  SourceGraphStats& s = stats ? *stats : local;
  s = SourceGraphStats();
  // Node URIs that share a hash are read again, told apart by their URIs (as ReadTableGraph).
  UriHashSet ambiguous, collided;
  for (s.attempts = 1; s.attempts <= 2; ++s.attempts) {
    GraphCells cells(&ambiguous);
    RETURN_IF_ERROR(ReadCells(read, options, &cells, &s.scans));
    s.cells = cells.cells();
    s.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    s.dropped = 0;
    ASSIGN_OR_RETURN(LinkGraph g, BuildLinkGraph(cells, &collided, !one_state, &s.dropped));
    if (collided.empty()) {
      s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return g;
    }
    ambiguous = std::move(collided);
    collided.clear();
  }
  return Status::Internal("table: node URIs still share a hash when told apart by their URIs");
}

}  // namespace webindex::rank
