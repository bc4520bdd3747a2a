#include "http/pagerank_route.h"

#include "codec/json_writer.h"
#include "http/http_client.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"

namespace webindex::http {
namespace {

//! A forwarded answer's body is one page of a ranking: at most 10,000 entries.
constexpr uint64_t kMaxForwardedBody = uint64_t{64} << 20;

//! One page of the current result, with the facts of that result.
std::string RankingJson(const rank::RankPage& r) {
  codec::JsonWriter w;
  w.BeginObject().Key("result").Uint(r.info.id).Key("computedAtMs").Int(r.info.computed_at_ms);
  w.Key("iterations").Int(r.info.iterations).Key("nodes").Uint(r.info.nodes).Key("edges").Uint(r.info.edges);
  w.Key("exports").BeginObject().Key("topic").String(r.info.exports_topic).Key("positions").BeginArray();
  for (int64_t p : r.info.positions) w.Int(p);
  w.EndArray().EndObject();
  w.Key("results").BeginArray();
  for (const auto& p : r.pages) {
    w.BeginObject().Key("url").String(p.url).Key("score").Raw(rank::FormatScore(p.score)).EndObject();
  }
  w.EndArray();
  if (!r.next.empty()) w.Key("next").String(r.next);
  return w.EndObject().Take();
}

Result<std::string> Forward(const std::string& address, std::string_view query, std::chrono::milliseconds timeout) {
  const std::string target = std::string(kInternalPageRank) + (query.empty() ? "" : "?" + std::string(query));
  HttpClient client(address, timeout);
  auto answer = client.Get(target, kMaxForwardedBody);
  const std::string who =
      "the member computing the partitioned table's PageRank (at " + address + ", serving table shard 0)";
  if (!answer.ok()) {
    return Status::Unavailable(who + " did not answer: " + answer.status().message() + "; ask again in a few seconds");
  }
  const std::string message = answer->status == 200 ? "" : ErrorMessageOf(answer->body);
  switch (answer->status) {
    case 200:
      return std::move(answer->body);
    case 400:
      return Status::InvalidArgument(message);
    case 404:
      return Status::NotFound(message);
    case 409:
      return Status::Aborted(message);
    default:
      return Status::Unavailable(who + " answered HTTP " + std::to_string(answer->status) + ": " + message +
                                 "; ask again in a few seconds");
  }
}

}  // namespace

Result<std::string> PageRankJson(state::Store& store, size_t limit, const std::string& next) {
  auto ranking = rank::RankingPage(store, limit, next);
  if (!ranking.ok() && ranking.status().code() == Status::Code::kNotFound) {
    return Status::NotFound(ranking.status().message() +
                            " (`webindex run` computes it every pagerank.interval_s when the table changed)");
  }
  RETURN_IF_ERROR(ranking.status());
  return RankingJson(*ranking);
}

Result<std::string> PartitionedPageRankJson(const PageRankHome& home, bool internal, size_t limit,
                                            const std::string& next, std::string_view query,
                                            std::chrono::milliseconds timeout) {
  if (home.results) return PageRankJson(*home.results, limit, next);
  if (internal) {
    return Status::Unavailable(
        "this member does not compute the partitioned table's PageRank now: the member "
        "serving table shard 0 does");
  }
  if (home.forward_to.empty()) {
    return Status::Unavailable(
        "the PageRank of a partitioned table is computed by the member serving table shard 0, and no member serves "
        "it now (shards are moving, or its member is down or started without --http): ask again in a few seconds");
  }
  return Forward(home.forward_to, query, timeout);
}

}  // namespace webindex::http
