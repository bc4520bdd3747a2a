// The consumer: reads partitions from offsets its caller keeps (never Kafka's), alone or as a
// member of a consumer group whose rebalances it hands to a RebalanceListener. Owns one
// librdkafka handle and, through MessageBatch, the messages it hands out. One thread calls it, and
// the listener runs on that thread (inside PollBatch and Close); RebalanceUnderWay, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "kafka/common.h"

namespace webindex::kafka {

struct TopicPartitionOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;  //!< next offset to read; kBeginning when none is stored
};
inline constexpr int64_t kBeginning = -2;
//! A partition's end (what is appended from now on).
inline constexpr int64_t kEnd = -1;

//! Records handed out by Consumer::PollBatch; owns the client's message buffers.
class MessageBatch {
 public:
  MessageBatch();
  ~MessageBatch();
  MessageBatch(MessageBatch&&) noexcept;
  const std::vector<InRecord>& records() const { return records_; }
  bool empty() const { return records_.empty(); }
  //! Headers of records()[i], copied.
  std::vector<std::pair<std::string, std::string>> Headers(size_t i) const;
  void Clear();

 private:
  friend class Consumer;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<InRecord> records_;
};

//! A consumer group member's view of rebalances (docs/scale-out.md §3). Called on the thread
//! that polls, from inside PollBatch.
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  //! The group gave these partitions to this member: returns them with the offset to start
  //! reading each at (kBeginning where nothing is stored). Offsets in Kafka are never used.
  virtual std::vector<TopicPartitionOffset> OnAssigned(const std::vector<TopicPartitionOffset>& partitions) = 0;
  //! These partitions are taken away. `lost`: this member was dropped from the group (its
  //! session timed out, e.g. while paused) and another member may own them already.
  virtual void OnRevoked(const std::vector<TopicPartitionOffset>& partitions, bool lost) = 0;
};

//! How a consumer joins a group whose protocol assigns it partitions.
struct GroupMembership {
  std::string group_id;
  //! KIP-345 static membership: a member restarted under the same id within the session
  //! timeout gets its partitions back without a rebalance. "": dynamic member.
  std::string instance_id;
  int session_timeout_ms = 10000;
  //! cooperative-sticky (KIP-429): a rebalance revokes only the partitions that move.
  std::string assignment_strategy = "cooperative-sticky";
};

//! Reads partitions from explicit offsets (positions live in RocksDB, never in Kafka's group
//! offsets): assigned by the caller (Create, Assign) or by the group protocol (Join,
//! Subscribe). One thread.
class Consumer {
 public:
  static Result<std::unique_ptr<Consumer>> Create(const ClientConfig& config, const std::string& group);
  //! A group member: partitions come and go through `listener` (not owned, outlives the consumer).
  static Result<std::unique_ptr<Consumer>> Join(const ClientConfig& config, const GroupMembership& membership,
                                                RebalanceListener* listener);
  ~Consumer();
  Status Assign(const std::vector<TopicPartitionOffset>& partitions);
  //! Group members: asks for the partitions of `topics`; they arrive through the listener
  //! while polling.
  Status Subscribe(const std::vector<std::string>& topics);
  //! The partitions this consumer reads now (offsets not filled in).
  std::vector<TopicPartitionOffset> Assignment() const;
  //! "COOPERATIVE", "EAGER", or "NONE" before the first assignment of a group member.
  std::string RebalanceProtocol() const;
  //! Group members: the generation of the group this member last joined (Kafka's generation id,
  //! one more at every rebalance), as the client knows it; -1 when it has none or cannot tell.
  int32_t GroupGeneration() const;
  //! Group members: the client is between the rebalance it has learnt of (or its first join)
  //! and the end of it, as its join state tells. A commit sent now carries a generation that
  //! may be over before the commit arrives, and librdkafka 2.0 takes the refusal (illegal
  //! generation) for the loss of the whole assignment (librdkafka issue 4059, fixed in 2.10):
  //! no commit is sent then but a claim's own (ConfirmAssignment from the listener). Thread-safe.
  bool RebalanceUnderWay() const;
  //! Leaves the group (a static member stays until its session times out) and stops reading;
  //! waits for the offset commits still pending, with the brokers gone up to the session
  //! timeout and 5 s more (then drops them).
  void Close();
  //! Waits up to `timeout_ms` for a first record, then takes what is ready, up to `max` records
  //! and until their keys and values hold `max_bytes` or more.
  Status PollBatch(size_t max, int timeout_ms, MessageBatch* out, size_t max_bytes = SIZE_MAX);
  //! Holds or releases the assigned partitions (and those assigned while held): a held consumer
  //! fetches nothing, and PollBatch goes on serving the group (rebalances, the poll interval)
  //! without handing out records of them. Records fetched ahead are dropped, and fetched again
  //! from the position after the last one handed out once released. A group member that is not
  //! polled for longer than its session timeout and 5 s leaves the group (max.poll.interval.ms):
  //! a caller that cannot take records for longer holds the consumer and keeps polling it.
  Status Hold(bool held);
  //! Group members: how long the member has been out of the steady state (joining, or in a
  //! rebalance) in ms, 0 while it is steady; and the client's join state ("wait-join", ...).
  //! Thread-safe.
  int64_t UnsettledForMs() const;
  std::string JoinState() const;
  //! Number of consume errors seen (logged as they happen).
  uint64_t error_count() const;
  //! Publishes positions as the group's committed offsets, without waiting, for whoever watches
  //! the group's lag (kafka-consumer-groups, `webindex load` on the embedded broker). They are
  //! never read back: a stage's positions live in its store. Group members: none while a
  //! rebalance is under way (RebalanceUnderWay).
  void ReportPositions(const std::vector<TopicPartitionOffset>& positions);
  //! Group members: commits `positions` and waits up to `timeout_ms` for the coordinator's
  //! answer. Ok means the group's current generation still counts this member and its
  //! assignment was not lost: no other member can have been given these partitions since this
  //! one got them (they move only through a rebalance this member takes part in, or after the
  //! group dropped it, and then the commit fails: unknown member, illegal generation). Aborted
  //! when the answer says this member's generation is over (unknown member, illegal generation,
  //! fenced instance, assignment lost); Unavailable when it tells nothing (a rebalance under way,
  //! no coordinator, no answer within `timeout_ms`).
  Status ConfirmAssignment(const std::vector<TopicPartitionOffset>& positions, int timeout_ms);
  //! The group's committed offset of each partition of `topic` (-1: none).
  Result<std::vector<int64_t>> Committed(const std::string& topic, int32_t partitions, int timeout_ms);

  //! Input removed by retention before it was read: [from, to) of a partition, skipped.
  struct DataLoss {
    std::string topic;
    int32_t partition = 0;
    int64_t from = 0, to = 0;
  };
  //! Data losses detected since the last call.
  std::vector<DataLoss> TakeDataLoss();

 private:
  struct Impl;
  explicit Consumer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace webindex::kafka
