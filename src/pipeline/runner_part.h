// What the parts of one StageRunner share: its options, and a RunnerPart, the handles every part
// (outbox, flow, changelog, ownership, reports) reads through. A RunnerPart holds references
// only: the StageRunner owns what they name and outlives its parts.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "pipeline/flow_control.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {

struct RunnerOptions {
  size_t max_batch = 40000;   //!< records per commit at most
  int poll_timeout_ms = 100;  //!< wait for the first record of a batch
  uint64_t generation = 1;    //!< of the data dir: tags dead letters
  kafka::RecordLimits limits; //!< record budgets of the output topics
  std::string dead_letters = TopicNames{}.dead_letters;  //!< where records Kafka rejects are described
  //! Stages that keep a changelog (Stage::KeepsChangelog) send every task's state changes to
  //! partition `task` of ChangelogTopic(changelog_prefix, stage) (docs/scale-out.md §4).
  bool changelog = false;
  std::string changelog_prefix = "webindex.changelog.";
  //! The application id: a lone runner reports its positions as consumer group "<app_id>-<stage>".
  std::string app_id = "webindex";
  std::string instance;  //!< the data dir's id, on every changelog record
  std::string records_instance;  //!< whose records the stage writes (TopicLayout::instance), on fence markers
  //! Set: the runner is a member of this consumer group (docs/scale-out.md §3) and reads only
  //! the partitions the group assigns it. It takes each task over before reading it (drops its
  //! local rows, restores them from the changelog, fences and claims the next epoch: fence.h's
  //! TakeOverTask) and drops a task's local rows when the group takes the task away. Needs
  //! `changelog`, `admin` and a stage that names its rows' tasks (Stage::StateFamily).
  std::optional<kafka::GroupMembership> group;
  //! Outside a group: the input partitions the runner reads (a shard of a partitioned table
  //! reads one partition of webindex.exports); empty: every one.
  std::set<int32_t> partitions;
  kafka::Admin* admin = nullptr;  //!< not owned; for restores and changelog trims
  //! Not owned. Set: the runner counts what it writes to and reads from the topics `flow`
  //! watches, and takes no more input than they can take (flow_control.h).
  FlowControl* flow = nullptr;
  //! Changelog mode: a task's snapshot (changelog.h) is written after each takeover, and after a
  //! commit once the task's changelog bytes since its last snapshot exceed twice that snapshot's
  //! size and at least this many bytes.
  size_t snapshot_min_bytes = 1 << 20;
  //! Group mode: once a task's snapshot is acknowledged, the records of its changelog partition
  //! before it are deleted (changelog_trim.h), at most this often (the first time this long
  //! after the start).
  std::chrono::milliseconds trim_interval{10000};
  //! Asked right before a trim: false when another generation shares the changelog's partitions
  //! (a replay of the group is being built, or this runner's generation is retiring). Unset: yes.
  std::function<bool()> trims_allowed;
};

//! The StageRunner's handles, for the parts it is made of to derive from, so that they read them
//! under the runner's own names. Copied into each part; what they name is the runner's.
class RunnerPart {
 public:
  RunnerPart(Stage* stage, int index, int32_t input_partitions, state::Store& store, kafka::Producer& producer,
             const kafka::ClientConfig& consumer_config, Metrics& metrics, const RunnerOptions& options,
             std::unique_ptr<kafka::Consumer>& consumer, std::unique_ptr<kafka::Consumer>& side_consumer,
             std::atomic<int64_t>* positions,
             std::map<int32_t, uint64_t>& task_seqs, std::map<int32_t, uint64_t>& task_epochs,
             std::atomic<bool>& busy)
      : stage_(stage),
        index_(index),
        input_partitions_(input_partitions),
        store_(store),
        producer_(producer),
        consumer_config_(consumer_config),
        metrics_(metrics),
        options_(options),
        consumer_(consumer),
        side_consumer_(side_consumer),
        positions_(positions),
        task_seqs_(task_seqs),
        task_epochs_(task_epochs),
        busy_(busy) {}

 public:
  //! The stage's side input (Stage::side_input_topic) when its tasks can move, else "".
  const std::string& side_topic() const {
    static const std::string none;
    return options_.changelog && stage_->KeepsChangelog() ? stage_->side_input_topic() : none;
  }
  //! Where the side input partition `partition` has its position in positions_: after the input's.
  int32_t side_index(int32_t partition) const { return input_partitions_ + partition; }

 protected:

  Stage* const stage_;
  const int index_;  //!< tags the runner's records in the shared producer's delivery reports
  const int32_t input_partitions_;
  state::Store& store_;
  kafka::Producer& producer_;
  const kafka::ClientConfig& consumer_config_;
  Metrics& metrics_;
  const RunnerOptions& options_;
  std::unique_ptr<kafka::Consumer>& consumer_;  //!< made by StageRunner::Start
  //! Group mode with a side input: an assigned (not subscribed) consumer of the side input's
  //! partitions of the tasks owned (TaskOwnership::AssignSide); a lone runner's consumer reads both.
  std::unique_ptr<kafka::Consumer>& side_consumer_;
  //! Per input partition, the next offset to read, as committed; then (side_index) per side
  //! input partition.
  std::atomic<int64_t>* const positions_;
  std::map<int32_t, uint64_t>& task_seqs_;      //!< next seq of each task, as committed (runner thread)
  std::map<int32_t, uint64_t>& task_epochs_;    //!< epoch of each task (fence.h; absent: 0), as at Start
  std::atomic<bool>& busy_;                     //!< the runner is not idle
};

}  // namespace webindex::pipeline
