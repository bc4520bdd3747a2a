// Outbox: the records of one StageRunner's commits, from the commit that writes them (one kOutbox
// row per commit, its records numbered by seq) until Kafka acknowledges them. It sends a row's
// changelog records first and holds the others until those are acknowledged, tracks the
// acknowledgements, replaces a record Kafka rejects for good by a dead letter under the same seq,
// and adds the deletion of fully acknowledged rows to the runner's next commit.
// Owned by the StageRunner. Runner thread, but OnDelivered (the producer's thread, under
// acked_mu_). Calls the producer, the store (reads; deletions go into the caller's WriteBatch)
// and RunnerFlow. Crash: a row is written in the commit that makes its records and deleted only by
// a later commit once every record of it is acknowledged, so a kill -9 at any instant leaves each
// unacknowledged record in a row on disk; Resend sends every row again at the start, in order,
// and receivers drop the copies they already applied (per-key seq).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/runner_flow.h"
#include "pipeline/runner_part.h"

namespace webindex::pipeline {

class Outbox : private RunnerPart {
 public:
  Outbox(const RunnerPart& part, RunnerFlow& flow) : RunnerPart(part), flow_(flow) {}

  //! Start: the next seq, as committed.
  Status LoadSeq();
  //! Start: sends again every row an earlier run committed (maybe never acknowledged), in order,
  //! and loads the lists of their TaskOutboxKeys. Until then nothing of the outbox is deleted.
  Status Resend();
  //! Sends the records of one outbox row, `first` being the seq of recs[0]: its changelog records
  //! now, the others once those are acknowledged (docs/scale-out.md §5, step 4: a batch's outputs
  //! exist only after its changelog records do), and after every earlier row's.
  Status Dispatch(std::vector<OutRecord>& recs, uint64_t first);
  //! Sends the held records whose changelog records are acknowledged, oldest row first.
  Status ReleaseHeld();
  //! Releases held records until none is left (`until_acked`: and every record sent is
  //! acknowledged), the deadline passes, or a delivery or send fails (that error).
  Status DrainHeld(std::chrono::steady_clock::time_point deadline, bool until_acked = false);
  bool IsChangelog(const OutRecord& record) const;
  //! SetAside for the records rejected in delivery reports since the last call.
  Status SetAsideRejected();
  //! Producer thread: a record of this outbox was acknowledged (or failed).
  void OnDelivered(uint64_t seq, const Status& status);
  //! The first error of a delivery report (not a rejection), which stops the stage.
  Status delivery_error();
  //! Outbox records below this seq are all acknowledged.
  uint64_t AckedBelow();
  //! Outbox rows below this seq hold only acknowledged records (runner thread).
  uint64_t DeletableBelow();
  //! Adds the deletion of the outbox rows below `until` (DeletableBelow) not deleted yet; true if any.
  bool DeleteAcked(state::WriteBatch& wb, uint64_t until);
  //! A commit wrote a row of `records` records at next_seq() (none: no row) with the
  //! TaskOutboxKeys of its task records; returns the row's first seq.
  uint64_t AddRow(size_t records, std::vector<std::pair<int32_t, std::string>> task_keys);

  uint64_t next_seq() const { return next_seq_; }
  uint64_t deleted_below() const { return deleted_below_; }
  bool holding() const { return !held_.empty(); }
  uint64_t unacked() const { return unacked_; }
  //! Changelog mode: per outbox row not deleted yet, its TaskOutboxKeys (task, key): their
  //! tombstones go to the changelog with the commit that deletes the row.
  const std::map<uint64_t, std::vector<std::pair<int32_t, std::string>>>& row_task_keys() const {
    return row_task_keys_;
  }

 private:
  //! Sends a committed record; it stays in the outbox until acknowledged. `counted`: unacked_
  //! counts it already (it was held).
  Status Send(const OutRecord& record, uint64_t seq, bool counted = false);
  //! The first held record's seq (UINT64_MAX when none is held).
  uint64_t FirstHeld() const;
  //! A record Kafka will never take: logged, counted, and replaced under the same seq by a dead
  //! letter describing it, so it leaves the outbox once that is acknowledged and never blocks
  //! the records after it (nor a restart).
  Status SetAside(const OutRecord& record, uint64_t seq, const Status& why);
  //! Treats `seq` as acknowledged.
  void Forget(uint64_t seq);

  RunnerFlow& flow_;
  uint64_t next_seq_ = 1;
  std::atomic<uint64_t> unacked_{0};
  std::mutex acked_mu_;
  std::set<uint64_t> in_flight_;  // sent, not yet acknowledged
  // seq -> the reason of the dead letter in flight under it: one that replaces a rejected record,
  // or a record sent to the dead-letter topic as it is
  std::map<uint64_t, std::string> replaced_;
  std::map<uint64_t, std::string> dead_letters_in_flight_;
  std::vector<std::pair<uint64_t, Status>> rejected_;  // rejected in delivery reports, not set aside yet
  Status delivery_error_;
  uint64_t deleted_below_ = 0;    // outbox records below this are deleted (runner thread)
  std::set<uint64_t> rows_;       // first seq of each outbox row not deleted yet (runner thread)
  uint64_t sent_below_ = 1;       // every outbox record below this was handed to the producer (runner thread)
  bool started_ = false;          // Resend sent the whole outbox; until then nothing of it is deleted
  //! Records of a committed row waiting for its changelog records [gate_from, gate_to) to be
  //! acknowledged (runner thread), in row order.
  struct Held {
    uint64_t gate_from = 0, gate_to = 0;
    std::vector<std::pair<uint64_t, OutRecord>> records;
  };
  std::deque<Held> held_;
  std::map<uint64_t, std::vector<std::pair<int32_t, std::string>>> row_task_keys_;  // row_task_keys()
};

}  // namespace webindex::pipeline
