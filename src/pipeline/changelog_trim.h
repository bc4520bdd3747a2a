// Changelog trims (docs/scale-out.md §5): once every record of a task's snapshot is
// acknowledged, the records of the task's changelog partition before the snapshot's begin are
// no longer needed by any restore (a restore of a log without its start begins at its first
// complete snapshot), and the task's owner deletes them (Kafka's DeleteRecords) after the group
// has confirmed that it still owns the task.
//
// SnapshotTrims follows the snapshots a runner sends, from their records' delivery reports, and
// names the trims due: per task, the begin offset of its newest snapshot whose every record was
// acknowledged, when it is past the task's last trim.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>

#include "common/status.h"

namespace webindex::pipeline {

class SnapshotTrims {
 public:
  //! What a snapshot record is, packed into the low 40 bits of its delivery tag.
  enum class Part { kBegin, kRow, kEnd };
  static constexpr int kTagBits = 40;

  //! Runner thread: a snapshot of `task` at `epoch` is about to be sent; returns its id.
  uint64_t Begin(int32_t task, uint64_t epoch);
  //! The delivery tag of one of its records.
  static uint64_t Tag(uint64_t id, Part part);
  //! Runner thread: snapshot `id` is not sent whole (a row too large): nothing to trim to.
  void Abandon(uint64_t id);
  //! Producer thread: the record tagged `tag` was acknowledged at `offset`, or failed.
  void OnDelivered(uint64_t tag, const Status& status, int64_t offset);

  struct Due {
    int64_t before = 0;  //!< delete the records before this offset: the snapshot's begin
    uint64_t epoch = 0;  //!< the epoch the snapshot was written at
  };
  //! Runner thread: per task, the trim its newest complete snapshot allows, if past its last one.
  std::map<int32_t, Due> Ready() const;
  //! Runner thread: records before `before` of `task`'s partition are deleted (or need not be).
  void Trimmed(int32_t task, int64_t before);
  //! Runner thread: `task` is given up: its snapshots are not this runner's to trim by any more.
  void Forget(int32_t task);

 private:
  struct Snapshot {
    int32_t task = 0;
    uint64_t epoch = 0;
    int64_t begin = -1;  // offset of the begin record, once acknowledged
    bool failed = false;
  };
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Snapshot> sending_;  // id -> snapshot not complete yet
  std::map<int32_t, Due> complete_;       // task -> newest complete snapshot
  std::map<int32_t, int64_t> trimmed_;    // task -> last trim
};

}  // namespace webindex::pipeline
