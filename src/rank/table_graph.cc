#include "rank/table_graph.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "rank/graph_cells.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

constexpr uint64_t kCancelCheckCells = 1024;
constexpr int kMaxReaders = 4;

//! Reads the cells in [begin, end) ("" = to the end of the p: rows) into `out`.
void ReadRange(state::Store& store, const state::Snapshot* snapshot, const std::string& begin, const std::string& end,
               const std::atomic<bool>* cancel, GraphCells* out, Status* status) {
  state::ScanOptions scan;
  scan.bulk = true;
  scan.upper_bound = end.empty() ? sink::RowPrefixKey("p;") : end;  // ';' follows ':'
  auto it = store.NewIterator(state::Family::kTable, snapshot, scan);
  for (it->Seek(begin); it->Valid(); it->Next()) {
    if (!out->Add(it->key())) break;
    if (out->cells() % kCancelCheckCells == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
      *status = Status::Aborted("stopping: the table was being read");
      return;
    }
  }
  if (!out->status().ok()) {
    *status = out->status();
  } else if (!it->status().ok()) {
    *status = it->status();
  } else if (!out->Finish()) {
    *status = out->status();
  }
}

//! Runs fn(0) .. fn(n - 1), n - 1 of them on threads of their own.
template <typename Fn>
void OnThreads(size_t n, const Fn& fn) {
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(fn, i);
  fn(0);
  for (auto& t : threads) t.join();
}

//! Reads the p: rows. Node URIs whose hashes are in `ambiguous` are told apart by the URIs
//! themselves. When two node URIs outside it share a hash, returns an empty graph with their
//! hashes in `*collided`, for a read that treats them as ambiguous.
Result<LinkGraph> ReadGraph(state::Store& store, const state::Snapshot* snapshot, const std::atomic<bool>* cancel,
                            int readers, const UriHashSet& ambiguous, UriHashSet* collided, TableGraphStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  // The p: rows in key ranges of about equal size on disk, one reader each.
  const std::string begin = sink::RowPrefixKey("p:"), end = sink::RowPrefixKey("p;");
  std::vector<std::string> bounds = {begin};
  for (auto& cut : store.SplitKeys(state::Family::kTable, begin, end, readers)) bounds.push_back(std::move(cut));
  bounds.push_back("");
  std::vector<GraphCells> parts(bounds.size() - 1, GraphCells(&ambiguous));
  std::vector<Status> statuses(parts.size());
  OnThreads(parts.size(),
            [&](size_t i) { ReadRange(store, snapshot, bounds[i], bounds[i + 1], cancel, &parts[i], &statuses[i]); });
  for (const Status& st : statuses) RETURN_IF_ERROR(st);
  GraphCells& all = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) all.Append(parts[i]);
  const uint64_t cells = all.cells();
  const auto read = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(LinkGraph g, BuildLinkGraph(all, collided));
  if (stats) {
    const auto done = std::chrono::steady_clock::now();
    stats->cells = cells;
    stats->readers = static_cast<int>(parts.size());
    stats->read_seconds = std::chrono::duration<double>(read - start).count();
    stats->seconds = std::chrono::duration<double>(done - start).count();
  }
  return g;
}

}  // namespace

Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot, TableGraphStats* stats,
                                 const std::atomic<bool>* cancel, int readers) {
  std::unique_ptr<state::Snapshot> own;
  if (!snapshot) {
    own = store.GetSnapshot();
    snapshot = own.get();
  }
  if (readers <= 0) readers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxReaders);
  // Node URIs that share a hash (by chance: about one read in 4 million at 3M nodes; or made to)
  // are read again, told apart by their URIs.
  UriHashSet collided;
  if (stats) stats->attempts = 1;
  ASSIGN_OR_RETURN(LinkGraph g, ReadGraph(store, snapshot, cancel, readers, {}, &collided, stats));
  if (collided.empty()) return g;
  if (stats) stats->attempts = 2;
  UriHashSet none;
  ASSIGN_OR_RETURN(g, ReadGraph(store, snapshot, cancel, readers, collided, &none, stats));
  return g;
}

}  // namespace webindex::rank
