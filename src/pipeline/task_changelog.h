// TaskChangelog: a StageRunner's changelog (RunnerOptions::changelog, changelog.h). It turns each
// commit's state changes into changelog records per task, keeps the records a task's commits
// emit under TaskOutboxKeys for a new owner to re-send (and re-sends those it restored: adopted),
// writes snapshots of tasks, and, in a group, trims each owned task's changelog to its newest
// acknowledged snapshot. Owned by the StageRunner; runner thread, but OnSnapshotDelivered (the
// producer's thread) and trims_asked (any). Calls the store (reads), the producer (snapshots),
// the Outbox, the admin client (trims) and, passed in, the TaskOwnership.
// Crash: its records go out through the outbox row of the commit that holds the state they
// describe, so the changelog never runs ahead of the store; snapshots and trims are idempotent
// (a torn snapshot has no end record and restores pass it over; a trim deletes only before an
// acknowledged snapshot), so a kill -9 at any instant restores the same state.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/changelog.h"
#include "pipeline/changelog_trim.h"
#include "pipeline/outbox.h"
#include "pipeline/runner_part.h"

namespace webindex::pipeline {

class TaskOwnership;

class TaskChangelog : private RunnerPart {
 public:
  TaskChangelog(const RunnerPart& part, Outbox& outbox) : RunnerPart(part), outbox_(outbox) {}

  //! Adds the changelog records of the batch's state changes to its outputs.
  Status AddChangelog(BatchContext& ctx);
  //! Changelog mode: the TaskOutboxKeys of a commit's records (those of a task, `tasks` giving
  //! each record's or -1; per task, in row order) with their values.
  std::vector<std::pair<int32_t, std::string>> TaskOutbox(const std::vector<OutRecord>& recs,
                                                          const std::vector<int32_t>& tasks, uint64_t row,
                                                          std::vector<std::string>* values) const;
  //! Changelog mode: the records restored from a former owner's TaskOutboxKeys (Start), re-sent
  //! under this owner's epoch by the first commit.
  Status LoadAdopted(std::optional<int32_t> task = std::nullopt);
  struct Adopted {
    int32_t task;
    std::vector<std::string> keys;  // its TaskOutboxKeys (parts) in the restored store
    std::vector<OutRecord> records;
  };
  std::vector<Adopted>& adopted() { return adopted_; }
  //! Calls fn(task, family, key, value) for every local row of `tasks`: the stage's rows of
  //! those tasks (one scan of its family for all), their positions, seq counters, epochs, dedupe
  //! and fence marks, and the records restored from a former owner. With the task-out rows of
  //! this owner's own commits (TaskOutRows), it is what a restore of each task gives now.
  using TaskRowFn = std::function<Status(int32_t task, state::Family family, std::string_view key, std::string_view value)>;
  Status ForEachTaskRow(const std::set<int32_t>& tasks, const TaskRowFn& fn);
  //! The epoch of `task` (fence.h; 0 when it has none).
  uint64_t EpochOf(int32_t task) const;
  //! Sends a snapshot of each of `tasks` to its changelog partition, after the commits sent
  //! before it, streamed from one pass over the store.
  Status WriteSnapshots(const std::set<int32_t>& tasks);
  //! After a commit whose changelog records `out` holds: snapshots of the tasks due one.
  Status SnapshotIfDue(const std::vector<OutRecord>& out, const TaskOwnership& ownership);
  //! Start: trims are looked at trim_interval from now on.
  void ResetTrimClock() { trim_checked_ = std::chrono::steady_clock::now(); }
  //! Group mode: deletes the changelog records before each owned task's newest acknowledged
  //! snapshot, once the group has confirmed that this member still owns its tasks. Failures are
  //! logged, never fatal: the records stay.
  void TrimIfDue(TaskOwnership& ownership);
  //! Producer thread: a snapshot record (RunnerOpaque's kSnapshotSeq) was delivered or failed.
  void OnSnapshotDelivered(uint64_t seq, const Status& status, int64_t offset);
  //! A task given up: no snapshot of it is due, nor a trim.
  void Forget(int32_t task);
  std::map<int32_t, int64_t> trims_asked() const;
  bool trims_off() const { return trims_off_; }

 private:
  //! Changelog mode: the TaskOutboxKeys (with their values) of this owner's commits of `tasks`
  //! whose outbox rows are not deleted yet, rebuilt from those rows (this store never holds them).
  Result<std::map<int32_t, std::map<std::string, std::string>>> TaskOutRows(const std::set<int32_t>& tasks);
  //! The headers of `task`'s changelog records.
  std::vector<std::pair<std::string, std::string>> ChangelogHeaders(int32_t task) const;

  Outbox& outbox_;
  std::vector<Adopted> adopted_;
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
};

}  // namespace webindex::pipeline
