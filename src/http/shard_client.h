// RemoteShardSource: a table shard another member of a partitioned table serves, read through
// its internal shard routes (shard_routes.h), so that ShardedTableSource can merge shards kept
// anywhere in the group. Each Get, Scan and Totals is one HTTP/1.1 GET to that member, on one
// keep-alive connection per TableRead, bounded by a timeout. The member answers each request
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

#include "query/table_source.h"

namespace webindex::http {

class RemoteShardSource final : public query::TableSource {
 public:
  //! `address`: "host:port" ("[v6]:port") of the member's HTTP API; `timeout` bounds each
  //! request: connecting, sending and receiving the answer.
  RemoteShardSource(std::string address, int32_t shard,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  //! Connects on its first request; use from one thread at a time.
  std::unique_ptr<query::TableRead> Read() override;

  const std::string& address() const { return address_; }
  int32_t shard() const { return shard_; }

 private:
  std::string address_;
  int32_t shard_;
  std::chrono::milliseconds timeout_;
};

}  // namespace webindex::http
