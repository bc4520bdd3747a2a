// TaskOwnership: which tasks (input partitions) a StageRunner of a consumer group owns, and the
// moves of a task between members. It is the runner's rebalance listener: given tasks, it drops
// their stale rows, takes them over (restore, fence, claim: fence.h) and loads their counters and
// positions; taken away, it drops their rows. At a clean stop it notes local copies a next start
// may read on from. Lone runs use LoadTask only.
// Owned by the StageRunner; runner thread (the listener runs inside PollBatch), Owned() from any.
// Calls the store, the consumer, the admin client, TakeOverTasks, the Outbox (draining at a
// handover) and the TaskChangelog (rows of a task, restored records, snapshots).
// Crash: dropping is idempotent and a task's rows count only once its takeover is whole (the
// claim is written after the restore); a kill -9 at any instant leaves rows the next start drops
// or restores again from the changelog, and a local copy note is written only after every record
// is acknowledged and the group confirmed ownership, and deleted by the start that reads it.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "pipeline/fence.h"
#include "pipeline/outbox.h"
#include "pipeline/runner_part.h"
#include "pipeline/task_changelog.h"

namespace webindex::pipeline {

class TaskOwnership : private RunnerPart, public kafka::RebalanceListener {
 public:
  TaskOwnership(const RunnerPart& part, Outbox& outbox, TaskChangelog& changelog);

  //! Group mode, at the start: takes the notes of the copies the last stop kept (TakeLocalCopies)
  //! and drops the rows of every other task.
  Status DropStaleTasks();
  //! Group mode: the rebalance listener's two halves, on the runner's thread (inside PollBatch).
  std::vector<kafka::TopicPartitionOffset> OnAssigned(const std::vector<kafka::TopicPartitionOffset>& given) override;
  void OnRevoked(const std::vector<kafka::TopicPartitionOffset>& taken, bool lost) override;
  //! Loads a task's seq counter, epoch and position from the store (committed or restored).
  Status LoadTask(int32_t task);
  //! Group mode, at a stop: once every record is acknowledged and the group confirms that this
  //! member still owns its tasks (Consumer::ConfirmAssignment), notes for each that the store
  //! holds it as its changelog up to the end it has now (docs/scale-out.md §4). Until
  //! `deadline` for the acknowledgements. No copy is noted when either does not come.
  void KeepLocalCopies(std::chrono::steady_clock::time_point deadline);
  //! Group mode: the group's confirmation that this member still owns `tasks`, its positions in
  //! them committed (kafka::Consumer::ConfirmAssignment).
  Status ConfirmOwned(const std::set<int32_t>& tasks);
  //! `records` when they are all of tasks owned now, else the owned ones copied into `owned`:
  //! records of tasks given up since they were fetched are not this runner's.
  const std::vector<InRecord>* OwnedOnly(const std::vector<InRecord>& records, std::vector<InRecord>* owned) const;

  //! The tasks owned now (thread-safe).
  std::set<int32_t> Owned() const;
  //! The group has given this runner its first assignment (maybe of nothing), nothing was
  //! assigned or revoked for 3 s (a cooperative rebalance comes in rounds), and the client knows
  //! of no rebalance under way (kafka::Consumer::RebalanceUnderWay).
  bool settled() const;
  //! Group mode, each turn of the runner's loop: warns once when the member has been out of its
  //! group (joining, or in a rebalance) for longer than the session timeout and 5 s, within which
  //! a member joins again (max.poll.interval.ms), and says when it is back.
  void WatchMembership();
  //! A takeover or drop failed: the runner stops.
  const Status& group_error() const { return group_error_; }
  //! Leaving the group: a revocation from here on keeps the local rows.
  void set_closing() { closing_ = true; }
  uint64_t taken_over() const { return taken_over_; }
  uint64_t given_up() const { return given_up_; }

 private:
  //! Takes `tasks` over (their local rows dropped already): restored from their changelogs, fenced
  //! and claimed at their next epochs in one round (TakeOverTasks); loads their counters and
  //! positions, and owns them.
  Status TakeOver(const std::set<int32_t>& tasks);
  ClaimSpec SpecOf(int32_t task) const;
  //! Start: the copies the last stop noted (their notes deleted: each is good for one start).
  Result<std::map<int32_t, ClaimSpec::LocalCopy>> TakeLocalCopies();
  //! Deletes every local row of `tasks`: the stage's rows of those tasks, their positions,
  //! counters, epochs, dedupe and fence marks and restored records.
  Status DropTasks(const std::set<int32_t>& tasks);
  //! Assigns the side consumer (if any) the side input's partitions of the tasks owned now, at
  //! their committed positions.
  Status AssignSide();
  //! DropTasks of those of `tasks` the last stop kept no current copy of (local_copies_).
  Status DropTasksWithoutCopy(const std::set<int32_t>& tasks);

  Outbox& outbox_;
  TaskChangelog& changelog_;
  // PausePoint names (common/crash_point.h).
  const std::string pause_assigned_, pause_taken_over_;
  mutable std::mutex owned_mu_;
  std::set<int32_t> owned_;     // tasks this runner reads now
  int32_t assigned_generation_ = -1;  // the group generation of the last assignment (runner thread)
  //! Tasks whose rows the last stop kept as current copies, until the group gives them (runner thread).
  std::map<int32_t, ClaimSpec::LocalCopy> local_copies_;
  Status group_error_;          // a takeover or drop failed: the runner stops (runner thread)
  bool closing_ = false;        // leaving the group: a revocation keeps the local rows
  bool warned_out_ = false;     // WatchMembership warned that the member is out of its group
  std::atomic<bool> joined_{false};
  std::atomic<int64_t> last_rebalance_ns_{0};  // steady clock of the last assignment or revocation
  std::atomic<uint64_t> taken_over_{0};
  std::atomic<uint64_t> given_up_{0};
};

}  // namespace webindex::pipeline
