// StageRunner drives one Stage on its own thread: poll a batch, process it, commit state,
// input offsets and outgoing records in one RocksDB write (the outbox), then hand the
// records to Kafka and delete them from the outbox once acknowledged. A crash at any
// instant leaves either the whole batch or none of it, and the outbox re-sends on start.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "pipeline/changelog.h"
#include "pipeline/changelog_trim.h"
#include "pipeline/fence.h"
#include "pipeline/flow_control.h"
#include "pipeline/outbox.h"
#include "pipeline/runner_flow.h"
#include "pipeline/runner_keys.h"
#include "pipeline/runner_part.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {

class StageRunner {
 public:
  //! `index` tags this runner's records in the shared producer's delivery reports.
  StageRunner(std::unique_ptr<Stage> stage, int index, int32_t input_partitions, state::Store& store,
              kafka::Producer& producer, kafka::ClientConfig consumer_config, Metrics& metrics, RunnerOptions options);
  ~StageRunner();

  //! Re-sends the outbox, positions the consumer at the committed offsets, starts the thread.
  Status Start();
  void RequestStop() { stop_ = true; }
  //! Waits for the thread; returns why it ended (Ok after RequestStop).
  Status Join();
  //! Removes acknowledged records from the outbox (after the thread has stopped).
  Status CommitAcked();

  //! Producer thread: a record of this stage was acknowledged at `offset` (or failed). A record
  //! the cluster rejects for good (kafka::IsRecordRejected) is set aside by the runner's thread.
  void OnDelivered(uint64_t seq, const Status& status, int64_t offset = -1);

  //! Group mode: the tasks (input partitions) this runner owns now, and how many it has taken
  //! over and given up since it started (thread-safe).
  std::set<int32_t> Owned() const;
  bool in_group() const { return options_.group.has_value(); }
  //! Group mode: the group has given this runner its first assignment (maybe of nothing),
  //! nothing was assigned or revoked for 3 s (a cooperative rebalance comes in rounds), and the
  //! client knows of no rebalance under way (kafka::Consumer::RebalanceUnderWay).
  bool settled() const;
  uint64_t taken_over() const { return taken_over_; }
  uint64_t given_up() const { return given_up_; }

  const Stage& stage() const { return *stage_; }
  int32_t input_partitions() const { return input_partitions_; }
  //! Next offset to read per input partition, as committed.
  std::vector<int64_t> Positions() const;
  uint64_t unacked() const { return outbox_.unacked(); }
  bool busy() const { return busy_; }
  //! Batches committed, and the time spent processing and committing them (thread-safe).
  uint64_t batches() const { return batches_; }
  uint64_t batch_nanos() const { return batch_nanos_; }
  bool failed() const { return failed_; }
  //! Changelog trims: per task, the offset below which this runner last asked the brokers to
  //! delete its changelog's records (whatever they answered; on the embedded broker, which cannot,
  //! the first trim it would have asked for), and whether it stopped asking (thread-safe).
  std::map<int32_t, int64_t> trims_asked() const;
  bool trims_off() const { return trims_off_; }

 private:
  void Loop();
  //! Group mode: the rebalance listener's two halves, on the runner's thread (inside PollBatch).
  std::vector<kafka::TopicPartitionOffset> OnAssigned(const std::vector<kafka::TopicPartitionOffset>& given);
  void OnRevoked(const std::vector<kafka::TopicPartitionOffset>& taken, bool lost);
  //! Takes `tasks` over (their local rows dropped already): restored from their changelogs, fenced
  //! and claimed at their next epochs in one round (TakeOverTasks); loads their counters and
  //! positions, and owns them.
  Status TakeOver(const std::set<int32_t>& tasks);
  ClaimSpec SpecOf(int32_t task) const;
  //! Loads a task's seq counter, epoch and position from the store (committed or restored).
  Status LoadTask(int32_t task);
  //! Group mode, at a stop: once every record is acknowledged and the group confirms that this
  //! member still owns its tasks (Consumer::ConfirmAssignment), notes for each that the store
  //! holds it as its changelog up to the end it has now (docs/scale-out.md §4). Until
  //! `deadline` for the acknowledgements. No copy is noted when either does not come.
  void KeepLocalCopies(std::chrono::steady_clock::time_point deadline);
  //! Start: the copies the last stop noted (their notes deleted: each is good for one start).
  Result<std::map<int32_t, ClaimSpec::LocalCopy>> TakeLocalCopies();
  //! Deletes every local row of `tasks`: the stage's rows of those tasks, their positions,
  //! counters, epochs, dedupe and fence marks and restored records.
  Status DropTasks(const std::set<int32_t>& tasks);
  //! DropTasks of those of `tasks` the last stop kept no current copy of (local_copies_).
  Status DropTasksWithoutCopy(const std::set<int32_t>& tasks);
  class Listener : public kafka::RebalanceListener {
   public:
    explicit Listener(StageRunner& runner) : runner_(runner) {}
    std::vector<kafka::TopicPartitionOffset> OnAssigned(const std::vector<kafka::TopicPartitionOffset>& p) override {
      return runner_.OnAssigned(p);
    }
    void OnRevoked(const std::vector<kafka::TopicPartitionOffset>& p, bool lost) override { runner_.OnRevoked(p, lost); }

   private:
    StageRunner& runner_;
  };
  Status RunBatch(const std::vector<InRecord>& records);
  //! What follows a commit once it is written: its positions become the committed ones (and are
  //! reported), counters and the debug line. Inline for most commits; after the write on another
  //! thread for those of a stage that OverlapsCommits.
  //! `busy`: the runner's time on the batch (processing it, and waiting for its write).
  void Committed(const std::vector<int64_t>& next, std::chrono::nanoseconds busy, size_t records, size_t outputs,
                 uint64_t acknowledged);
  //! Waits for the commit being written beside the next batch (if any), then Committed; the
  //! write's error, which stops the stage.
  Status FinishWriting();
  //! Changelog mode: the TaskOutboxKeys of a commit's records (those of a task, `tasks` giving
  //! each record's or -1; per task, in row order) with their values.
  std::vector<std::pair<int32_t, std::string>> TaskOutbox(const std::vector<OutRecord>& recs,
                                                          const std::vector<int32_t>& tasks, uint64_t row,
                                                          std::vector<std::string>* values) const;
  //! Changelog mode: the records restored from a former owner's TaskOutboxKeys (Start), re-sent
  //! under this owner's epoch by the first commit.
  Status LoadAdopted(std::optional<int32_t> task = std::nullopt);
  //! Adds the changelog records of the batch's state changes to its outputs.
  Status AddChangelog(BatchContext& ctx);
  //! Calls fn(task, family, key, value) for every local row of `tasks`: the stage's rows of
  //! those tasks (one scan of its family for all), their positions, seq counters, epochs, dedupe
  //! and fence marks, and the records restored from a former owner. With the task-out rows of
  //! this owner's own commits (TaskOutRows), it is what a restore of each task gives now.
  using TaskRowFn = std::function<Status(int32_t task, state::Family family, std::string_view key, std::string_view value)>;
  Status ForEachTaskRow(const std::set<int32_t>& tasks, const TaskRowFn& fn);
  //! Changelog mode: the TaskOutboxKeys (with their values) of this owner's commits of `tasks`
  //! whose outbox rows are not deleted yet, rebuilt from those rows (this store never holds them).
  Result<std::map<int32_t, std::map<std::string, std::string>>> TaskOutRows(const std::set<int32_t>& tasks);
  //! The epoch of `task` (fence.h; 0 when it has none), and the headers of its changelog records.
  uint64_t EpochOf(int32_t task) const;
  std::vector<std::pair<std::string, std::string>> ChangelogHeaders(int32_t task) const;
  //! Sends a snapshot of each of `tasks` to its changelog partition, after the commits sent
  //! before it, streamed from one pass over the store.
  Status WriteSnapshots(const std::set<int32_t>& tasks);
  //! After a commit whose changelog records `out` holds: snapshots of the tasks due one.
  Status SnapshotIfDue(const std::vector<OutRecord>& out);
  //! Group mode: the group's confirmation that this member still owns `tasks`, its positions in
  //! them committed (kafka::Consumer::ConfirmAssignment).
  Status ConfirmOwned(const std::set<int32_t>& tasks);
  //! Group mode: deletes the changelog records before each owned task's newest acknowledged
  //! snapshot, once the group has confirmed that this member still owns its tasks. Failures are
  //! logged, never fatal: the records stay.
  void TrimIfDue();
  //! Publishes the committed positions as the consumer group's offsets (Consumer::ReportPositions).
  void ReportPositions();

  std::unique_ptr<Stage> stage_;
  const int index_;
  const int32_t input_partitions_;
  state::Store& store_;
  kafka::Producer& producer_;
  kafka::ClientConfig consumer_config_;
  Metrics& metrics_;
  RunnerOptions options_;

  std::unique_ptr<kafka::Consumer> consumer_;
  std::thread thread_;
  Status result_;
  std::unique_ptr<std::atomic<int64_t>[]> positions_;
  // PausePoint names (common/crash_point.h).
  const std::string pause_committed_, pause_assigned_, pause_taken_over_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> busy_{false};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> batches_{0};
  std::atomic<uint64_t> batch_nanos_{0};
  //! A commit being written on a thread of its own while the stage processes the next batch
  //! (Stage::OverlapsCommits), with what Committed needs of it (runner thread).
  struct Writing {
    std::future<Status> written;
    std::vector<int64_t> next;
    std::chrono::nanoseconds busy{0};  //!< the runner's time on the batch until the write began
    size_t records = 0;
    uint64_t acknowledged = 0;  //!< outbox records whose rows it deletes
  };
  std::optional<Writing> writing_;
  bool log_positions_ = false;    // the next commit puts every task's position into the changelog
  std::map<int32_t, uint64_t> task_seqs_;  // next seq of each task, as committed (runner thread)
  struct Adopted {
    int32_t task;
    std::vector<std::string> keys;  // its TaskOutboxKeys (parts) in the restored store
    std::vector<OutRecord> records;
  };
  std::vector<Adopted> adopted_;
  std::map<int32_t, uint64_t> task_epochs_;  // epoch of each task (fence.h; absent: 0), as at Start
  //! Changelog mode, per task (runner thread): changelog bytes sent since its last snapshot, and
  //! that snapshot's size.
  std::map<int32_t, std::pair<uint64_t, uint64_t>> snapshot_due_;
  // Changelog trims: the snapshots sent, from their delivery reports; when trims were last
  // looked at (runner thread); whether the brokers cannot trim (the embedded broker) or refuse to.
  SnapshotTrims trims_;
  std::chrono::steady_clock::time_point trim_checked_{};
  std::atomic<bool> trims_off_{false};
  mutable std::mutex trims_mu_;
  std::map<int32_t, int64_t> trims_asked_;
  std::chrono::steady_clock::time_point reported_at_{};  // positions last reported (ReportPositions)
  std::vector<std::pair<int32_t, int64_t>> reported_;     // (partition, position) last reported
  // Group mode (options_.group).
  Listener listener_{*this};
  mutable std::mutex owned_mu_;
  std::set<int32_t> owned_;     // tasks this runner reads now
  int32_t assigned_generation_ = -1;  // the group generation of the last assignment (runner thread)
  //! Tasks whose rows the last stop kept as current copies, until the group gives them (runner thread).
  std::map<int32_t, ClaimSpec::LocalCopy> local_copies_;
  Status group_error_;          // a takeover or drop failed: the runner stops (runner thread)
  bool closing_ = false;        // leaving the group: a revocation keeps the local rows
  std::atomic<bool> joined_{false};
  std::atomic<int64_t> last_rebalance_ns_{0};  // steady clock of the last assignment or revocation
  std::atomic<uint64_t> taken_over_{0};
  std::atomic<uint64_t> given_up_{0};

  // The parts, last: they hold references to the members above.
  RunnerPart shared_;
  RunnerFlow flow_;
  Outbox outbox_;
};

}  // namespace webindex::pipeline
