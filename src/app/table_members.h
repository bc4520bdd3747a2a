// TableMembers: how the members of a partitioned query table find each other (docs/scale-out.md
// §6). Every member that serves HTTP advertises, once a second on the compacted control topic
// webindex.table-members, the shards it serves and the generation of the shards' consumer group it
// serves them in (Kafka's, one more at every rebalance); every member reads the topic and asks
// for a shard it does not serve the member advertising it in the newest generation. A member that
// stops says it serves nothing; one killed is passed over once its last word is older than
// `stale_after`, or as soon as another member advertises its shards in a newer generation. A
// shard nobody advertises makes the questions that need it fail (503), never answer short.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/table_shards.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "query/table_source.h"

namespace webindex::app {

//! One member's word on the topic.
struct TableMemberRecord {
  std::string group;   //!< the shards' consumer group ("<group>.table")
  std::string member;  //!< the member's id (its data dir's instance id)
  std::string http;    //!< host:port its API answers at
  std::set<int32_t> shards;
  int32_t generation = -1;  //!< of the group, when the member served these shards
  int64_t at_ms = 0;
  //! The id of the current PageRank result in the member's results store (0: none), so that a
  //! member taking the computation over numbers its results after it.
  uint64_t pagerank_result = 0;
  bool operator==(const TableMemberRecord&) const = default;
};
std::string EncodeTableMemberRecord(const TableMemberRecord& record);
Result<TableMemberRecord> DecodeTableMemberRecord(std::string_view json);

//! Of `records`, the member that serves `shard` for group `group` as of `now_ms`: the newest
//! generation, then the newest word; words older than `stale_after_ms` and `self`'s do not count.
//! nullptr when none.
const TableMemberRecord* OwnerOf(const std::vector<TableMemberRecord>& records, const std::string& group,
                                 const std::string& self, int32_t shard, int64_t now_ms, int64_t stale_after_ms);

struct TableMembersOptions {
  kafka::ClientConfig kafka;
  std::string topic = "webindex.table-members";
  std::string group_id;  //!< the shards' consumer group
  std::string member;    //!< this member's id
  std::string http;      //!< host:port other members reach this member's API at
  std::chrono::milliseconds every{1000};
  std::chrono::milliseconds stale_after{30000};
  //! The id of this member's current PageRank result, advertised (empty: 0).
  std::function<uint64_t()> pagerank_result;
};

//! A source reading the shards `shards` (ascending) of a table of `partitions` shards from the
//! member at `http`, as one (http/shard_client.h): a question asks each member once.
using RemoteShardFactory = std::function<std::shared_ptr<query::TableSource>(
    const std::string& http, const std::vector<int32_t>& shards, int32_t partitions)>;

class TableMembers {
 public:
  //! Starts advertising `shards` (borrowed; outlives this) and reading the others' words.
  static Result<std::unique_ptr<TableMembers>> Start(TableMembersOptions options, TableShards& shards,
                                                      RemoteShardFactory remote);
  ~TableMembers();
  //! Says that this member serves nothing any more, and stops.
  void Stop();

  //! The whole table: each Read is made of this member's shards and, for each other shard, the
  //! member serving it as last heard (thread-safe).
  std::shared_ptr<query::TableSource> Table();
  //! The API address ("host:port") of the other member that serves `shard` as last heard; ""
  //! when none does (thread-safe).
  std::string AddressOf(int32_t shard) const;
  //! The highest PageRank result id any member of the group advertised (0: none; thread-safe).
  uint64_t HighestPageRankResult() const;

 private:
  TableMembers(TableMembersOptions options, TableShards& shards, RemoteShardFactory remote);
  Status Open();
  void Loop();
  void Advertise(bool serving);
  std::vector<std::shared_ptr<query::TableSource>> Sources() const;
  std::vector<TableMemberRecord> Heard() const;

  TableMembersOptions options_;
  TableShards& shards_;
  RemoteShardFactory remote_;
  std::unique_ptr<kafka::Producer> producer_;
  std::unique_ptr<kafka::Consumer> consumer_;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  mutable std::mutex mu_;
  std::map<std::string, TableMemberRecord> heard_;  //!< member -> its newest word
};

}  // namespace webindex::app
