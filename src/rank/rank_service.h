// The continuous PageRank of `webindex run` (docs/pagerank.md, "Live"): a thread of its own that,
// every `interval` and only when the sink applied exports since the last result, takes one
// snapshot of the store, builds the live graph, iterates and stores the result with the export
// positions it reflects. It only reads the state the stages write, so they never wait for it.
// The graph comes from the store the results go to (a whole table) or from a TableSource (every
// shard of a partitioned table; then each shard's sink position is what the result reflects).
// Start/Stop from one thread; Stop is idempotent and cancels a computation under way: reading
// the table and storing the result check for it every few thousand rows, so Stop does not wait
// for a whole computation (tens of seconds on a large table).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "query/table_source.h"
#include "rank/link_graph.h"
#include "rank/rank_store.h"
#include "state/store.h"

namespace webindex::rank {

struct RankServiceOptions {
  std::chrono::milliseconds interval{60000};  //!< between checks for a changed graph
  int iterations = 10;
  unsigned threads = 0;             //!< for the iterations; 0: one per core
  std::string sink_stage = "sink";  //!< whose input positions say what the table reflects
  std::string exports_topic;
  int32_t exports_partitions = 1;
  //! Called on the service's thread once the graph is read from its snapshot, before the
  //! iterations (tests hold a computation open with it).
  std::function<void()> after_snapshot;
  //! Called on the service's thread after every check, whatever its outcome (publishing the
  //! current result, which must be idempotent).
  std::function<void()> after_check;
  //! Checks run only while this returns true (empty: always); the first check after it turned
  //! true runs within a second, not an interval later (a member that took the computation over).
  std::function<bool()> active;
  //! The least id of the next result (empty: the store's count goes on): a partitioned table's
  //! results go on from the highest id another member gave out.
  std::function<uint64_t()> first_id;
};

class RankService {
 public:
  //! The graph and the sink's positions from snapshots of `store`, the results stored in it.
  RankService(state::Store& store, RankServiceOptions options);
  //! The graph and each shard's sink position from reads of `table`, the results stored in
  //! `results` (a store of their own).
  RankService(state::Store& results, std::shared_ptr<query::TableSource> table, RankServiceOptions options);
  ~RankService();
  RankService(const RankService&) = delete;
  RankService& operator=(const RankService&) = delete;

  void Start();
  void Stop();

  //! One check: computes and stores a result when the table changed since the stored one (or
  //! none is stored). Returns whether it computed. Any thread, one at a time.
  Result<bool> RunOnce();

  struct Stats {
    uint64_t computations = 0;  //!< results stored
    uint64_t unchanged = 0;     //!< checks that found nothing new
    uint64_t failures = 0;
    double last_seconds = 0;    //!< snapshot to stored result, of the last computation
    bool running = false;       //!< a computation is under way
  };
  Stats stats() const;

 private:
  void Loop();
  //! The offsets key of the sink's position in exports partition `p`.
  std::string PositionKey(int32_t p) const;
  //! What a check reads: the sink's positions, and the same state's graph after them.
  struct Input {
    std::vector<int64_t> positions;
    std::unique_ptr<state::Snapshot> snap;   //!< of store_, without table_
    std::unique_ptr<query::TableRead> read;  //!< of table_
  };
  Result<Input> TakeInput();
  //! The graph of `input` (released after); `how` says how it was read, for the log.
  Result<LinkGraph> ReadGraph(Input& input, double* seconds, std::string* how);
  Result<bool> Compute(Input input, std::chrono::steady_clock::time_point start);

  state::Store& store_;  //!< the results' (and without table_, the graph's)
  const std::shared_ptr<query::TableSource> table_;
  const RankServiceOptions options_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};
  Stats stats_;
};

}  // namespace webindex::rank
