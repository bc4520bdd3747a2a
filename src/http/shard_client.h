// RemoteShardSource: the table shards another member of a partitioned table serves, read through
// its internal shard routes (shard_routes.h), so that ShardedTableSource can merge shards kept
// anywhere in the group. Each Get, Scan, Totals and Position is one HTTP/1.1 POST to that
// member, its parameters in a form body however long the keys, on one keep-alive connection per
// TableRead, bounded by a timeout: a scan or the totals of all the shards the source reads are one
// request (the member merges them), a get asks its owner's shard. The member answers each request
// from a snapshot of its own; the requests of one TableRead may see different snapshots of the
// shard (the query service pages by cursors, which do not need one).
//
// Any failure (no connection, no answer within the timeout, an error status, a body that does
// not parse or answers another question) is Status::Unavailable naming the shard and the
// member, never a short answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "query/table_source.h"

namespace webindex::http {

class RemoteShardSource final : public query::TableSource {
 public:
  //! `address`: "host:port" ("[v6]:port") of the member's HTTP API; `timeout` bounds each
  //! request: connecting, sending and receiving the answer.
  RemoteShardSource(std::string address, int32_t shard,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  //! The shards `shards` (ascending) of a table of `partitions` shards, all served by the member
  //! at `address`: a get asks the shard of its owner (pipeline::PartitionFor), which must be one
  //! of them.
  RemoteShardSource(std::string address, std::vector<int32_t> shards, int32_t partitions,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  //! Connects on its first request; use from one thread at a time.
  std::unique_ptr<query::TableRead> Read() override;

  const std::string& address() const { return address_; }
  const std::vector<int32_t>& shards() const { return shards_; }

 private:
  std::string address_;
  std::vector<int32_t> shards_;
  int32_t partitions_ = 0;  //!< 0: one shard, asked for every key
  std::chrono::milliseconds timeout_;
};

}  // namespace webindex::http
