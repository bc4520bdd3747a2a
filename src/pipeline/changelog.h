// Changelogs (docs/scale-out.md §4): a stage task's state changes go, with every commit, to
// partition `task` of the stage's changelog topic (StageRunner::AddChangelog), each
// commit's changes closed by a ChangelogCommitKey record. This file holds the records' key
// format and the restore: it reads such a partition and applies the changes of every closed
// commit to a store, so that the task's state, position, dedupe marks and sequence counter
// exist there as the writer committed them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "state/store.h"

namespace webindex::pipeline {

//! The changelog topic of a stage: partitioned like its input, never compacted or expired by the
//! broker (cleanup.policy=delete, no retention); each task's owner trims it (changelog_trim.h).
inline std::string ChangelogTopic(std::string_view prefix, std::string_view stage) {
  return std::string(prefix) + std::string(stage);
}
//! A changelog record's key: the generation (8 bytes, big-endian), one byte naming the family,
//! then the state key. The generation keeps a replay's keys apart from the live ones' in the
//! same topic. The generation and kChangelogCommit alone is the key of the record that
//! closes one commit's changes of a task.
std::string ChangelogKey(uint64_t generation, state::Family family, std::string_view key);
std::string ChangelogCommitKey(uint64_t generation);
inline constexpr char kChangelogCommit = '\xff';

//! Snapshots (docs/scale-out.md §5): a task's whole state, written by its owner into its
//! changelog between two commits, so that a restore can begin at a complete one when the log's
//! start is gone (retention, or a trim below the snapshot). Every record of a snapshot carries
//! the header kSnapshotHeader = the snapshot's id and its writer's epoch; the first has the key
//! ChangelogSnapshotKey(generation, false), the rows follow as ChangelogKey records, and the
//! last, key ChangelogSnapshotKey(generation, true), holds the number of rows.
inline constexpr char kChangelogSnapshot = '\xfe';
inline constexpr char kSnapshotHeader[] = "snap";
std::string ChangelogSnapshotKey(uint64_t generation, bool end);

struct SnapshotRow {
  state::Family family;
  std::string key;
  std::string value;
};
//! The records of one snapshot, made one at a time (a snapshot is streamed as its rows are
//! read): Begin, a Row per state row, End. `headers` are those of the task's other changelog
//! records (gen, inst, epoch), `id` names this snapshot.
class SnapshotWriter {
 public:
  SnapshotWriter(std::string topic, int32_t task, uint64_t generation,
                 std::vector<std::pair<std::string, std::string>> headers, std::string_view id);
  OutRecord Begin() const;
  OutRecord Row(state::Family family, std::string_view key, std::string_view value);
  OutRecord End() const;  //!< holds the number of Row calls
  uint64_t rows() const { return rows_; }

 private:
  std::string topic_;
  int32_t task_;
  uint64_t generation_;
  std::vector<std::pair<std::string, std::string>> headers_;
  uint64_t rows_ = 0;
};
//! The records of a snapshot of `rows` for partition `task` of `topic` (SnapshotWriter).
std::vector<OutRecord> SnapshotRecords(const std::string& topic, int32_t task, uint64_t generation,
                                       const std::vector<std::pair<std::string, std::string>>& headers,
                                       std::string_view id, const std::vector<SnapshotRow>& rows);

//! A changelog key taken apart (views into the key); nullopt when it is too short to be one.
struct ChangelogKeyParts {
  uint64_t generation;
  uint8_t family;  //!< a state::Family, or kChangelogCommit
  std::string_view state_key;
};
std::optional<ChangelogKeyParts> ParseChangelogKey(std::string_view key);

struct RestoreStats {
  uint64_t records = 0;           //!< read from the partition
  uint64_t commits = 0;           //!< closed commits applied
  uint64_t changes = 0;           //!< puts and deletes applied
  uint64_t other_generation = 0;  //!< records of other generations or data dirs, skipped
  uint64_t unfinished = 0;        //!< changes after the last closing record, not applied
  uint64_t claims = 0;            //!< claims that raised the task's epoch (fence.h)
  uint64_t void_records = 0;      //!< written by an owner at an epoch a claim before them ended
  uint64_t interrupted = 0;       //!< changes of a commit a claim cut off (never closed before it)
  uint64_t skipped_to_snapshot = 0;  //!< records before the snapshot a restore of a log without its start began at
  uint64_t snapshot_rows = 0;        //!< rows of that snapshot applied
  uint64_t snapshots_dropped = 0;    //!< snapshots a claim interrupted or that were incomplete, passed over
  uint64_t snapshot_records = 0;     //!< records of later snapshots (their rows repeat what was restored)
};

//! Rebuilds a task (partition `task` of changelog `topic`) in `store`: applies each closed commit
//! of `generation` written by data dir `instance` ("" = any, as in a group) in one write, in log
//! order. A claim record (ClaimTask) makes its epoch the task's (kMeta TaskEpochKey, written to
//! the store); records of a lower epoch after it are void, and a commit it interrupts is dropped.
//! When the partition's start is gone (retention, a trim), the restore begins at the first
//! complete, not void snapshot after it: its rows are the state, its epoch the claim in force.
//! Later snapshots' rows are applied like changes (they repeat the state; after a trim one may
//! be the only record left of its key), unless void. A record after the snapshot began at
//! whose epoch no visible claim explains shows that snapshot void: its effects are undone and a
//! later snapshot is sought.
//! CatchUp may be called again to apply what was appended since.
class TaskRestore {
 public:
  TaskRestore(kafka::ClientConfig config, kafka::Admin& admin, state::Store& store, std::string topic, int32_t task,
              uint64_t generation, std::string instance)
      : config_(std::move(config)),
        admin_(admin),
        store_(store),
        topic_(std::move(topic)),
        task_(task),
        generation_(generation),
        instance_(std::move(instance)) {}
  ~TaskRestore();
  //! Reads from where the last call stopped (the partition's start, the first time) to the
  //! partition's end as it is now, or to offset `until` if that comes first.
  Status CatchUp(int64_t until = INT64_MAX);
  //! Treats the records before `offset` as deleted, so that the first CatchUp begins at a
  //! snapshot after it (tests: the embedded broker deletes no records on request).
  void StartAt(int64_t offset) { start_at_ = offset; }
  //! The store holds the task as a restore up to `offset` leaves it (a copy a former run of
  //! this data dir kept: StageRunner), at `epoch`, claimed by `claimed_by`: the first CatchUp
  //! reads on from there. Fails like a restore that has begun when the log's start has passed it.
  void ResumeAt(int64_t offset, uint64_t epoch, std::string claimed_by) {
    next_ = offset;
    claim_epoch_ = epoch_ = epoch;
    claimed_by_ = std::move(claimed_by);
  }
  //! Closes the partition's reader until the next CatchUp, which opens one where this stopped.
  void Release() { consumer_.reset(); }
  //! While CatchUp runs, `lag` (a gauge shared by every restore) counts the records it has left.
  void ReportLagTo(std::atomic<int64_t>* lag) { lag_ = lag; }
  const RestoreStats& stats() const { return stats_; }
  //! The task's epoch: of the last claim applied, else the highest epoch on an applied record.
  uint64_t epoch() const { return epoch_; }
  //! The data dir (inst header) of the claim that set epoch(); "" when no claim did.
  const std::string& claimed_by() const { return claimed_by_; }

 private:
  struct Change {
    state::Family family;
    std::string key;
    std::optional<std::string> value;
  };
  //! A snapshot being read while the restore seeks one (seeking_).
  struct Snapshot {
    std::string id;
    uint64_t epoch = 0;
    std::string inst;
    std::vector<SnapshotRow> rows;
  };
  Status Apply(const InRecord& r);
  //! Writes the snapshot rows read since the last record of another kind.
  Status ApplySnapshotRows();
  //! Notes a key this restore wrote, while what it writes may have to be undone (it began at, or
  //! is applying, a snapshot that a later record can show void).
  void Wrote(state::Family family, std::string_view key) {
    if (began_at_snapshot_ || seeking_) written_.emplace(family, std::string(key));
  }
  //! While seeking_: collects snapshots and applies the first complete one.
  Status Seek(const InRecord& r, const ChangelogKeyParts& key, uint64_t epoch);
  //! Why the task cannot be restored: records [from, to) are gone.
  //! `under_reader`: the records went while this restore read the log (a trim or retention
  //! moved its start): Aborted, since a restore begun again starts at the first complete
  //! snapshot the log keeps; else Unavailable.
  Status Truncated(int64_t from, int64_t to, bool under_reader = false) const;
  std::string Where(int64_t offset) const;

  kafka::ClientConfig config_;
  kafka::Admin& admin_;
  state::Store& store_;
  std::string topic_;
  int32_t task_;
  uint64_t generation_;
  std::string instance_;
  std::unique_ptr<kafka::Consumer> consumer_;
  int64_t next_ = -1;  // -1: not started
  int64_t start_at_ = 0;
  std::atomic<int64_t>* lag_ = nullptr;
  std::vector<Change> pending_;
  bool seeking_ = false;             //!< the log's start is gone: looking for a snapshot to begin at
  int64_t truncated_from_ = 0;       //!< where this restore wanted to begin, for the error if none is found
  int64_t truncated_to_ = 0;         //!< the log's start then
  std::optional<Snapshot> snapshot_;  //!< the one being read while seeking
  std::vector<SnapshotRow> snapshot_rows_;  //!< not seeking: rows of a snapshot, not written yet
  bool began_at_snapshot_ = false;  //!< seeking found one: what it applies is undone if that proves void
  std::set<std::pair<state::Family, std::string>> written_;  //!< keys written since (began_at_snapshot_)
  uint64_t claim_epoch_ = 0;
  uint64_t epoch_ = 0;
  std::string claimed_by_;
  RestoreStats stats_;
};

//! TaskRestore once, to the partition's current end.
Result<RestoreStats> RestoreTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                 const std::string& topic, int32_t task, uint64_t generation,
                                 const std::string& instance);

}  // namespace webindex::pipeline
