// StageRunner drives one Stage on its own thread: poll a batch, process it, commit state,
// input offsets and outgoing records in one RocksDB write (the outbox), then hand the
// records to Kafka and delete them from the outbox once acknowledged. A crash at any
// instant leaves either the whole batch or none of it, and the outbox re-sends on start.
// StageRunner is the loop and the commit; its parts hold the rest: Outbox (outbox.h),
// RunnerFlow (runner_flow.h), TaskChangelog (task_changelog.h), TaskOwnership
// (task_ownership.h), PositionReports (position_reports.h); its keys are in runner_keys.h.
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "pipeline/fence.h"
#include "pipeline/flow_control.h"
#include "pipeline/outbox.h"
#include "pipeline/position_reports.h"
#include "pipeline/runner_flow.h"
#include "pipeline/runner_keys.h"
#include "pipeline/runner_part.h"
#include "pipeline/stage.h"
#include "pipeline/task_changelog.h"
#include "pipeline/task_ownership.h"

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
  std::set<int32_t> Owned() const { return ownership_.Owned(); }
  bool in_group() const { return options_.group.has_value(); }
  //! Group mode: the assignment is settled (TaskOwnership::settled).
  bool settled() const { return ownership_.settled(); }
  uint64_t taken_over() const { return ownership_.taken_over(); }
  uint64_t given_up() const { return ownership_.given_up(); }

  const Stage& stage() const { return *stage_; }
  int32_t input_partitions() const { return input_partitions_; }
  //! Next offset to read per input partition, as committed (the side input's aside).
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
  std::map<int32_t, int64_t> trims_asked() const { return changelog_.trims_asked(); }
  bool trims_off() const { return changelog_.trims_off(); }

 private:
  void Loop();
  //! The next input, as much as flow control lets in (none while the stages downstream are
  //! behind; a group member is polled then all the same, its partitions held).
  Status PollInput(int timeout_ms, kafka::MessageBatch* batch);
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

  std::unique_ptr<Stage> stage_;
  const int index_;
  const int32_t input_partitions_;
  state::Store& store_;
  kafka::Producer& producer_;
  kafka::ClientConfig consumer_config_;
  Metrics& metrics_;
  RunnerOptions options_;

  std::unique_ptr<kafka::Consumer> consumer_;
  std::unique_ptr<kafka::Consumer> side_consumer_;  // RunnerPart::side_consumer_
  kafka::MessageBatch side_batch_;                  // what PollInput took from side_consumer_
  std::optional<std::chrono::steady_clock::time_point> held_since_;  // flow control let nothing in since
  std::thread thread_;
  Status result_;
  std::unique_ptr<std::atomic<int64_t>[]> positions_;
  // PausePoint names (common/crash_point.h).
  const std::string pause_committed_;
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
  std::map<int32_t, uint64_t> task_epochs_;  // epoch of each task (fence.h; absent: 0), as at Start

  // The parts, last: they hold references to the members above.
  RunnerPart shared_;
  RunnerFlow flow_;
  Outbox outbox_;
  TaskChangelog changelog_;
  TaskOwnership ownership_;
  PositionReports reports_;
};

}  // namespace webindex::pipeline
