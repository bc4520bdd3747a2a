// The internal shard routes, /internal/shards/<p>[,<q>...]/...: table shards this member serves,
// read over HTTP by the other members of a partitioned table (shard_client.h), one TableRead
// operation per request. Keys and values are binary and travel as base64url:
//
//   GET /internal/shards/<p>/get?owner=<b64>&key=<b64>&key=<b64>...  {"values":[<b64>|null,...]}
//   GET /internal/shards/<p,q,..>/scan?prefix=<b64>&after=<b64>&limit=N {"cells":[[<key>,<value>],...]}
//   GET /internal/shards/<p,q,..>/domains?prefix=<b64>&limit=N       {"cells":[[<name>,<pages>],...]}
//   GET /internal/shards/<p,q,..>/totals                             {"totals":{...}|null}
//   GET /internal/shards/<p>/position?key=<b64>                       {"position":N}
//
// or a POST of the same path with the parameters as an application/x-www-form-urlencoded body
// (what members send: a key may be longer than the request line's bound allows; Api checks the
// method and passes the parameters on as a query string).
//
// `domains` scans the index of domain names (TableRead::ScanDomainIndex). A scan or totals of
// several shards (ascending partition numbers) answers for them as one: the
// first `limit` cells of their merged scans, their summed totals; so a member asks another once
// per question for all the shards it serves. A get reads one shard. Each listed shard's answer
// comes from one snapshot of it; a shard this member does not serve fails the whole request.
// `position` is the next offset one shard's sink reads, stored under `key` of its offsets
// ("<stage>/<topic>/<partition>"), -1 when none is stored: what a PageRank result of the whole
// table reflects. Members before it answer 404 to it; the other operations are unchanged.
// Stateless; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "query/table_source.h"

namespace webindex::http {

//! The source of shard `shard` when this member serves it now, else null.
using ShardLookup = std::function<std::shared_ptr<query::TableSource>(int32_t shard)>;

inline constexpr std::string_view kShardRoutePrefix = "/internal/shards/";
//! Keys of one get: a page's cells are a few; the bound keeps a request's work small.
inline constexpr size_t kMaxShardGetKeys = 64;
//! Cells of one scan: the query service asks for a page of answers and one more.
inline constexpr size_t kMaxShardScanLimit = 10001;
//! Shards of one request: a partitioned table has at most 256.
inline constexpr size_t kMaxShardsPerRequest = 256;

//! True for a target under /internal/shards/.
bool IsShardRoute(std::string_view target);

//! The JSON body answering a GET of `target` (under /internal/shards/), or its error:
//! InvalidArgument for a malformed request, NotFound for an unknown operation, Unavailable when
//! `lookup` has no source for the shard, a read's own error otherwise.
Result<std::string> AnswerShardRoute(const ShardLookup& lookup, std::string_view target);

}  // namespace webindex::http
