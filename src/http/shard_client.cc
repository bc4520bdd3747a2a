#include "http/shard_client.h"

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "common/base64url.h"
#include "http/http_client.h"
#include "http/shard_routes.h"
#include "pipeline/topics.h"

namespace webindex::http {
namespace {

//! The most one answer may take: a scan of kMaxShardScanLimit cells with their values.
constexpr uint64_t kMaxBody = uint64_t{256} << 20;

//! One TableRead's connection to the member: each operation is one request on it.
class RemoteRead final : public query::TableRead {
 public:
  RemoteRead(std::string address, std::vector<int32_t> shards, int32_t partitions, std::chrono::milliseconds timeout)
      : address_(address), shards_(std::move(shards)), partitions_(partitions), client_(std::move(address), timeout) {
    for (int32_t shard : shards_) names_ += (names_.empty() ? "" : ",") + std::to_string(shard);
  }
  bool remote() const override { return true; }

  Result<std::vector<std::optional<std::string>>> Get(std::string_view owner,
                                                      const std::vector<std::string>& keys) override {
    std::vector<std::optional<std::string>> values;
    if (keys.empty()) return values;
    if (keys.size() > kMaxShardGetKeys) {
      return Fail("a get of " + std::to_string(keys.size()) + " keys (at most " +
                  std::to_string(kMaxShardGetKeys) + ")");
    }
    const int32_t shard = partitions_ > 0 ? pipeline::PartitionFor(owner, partitions_) : shards_.front();
    if (!std::binary_search(shards_.begin(), shards_.end(), shard)) {
      return Fail("the rows of this key are in shard " + std::to_string(shard) + ", which this member is not asked for");
    }
    std::string target = std::string(kShardRoutePrefix) + std::to_string(shard) + "/get?owner=" + Base64UrlEncode(owner);
    for (const std::string& key : keys) target += "&key=" + Base64UrlEncode(key);
    ASSIGN_OR_RETURN(std::string body, Fetch(target));
    simdjson::padded_string padded(body);
    simdjson::ondemand::document doc;
    simdjson::ondemand::array array;
    if (parser_.iterate(padded).get(doc) || doc.find_field("values").get_array().get(array)) {
      return Fail("the answer to a get is not {\"values\":[...]}");
    }
    for (auto item : array) {
      simdjson::ondemand::value value;
      simdjson::ondemand::json_type type;
      if (item.get(value) || value.type().get(type)) return Fail("the answer to a get does not parse");
      if (type == simdjson::ondemand::json_type::null) {
        values.emplace_back();
        continue;
      }
      ASSIGN_OR_RETURN(std::string bytes, Bytes(value, "a value"));
      values.emplace_back(std::move(bytes));
    }
    if (values.size() != keys.size()) {
      return Fail("the answer to a get of " + std::to_string(keys.size()) + " keys has " +
                  std::to_string(values.size()) + " values");
    }
    return values;
  }

  Status Scan(std::string_view prefix, std::string_view after, size_t limit,
              std::vector<query::KeyValue>* out) override {
    out->clear();
    if (limit == 0) return Status::Ok();
    if (limit > kMaxShardScanLimit) {
      return Fail("a scan of " + std::to_string(limit) + " cells (at most " + std::to_string(kMaxShardScanLimit) +
                  ")");
    }
    ASSIGN_OR_RETURN(std::string body, Fetch(Prefix() + "scan?prefix=" + Base64UrlEncode(prefix) + "&after=" +
                                             Base64UrlEncode(after) + "&limit=" + std::to_string(limit)));
    return Cells(body, prefix, after, limit, out);
  }

  Status ScanDomainIndex(std::string_view prefix, size_t limit, std::vector<query::KeyValue>* out) override {
    out->clear();
    if (limit == 0) return Status::Ok();
    if (limit > kMaxShardScanLimit) {
      return Fail("a scan of " + std::to_string(limit) + " domains (at most " + std::to_string(kMaxShardScanLimit) +
                  ")");
    }
    ASSIGN_OR_RETURN(std::string body, Fetch(Prefix() + "domains?prefix=" + Base64UrlEncode(prefix) + "&limit=" +
                                             std::to_string(limit)));
    return Cells(body, prefix, "", limit, out);
  }

  Result<int64_t> Position(int32_t shard, std::string_view key) override {
    // A member serving several shards keeps a position for each: asked of the shard named.
    ASSIGN_OR_RETURN(std::string body, Fetch(std::string(kShardRoutePrefix) + std::to_string(shard) +
                                             "/position?key=" + Base64UrlEncode(key)));
    simdjson::padded_string padded(body);
    simdjson::ondemand::document doc;
    int64_t position = 0;
    if (parser_.iterate(padded).get(doc) || doc.find_field("position").get_int64().get(position) || position < -1) {
      return Fail("the answer to position is not {\"position\":N}");
    }
    return position;
  }

  Result<std::optional<sink::TableTotals>> Totals() override {
    ASSIGN_OR_RETURN(std::string body, Fetch(Prefix() + "totals"));
    simdjson::padded_string padded(body);
    simdjson::ondemand::document doc;
    simdjson::ondemand::value value;
    simdjson::ondemand::json_type type;
    if (parser_.iterate(padded).get(doc) || doc.find_field("totals").get(value) || value.type().get(type) ||
        (type != simdjson::ondemand::json_type::null && type != simdjson::ondemand::json_type::object)) {
      return Fail("the answer to totals is not {\"totals\":{...}|null}");
    }
    if (type == simdjson::ondemand::json_type::null) return std::optional<sink::TableTotals>();
    sink::TableTotals totals;
    int seen = 0;
    simdjson::ondemand::object object;
    if (value.get_object().get(object)) return Fail("the totals do not parse");
    for (auto field : object) {
      std::string_view name;
      uint64_t n = 0;
      if (field.unescaped_key().get(name) || field.value().get_uint64().get(n)) return Fail("the totals do not parse");
      uint64_t* slot = name == "pages"     ? &totals.pages
                       : name == "crawled" ? &totals.crawled
                       : name == "linked"  ? &totals.linked
                       : name == "links"   ? &totals.links
                       : name == "domains" ? &totals.domains
                                           : nullptr;
      if (slot != nullptr) {
        *slot = n;
        ++seen;
      }
    }
    if (seen != 5) return Fail("the totals lack a count");
    return std::optional<sink::TableTotals>(totals);
  }

 private:
  //! The cells of a scan's answer `body` into `out`: in key order, under `prefix`, after
  //! `after`, at most `limit`; else Unavailable.
  Status Cells(const std::string& body, std::string_view prefix, std::string_view after, size_t limit,
               std::vector<query::KeyValue>* out) {
    simdjson::padded_string padded(body);
    simdjson::ondemand::document doc;
    simdjson::ondemand::array cells;
    if (parser_.iterate(padded).get(doc) || doc.find_field("cells").get_array().get(cells)) {
      return Fail("the answer to a scan is not {\"cells\":[...]}");
    }
    std::vector<query::KeyValue> got;
    for (auto item : cells) {
      simdjson::ondemand::array pair;
      if (item.get_array().get(pair)) return Fail("a scanned cell is not [key, value]");
      std::vector<std::string> parts;
      for (auto part : pair) {
        simdjson::ondemand::value value;
        if (part.get(value)) return Fail("a scanned cell does not parse");
        ASSIGN_OR_RETURN(std::string bytes, Bytes(value, "a scanned cell"));
        parts.push_back(std::move(bytes));
      }
      if (parts.size() != 2) return Fail("a scanned cell is not [key, value]");
      // The cells answer this scan: in key order, under the prefix, after the cursor.
      const std::string_view last = got.empty() ? after : std::string_view(got.back().key);
      if (!parts[0].starts_with(prefix) || (!last.empty() && parts[0] <= last)) {
        return Fail("the answer to a scan has cells out of order or outside its range");
      }
      got.push_back({std::move(parts[0]), std::move(parts[1])});
    }
    if (got.size() > limit) return Fail("the answer to a scan has more cells than it asked for");
    *out = std::move(got);
    return Status::Ok();
  }

  std::string Prefix() const { return std::string(kShardRoutePrefix) + names_ + "/"; }

  Status Fail(const std::string& what) const {
    return Status::Unavailable("table shard" + std::string(shards_.size() > 1 ? "s " : " ") + names_ + " at " +
                               address_ + ": " + what);
  }

  Result<std::string> Bytes(simdjson::ondemand::value& value, const char* what) {
    std::string_view text;
    if (value.get_string().get(text)) return Fail(std::string(what) + " is not a string");
    auto bytes = Base64UrlDecode(text);
    if (!bytes.ok()) return Fail(std::string(what) + " is not base64url: " + bytes.status().message());
    return std::move(bytes).value();
  }

  //! The body of a 200 answer to `target` ("path?parameters"), POSTed with its parameters as a
  //! form body: keys as long as a URL may be (several KiB) never meet the request line's bound
  //! (the server's header limit).
  Result<std::string> Fetch(const std::string& target) {
    const size_t q = target.find('?');
    auto response = client_.PostForm(target.substr(0, q), q == std::string::npos ? "" : target.substr(q + 1), kMaxBody);
    if (!response.ok()) return Fail(response.status().message());
    if (response->status != 200) {
      return Fail("HTTP " + std::to_string(response->status) + ": " + ErrorMessageOf(response->body));
    }
    return std::move(response->body);
  }

  const std::string address_;
  const std::vector<int32_t> shards_;  //!< ascending
  const int32_t partitions_;
  std::string names_;                  //!< "p,q,..."
  HttpClient client_;
  simdjson::ondemand::parser parser_;
};

}  // namespace

RemoteShardSource::RemoteShardSource(std::string address, int32_t shard, std::chrono::milliseconds timeout)
    : address_(std::move(address)), shards_{shard}, timeout_(timeout) {}

RemoteShardSource::RemoteShardSource(std::string address, std::vector<int32_t> shards, int32_t partitions,
                                     std::chrono::milliseconds timeout)
    : address_(std::move(address)), shards_(std::move(shards)), partitions_(partitions), timeout_(timeout) {
  std::sort(shards_.begin(), shards_.end());
  shards_.erase(std::unique(shards_.begin(), shards_.end()), shards_.end());
}

std::unique_ptr<query::TableRead> RemoteShardSource::Read() {
  return std::make_unique<RemoteRead>(address_, shards_, partitions_, timeout_);
}

}  // namespace webindex::http
