// TableShards: one member's share of a partitioned query table (docs/scale-out.md §6). Shard p
// is the table rows that partition p of webindex.exports writes. The member joins consumer group
// `<group>.table` on the exports topic (cooperative-sticky: a rebalance moves only the shards
// that change hands) and keeps the shards the group gives it, each in a store of its own
// (<dir>/shard-<p>) filled by a sink that reads partition p only. A shard serves once its sink
// has read the partition up to its end as of the shard's arrival: a fresh shard reads it from
// the start, a shard this data dir kept from an earlier ownership reads on from where it stopped.
// A shard taken away stops; its store stays as the local copy. A shard whose partition lacks
// records it has not read (retention deleted them) is refused, never served short.
//
// What this member serves is in Sources(): only the shards it holds, ready, and only while the
// group has confirmed its assignment within the session timeout, so that a member woken from a
// pause longer than that serves nothing until the group says what it still owns.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kafka/admin.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "pipeline/metrics.h"
#include "pipeline/stage.h"
#include "pipeline/stage_runner.h"
#include "query/table_source.h"
#include "state/store.h"

namespace webindex::app {

struct TableShardsOptions {
  std::string dir;       //!< the shards' stores: <dir>/shard-<p>
  std::string group_id;  //!< the consumer group sharing the shards: "<group>.table"
  int session_timeout_ms = 10000;
  kafka::ClientConfig kafka;
  pipeline::TopicLayout layout;    //!< of the generation the shards belong to
  pipeline::RunnerOptions runner;  //!< each shard's sink runner starts from these
  state::StoreOptions store;
  //! Tests: called on the thread that stops a shard's sink, before it stops (a slow stop).
  std::function<void(int32_t shard)> before_sink_stops;
};

class TableShards final : public kafka::RebalanceListener {
 public:
  //! Joins the group and starts keeping the shards it assigns.
  static Result<std::unique_ptr<TableShards>> Start(TableShardsOptions options, pipeline::Metrics& metrics);
  ~TableShards() override;
  //! Leaves the group; stops every shard's sink (their stores stay on disk).
  void Stop();

  //! The shards this member holds caught up (thread-safe).
  std::set<int32_t> Ready() const;
  //! Per partition of the exports topic, a source for each shard this member serves now, null
  //! for the others (thread-safe; a source stays readable after its shard moved).
  std::vector<std::shared_ptr<query::TableSource>> Sources() const;
  const std::string& group_id() const { return options_.group_id; }
  //! The shards' consumer group's generation as this member last confirmed it (-1: none yet).
  int32_t group_generation() const { return generation_; }
  //! Shards given to this member that read on from the copy its data dir kept of them.
  uint64_t resumed_locally() const { return resumed_locally_; }
  //! Set once the member stopped for an error (a shard's sink failed, the group could not be
  //! joined): the error.
  std::optional<Status> failure() const;

  std::vector<kafka::TopicPartitionOffset> OnAssigned(const std::vector<kafka::TopicPartitionOffset>& partitions) override;
  void OnRevoked(const std::vector<kafka::TopicPartitionOffset>& partitions, bool lost) override;

 private:
  struct Shard {
    std::shared_ptr<state::Store> store;           //!< kept open while this process runs
    bool pending = false;  //!< given by the group, its sink not started yet
    std::unique_ptr<pipeline::StageRunner> runner;  //!< while the shard is this member's
    int64_t ready_at = 0;                           //!< the partition's end when the shard arrived
    bool ready = false;
    //! The sink of an earlier ownership, stopping on a thread of its own; the shard is not given
    //! back to a new sink (the same store) until it has stopped.
    std::unique_ptr<pipeline::StageRunner> retiring;
    std::future<Status> retired;
  };

  TableShards(TableShardsOptions options, pipeline::Metrics& metrics);
  Status Join();
  void Loop();
  //! Starts the sinks of shards the group gave and finishes the stops of those it took away:
  //! the rebalance callbacks only note the change, as stopping a sink can outlast the group's
  //! rebalance timeout on a slow machine (the member would be dropped and every shard move).
  void Settle();
  Status Give(int32_t p);
  //! Stops the shard's sink on a thread of its own (the shard stops serving at once).
  void TakeAway(int32_t p);
  //! Marks shards ready whose sinks reached their ends; a failed sink stops the member.
  void WatchShards();
  void Confirm();
  void Fail(Status st);

  TableShardsOptions options_;
  pipeline::Metrics& metrics_;
  int32_t partitions_ = 0;
  std::unique_ptr<kafka::Admin> admin_;
  std::unique_ptr<kafka::Producer> producer_;  //!< the sinks' dead letters
  std::unique_ptr<kafka::Consumer> consumer_;  //!< the group's member; held, it reads nothing
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> resumed_locally_{0};
  std::atomic<int32_t> generation_{-1};

  mutable std::mutex mu_;
  std::map<int32_t, Shard> shards_;              //!< every shard opened since the start
  std::chrono::steady_clock::time_point confirmed_at_{};  //!< the group's last confirmation
  std::optional<Status> failure_;
};

}  // namespace webindex::app
