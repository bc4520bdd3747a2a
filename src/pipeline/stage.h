// The Stage interface: one step of the data flow that turns a batch of input records into
// state writes and outgoing records. A StageRunner owns the Kafka and commit plumbing;
// Process runs on the runner's thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "kafka/common.h"
#include "pipeline/metrics.h"
#include "pipeline/topics.h"
#include "state/store.h"

namespace webindex::pipeline {

//! What a stage may touch while processing one batch; everything it writes or emits is
//! committed atomically with the batch's input offsets.
class BatchContext {
 public:
  //! `limits` (not owned, may be null: Kafka's defaults) outlives the context. `stage` names the
  //! writer of the records this batch derives (TaskOrigin).
  BatchContext(state::Store& store, state::WriteBatch& batch, std::string_view stage, Metrics& metrics,
               uint64_t generation = 1, const kafka::RecordLimits* limits = nullptr)
      : store_(store), batch_(batch), stage_(stage), metrics_(metrics), generation_(generation), limits_(limits) {}

  state::Store& store() { return store_; }
  state::WriteBatch& batch() { return batch_; }
  Metrics& metrics() { return metrics_; }
  void Emit(OutRecord record) {
    out_.push_back(std::move(record));
    out_tasks_.push_back(-1);
  }
  //! Emits a record of task (stage, `task`). When tasks can move (set_task_epochs), it names the
  //! task and carries the task's epoch, so that receivers can drop it once the task has moved on
  //! (fence.h).
  void Emit(int32_t task, OutRecord record);
  //! The epoch of each task (absent: 0), as the runner committed them; not owned. Null (tasks
  //! stay in this data dir: no changelog) leaves records without the task headers, which cost
  //! the clients an allocation or two per record.
  void set_task_epochs(const std::map<int32_t, uint64_t>* epochs) { task_epochs_ = epochs; }
  uint64_t EpochOf(int32_t task) const;
  //! True when tasks can move between data dirs (a changelog follows them): a stage must then
  //! keep every input record's effects within the record's own task.
  bool tasks_move() const { return task_epochs_ != nullptr; }

  //! Who wrote an internal record, for the receivers' duplicate suppression.
  struct TaskOrigin {
    std::string src;  //!< "<stage>.<input partition>"
    uint64_t seq;     //!< grows by one per record of the task, across restarts (and, with state, across members)
  };
  //! The origin of the next record derived from input of `partition`: the work on one input
  //! partition is a task, and each task numbers its records on its own, so that a task's
  //! records stay in order and deduplicable wherever the task runs (docs/scale-out.md §2).
  TaskOrigin NextTaskOrigin(int32_t partition);
  //! Next seq of each task (1 when absent). The runner fills it before Process and commits the
  //! values that changed with the batch.
  std::map<int32_t, uint64_t>& task_seqs() { return task_seqs_; }

  //! A change of this batch to the state of task (stage, `task`): written to the batch and, for
  //! stages that keep a changelog, recorded for it (docs/scale-out.md §4).
  void Put(int32_t task, state::Family family, std::string_view key, std::string_view value);
  void Delete(int32_t task, state::Family family, std::string_view key);
  struct StateChange {
    int32_t task;
    state::Family family;
    std::string key;
    std::optional<std::string> value;  //!< nullopt: deleted
  };
  //! Record state changes from now on (the runner, for stages that keep a changelog).
  void RecordChanges() { record_changes_ = true; }
  std::vector<StateChange>& changes() { return changes_; }

  //! The largest record (kafka::RecordBytes) `topic` takes: stages build their records to fit.
  size_t BudgetOf(const std::string& topic) const;
  //! Sends the input record to the dead-letter topic with the reason, cut to fit (MakeDeadLetter).
  void DeadLetter(const InRecord& in, const std::string& dead_letter_topic, std::string_view reason);
  std::vector<OutRecord>& emitted() { return out_; }
  //! The task of each emitted record (Emit(task, ...)), -1 for the others, in emitted() order.
  const std::vector<int32_t>& emitted_tasks() const { return out_tasks_; }

 private:
  state::Store& store_;
  state::WriteBatch& batch_;
  std::string_view stage_;
  Metrics& metrics_;
  uint64_t generation_;
  const kafka::RecordLimits* limits_;
  std::vector<OutRecord> out_;
  std::vector<int32_t> out_tasks_;
  std::map<int32_t, uint64_t> task_seqs_;
  const std::map<int32_t, uint64_t>* task_epochs_ = nullptr;
  bool record_changes_ = false;
  std::vector<StateChange> changes_;
};

//! A dead letter carrying `key` and `value` with `headers`, cut to fit `budget` bytes
//! (kafka::RecordBytes): a key or value too long keeps its prefix (at a UTF-8 boundary) and
//! gets a header key.truncated / value.truncated with its original size in bytes.
OutRecord MakeDeadLetter(const std::string& topic, std::string_view key, std::string_view value,
                         std::vector<std::pair<std::string, std::string>> headers, size_t budget);

//! The dead letter of input record `in` refused for `reason` by a stage of `generation`: its key
//! and value with headers reason, source.topic / .partition / .offset and generation, cut to fit
//! `budget` (MakeDeadLetter). BatchContext::DeadLetter and a replay's bulk build send this.
OutRecord DeadLetterOf(const InRecord& in, const std::string& dead_letter_topic, std::string_view reason,
                       uint64_t generation, size_t budget);

//! Partition counts of the topics stages write to.
struct TopicLayout {
  TopicNames names;
  uint64_t generation = 1;  //!< tags every internal and export record; others' are skipped
  //! The data dir's id (state::DataDir::InstanceId), also on every internal and export record:
  //! a record of another data dir in these topics stops the stage (CheckInstance). "": unchecked.
  std::string instance;
  int32_t page_partitions = 1;  //!< of the pages topic: a page's task is the partition its URI hashes to
  int32_t uri_delta_partitions = 1;
  int32_t domain_delta_partitions = 1;
  int32_t export_partitions = 1;
};

//! Ok for a record written by this data dir (or by a version that did not say); otherwise why the
//! stage must stop: another data dir's processor writes to the same topics, and counting its
//! records would mix two tables' deltas. The batch is not committed, so the table stays as it was.
Status CheckInstance(const TopicLayout& layout, std::string_view record_instance, const InRecord& record);

class Stage {
 public:
  virtual ~Stage() = default;
  //! Short stable name; prefixes this stage's keys in the offsets, outbox and dedupe families.
  virtual std::string_view name() const = 0;
  virtual const std::string& input_topic() const = 0;
  //! An internal topic of as many partitions as the input that the stage's own tasks write to
  //! one another (a task p reads partition p of both), or "" for none. Read only when tasks
  //! can move (a changelog): their records then carry the forwarding task's seq and epoch.
  virtual const std::string& side_input_topic() const {
    static const std::string none;
    return none;
  }
  //! Loads what the stage keeps in memory across batches: before the first batch, and again
  //! whenever the runner's set of tasks changes (a task's rows restored or dropped).
  virtual Status Open(state::Store& store) { return Status::Ok(); }
  virtual Status Process(const std::vector<InRecord>& records, BatchContext& ctx) = 0;
  //! True when all the stage's state is written through BatchContext::Put/Delete by task, so
  //! that it can follow its tasks through a changelog.
  virtual bool KeepsChangelog() const { return false; }
  //! The family of the stage's own state rows, when every row belongs to the task TaskOfKey
  //! names: a group member drops a task's rows when the task leaves it (StageRunner). nullopt:
  //! the stage cannot run in a group.
  virtual std::optional<state::Family> StateFamily() const { return std::nullopt; }
  virtual int32_t TaskOfKey(std::string_view key) const { return 0; }
  //! Every topic the stage's tasks write records to, with its partition count (dead letters
  //! excepted): what a new owner of a task fences before it claims the task (fence.h).
  virtual std::vector<std::pair<std::string, int32_t>> Outputs() const { return {}; }
  //! True when producers outside webindex write the stage's input (crawlers, `load`): a group's
  //! task with no position yet starts where its partition starts, and names (and counts) what
  //! the broker's retention deleted before it instead of skipping it without a word.
  virtual bool ReadsExternalInput() const { return false; }
  //! A batch ends once its records' keys and values hold this many bytes (or at max_batch
  //! records): for stages whose cost grows with each byte and whose batches gain nothing from
  //! combining, where a huge batch only costs memory and cache.
  virtual size_t MaxBatchBytes() const { return SIZE_MAX; }
  //! True when Process may run while the previous batch's commit is still being written: the
  //! stage reads the rows that batch writes from its own memory, not from the store. The runner
  //! then writes a commit without outgoing records on a thread of its own while it polls and
  //! processes the next batch (StageRunner, outside a group only).
  virtual bool OverlapsCommits() const { return false; }
};

}  // namespace webindex::pipeline
