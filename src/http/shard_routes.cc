#include "http/shard_routes.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "codec/json_writer.h"
#include "common/base64url.h"
#include "http/query_string.h"
#include "query/sharded_table.h"

namespace webindex::http {
namespace {

//! A shard route's request: the shard, the operation and its parameters in order (`key` repeats,
//! so they are not the map ParseTarget makes).
struct ShardRequest {
  std::vector<int32_t> shards;  //!< ascending
  std::string op;
  std::vector<std::pair<std::string, std::string>> params;  //!< percent-decoded
};

Result<ShardRequest> ParseShardRequest(std::string_view target) {
  target.remove_prefix(kShardRoutePrefix.size());
  std::string_view path = target, query;
  if (const size_t q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q + 1);
  }
  ShardRequest r;
  const size_t slash = path.find('/');
  std::string_view numbers = path.substr(0, slash);
  while (true) {
    const size_t comma = numbers.find(',');
    const std::string_view number = numbers.substr(0, comma);
    int32_t shard = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), shard);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || shard < 0 ||
        (!r.shards.empty() && shard <= r.shards.back()) || r.shards.size() >= kMaxShardsPerRequest) {
      return Status::InvalidArgument(
          "the shards must be partition numbers in ascending order, at most " + std::to_string(kMaxShardsPerRequest) +
          ": /internal/shards/<p>[,<q>...]/get|scan|domains|totals|position");
    }
    r.shards.push_back(shard);
    if (comma == std::string_view::npos) break;
    numbers.remove_prefix(comma + 1);
  }
  if (slash == std::string_view::npos) {
    return Status::NotFound("no operation: /internal/shards/<p>/get|scan|domains|totals|position");
  }
  r.op = std::string(path.substr(slash + 1));
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    ASSIGN_OR_RETURN(std::string name, PercentDecode(part.substr(0, eq), false));
    ASSIGN_OR_RETURN(std::string value,
                     PercentDecode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), false));
    r.params.emplace_back(std::move(name), std::move(value));
  }
  return r;
}

//! The decoded bytes of parameter `name`: nullopt when absent; InvalidArgument when given twice
//! or not base64url.
Result<std::optional<std::string>> BytesParam(const ShardRequest& r, std::string_view name) {
  std::optional<std::string> bytes;
  for (const auto& [n, v] : r.params) {
    if (n != name) continue;
    if (bytes) return Status::InvalidArgument("parameter '" + std::string(name) + "' given twice");
    auto decoded = Base64UrlDecode(v);
    if (!decoded.ok()) {
      return Status::InvalidArgument("parameter '" + std::string(name) + "': " + decoded.status().message());
    }
    bytes = std::move(decoded).value();
  }
  return bytes;
}

//! InvalidArgument naming the first parameter `r.op` does not take.
Status CheckNames(const ShardRequest& r, std::initializer_list<std::string_view> names) {
  for (const auto& [n, v] : r.params) {
    if (std::find(names.begin(), names.end(), n) == names.end()) {
      return Status::InvalidArgument("unknown parameter '" + n + "' of " + r.op);
    }
  }
  return Status::Ok();
}

Result<std::string> GetJson(query::TableRead& read, const ShardRequest& r) {
  RETURN_IF_ERROR(CheckNames(r, {"owner", "key"}));
  ASSIGN_OR_RETURN(auto owner, BytesParam(r, "owner"));
  if (!owner) return Status::InvalidArgument("missing parameter 'owner'");
  std::vector<std::string> keys;
  for (const auto& [n, v] : r.params) {
    if (n != "key") continue;
    auto key = Base64UrlDecode(v);
    if (!key.ok()) return Status::InvalidArgument("parameter 'key': " + key.status().message());
    keys.push_back(std::move(key).value());
  }
  if (keys.empty() || keys.size() > kMaxShardGetKeys) {
    return Status::InvalidArgument("get takes 1 to " + std::to_string(kMaxShardGetKeys) + " keys");
  }
  ASSIGN_OR_RETURN(auto values, read.Get(*owner, keys));
  codec::JsonWriter w;
  w.BeginObject().Key("values").BeginArray();
  for (const auto& value : values) {
    if (value) {
      w.String(Base64UrlEncode(*value));
    } else {
      w.Null();
    }
  }
  return w.EndArray().EndObject().Take();
}

//! A scan of the table (`domains`: of the index of domain names, which takes no `after`).
Result<std::string> ScanJson(query::TableRead& read, const ShardRequest& r, bool domains) {
  if (domains) {
    RETURN_IF_ERROR(CheckNames(r, {"prefix", "limit"}));
  } else {
    RETURN_IF_ERROR(CheckNames(r, {"prefix", "after", "limit"}));
  }
  ASSIGN_OR_RETURN(auto prefix, BytesParam(r, "prefix"));
  ASSIGN_OR_RETURN(auto after, BytesParam(r, "after"));
  const std::string bound = "limit must be a number between 1 and " + std::to_string(kMaxShardScanLimit);
  std::optional<std::string> limit_text;
  for (const auto& [n, v] : r.params) {
    if (n != "limit") continue;
    if (limit_text) return Status::InvalidArgument("parameter 'limit' given twice");
    limit_text = v;
  }
  if (!limit_text) return Status::InvalidArgument(bound);
  size_t limit = 0;
  const std::string& v = *limit_text;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), limit);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || limit < 1 || limit > kMaxShardScanLimit) {
    return Status::InvalidArgument(bound);
  }
  std::vector<query::KeyValue> cells;
  if (domains) {
    RETURN_IF_ERROR(read.ScanDomainIndex(prefix.value_or(""), limit, &cells));
  } else {
    RETURN_IF_ERROR(read.Scan(prefix.value_or(""), after.value_or(""), limit, &cells));
  }
  codec::JsonWriter w;
  w.BeginObject().Key("cells").BeginArray();
  for (const auto& cell : cells) {
    w.BeginArray().String(Base64UrlEncode(cell.key)).String(Base64UrlEncode(cell.value)).EndArray();
  }
  return w.EndArray().EndObject().Take();
}

Result<std::string> TotalsJson(query::TableRead& read, const ShardRequest& r) {
  RETURN_IF_ERROR(CheckNames(r, {}));
  ASSIGN_OR_RETURN(auto totals, read.Totals());
  codec::JsonWriter w;
  w.BeginObject().Key("totals");
  if (totals) {
    w.BeginObject().Key("pages").Uint(totals->pages).Key("crawled").Uint(totals->crawled);
    w.Key("linked").Uint(totals->linked).Key("links").Uint(totals->links).Key("domains").Uint(totals->domains);
    w.EndObject();
  } else {
    w.Null();
  }
  return w.EndObject().Take();
}

Result<std::string> PositionJson(query::TableRead& read, const ShardRequest& r) {
  RETURN_IF_ERROR(CheckNames(r, {"key"}));
  ASSIGN_OR_RETURN(auto key, BytesParam(r, "key"));
  if (!key || key->empty()) return Status::InvalidArgument("missing parameter 'key'");
  ASSIGN_OR_RETURN(int64_t position, read.Position(r.shards.front(), *key));
  codec::JsonWriter w;
  return w.BeginObject().Key("position").Int(position).EndObject().Take();
}

}  // namespace

bool IsShardRoute(std::string_view target) { return target.starts_with(kShardRoutePrefix); }

Result<std::string> AnswerShardRoute(const ShardLookup& lookup, std::string_view target) {
  ASSIGN_OR_RETURN(ShardRequest r, ParseShardRequest(target));
  if (r.op != "get" && r.op != "scan" && r.op != "domains" && r.op != "totals" && r.op != "position") {
    return Status::NotFound("no such shard operation '" + r.op + "': get, scan, domains, totals or position");
  }
  if (r.op == "get" && r.shards.size() != 1) {
    return Status::InvalidArgument("a get reads the one shard of its owner: /internal/shards/<p>/get");
  }
  if (r.op == "position" && r.shards.size() != 1) {
    return Status::InvalidArgument("a position is one shard's: /internal/shards/<p>/position");
  }
  std::vector<std::shared_ptr<query::TableSource>> sources;
  std::string unserved;
  for (int32_t shard : r.shards) {
    sources.push_back(lookup ? lookup(shard) : nullptr);
    if (!sources.back()) unserved += (unserved.empty() ? "" : ", ") + std::to_string(shard);
  }
  if (!unserved.empty()) return Status::Unavailable("this member does not serve table shard(s) " + unserved + " now");
  // Several shards are answered as one: their scans merged, their totals summed.
  const std::unique_ptr<query::TableRead> read =
      sources.size() == 1 ? sources[0]->Read() : query::ShardedTableSource(std::move(sources)).Read();
  if (r.op == "get") return GetJson(*read, r);
  if (r.op == "scan" || r.op == "domains") return ScanJson(*read, r, r.op == "domains");
  if (r.op == "position") return PositionJson(*read, r);
  return TotalsJson(*read, r);
}

}  // namespace webindex::http
