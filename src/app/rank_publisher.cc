#include "app/rank_publisher.h"

#include <atomic>

#include "codec/json_writer.h"
#include "common/bytes.h"
#include "common/log.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"

namespace webindex::app {
namespace {

constexpr std::string_view kPublishedKey = "pagerank/published";  //!< kMeta: id of the last result sent whole

}  // namespace

std::string RankPartJson(uint64_t generation, uint64_t result, int64_t computed_at_ms, int32_t iterations, uint64_t nodes, uint64_t edges,
                         const std::string& exports_topic, const std::vector<int64_t>& positions, size_t part,
                         size_t parts, size_t first_rank, const std::vector<std::string>& entries) {
  codec::JsonWriter w;
  w.BeginObject().Key("generation").Uint(generation).Key("result").Uint(result).Key("part").Uint(part).Key("parts").Uint(parts);
  w.Key("computedAtMs").Int(computed_at_ms).Key("iterations").Int(iterations);
  w.Key("nodes").Uint(nodes).Key("edges").Uint(edges);
  w.Key("exports").BeginObject().Key("topic").String(exports_topic).Key("positions").BeginArray();
  for (int64_t p : positions) w.Int(p);
  w.EndArray().EndObject();
  w.Key("firstRank").Uint(first_rank).Key("results").BeginArray();
  for (const auto& e : entries) w.Raw(e);
  return w.EndArray().EndObject().Take();
}

Result<std::unique_ptr<RankPublisher>> RankPublisher::Create(const kafka::ClientConfig& kafka, state::Store& store,
                                                             RankPublisherOptions options) {
  std::unique_ptr<RankPublisher> p(new RankPublisher(store, std::move(options)));
  ASSIGN_OR_RETURN(p->producer_, kafka::Producer::Create(kafka, [raw = p.get()](uint64_t, const Status& st) {
                     if (!st.ok()) raw->failed_ = true;
                   }));
  return p;
}

Status RankPublisher::PublishCurrent() {
  if (options_.top == 0) return Status::Ok();
  ASSIGN_OR_RETURN(auto info, rank::CurrentRankResult(store_));
  if (!info) return Status::Ok();
  ASSIGN_OR_RETURN(auto marked, state::GetFixed64(store_, state::Family::kMeta, kPublishedKey, "published result"));
  if (marked && *marked >= info->id) return Status::Ok();
  ASSIGN_OR_RETURN(auto ranking, rank::RankingPage(store_, options_.top, ""));
  if (ranking.info.id != info->id) return Status::Aborted("the PageRank result changed while publishing it");
  const auto& i = ranking.info;
  const std::string key = std::to_string(options_.generation) + "/" + std::to_string(i.id);
  auto part_json = [&](size_t part, size_t parts, size_t first, const std::vector<std::string>& entries) {
    return RankPartJson(options_.generation, i.id, i.computed_at_ms, i.iterations, i.nodes, i.edges, i.exports_topic, i.positions, part,
                        parts, first, entries);
  };
  // Parts fill up to the budget; the header's size is measured with room for large part numbers.
  const size_t header = key.size() + part_json(999999, 999999, 999999999, {}).size();
  std::vector<std::vector<std::string>> groups(1);
  size_t used = header;
  for (const auto& p : ranking.pages) {
    codec::JsonWriter e;
    e.BeginObject().Key("url").String(p.url).Key("score").Raw(rank::FormatScore(p.score)).EndObject();
    std::string entry = e.Take();
    if (!groups.back().empty() && used + entry.size() + 1 > options_.record_budget) {
      groups.emplace_back();
      used = header;
    }
    used += entry.size() + 1;
    groups.back().push_back(std::move(entry));
  }
  failed_ = false;
  size_t first = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    OutRecord record{options_.topic, 0, key, part_json(g + 1, groups.size(), first, groups[g]), {}};
    first += groups[g].size();
    RETURN_IF_ERROR(producer_->Produce(record, g));
  }
  RETURN_IF_ERROR(producer_->Flush(options_.timeout_ms).WithContext("publishing PageRank result " + key));
  if (failed_) return Status::Unavailable("PageRank result " + key + " was not acknowledged whole; sending it again");
  state::WriteBatch wb(store_);
  BytesWriter w;
  w.PutFixed64BE(i.id);
  wb.Put(state::Family::kMeta, kPublishedKey, w.str());
  RETURN_IF_ERROR(store_.Write(wb));
  ++published_;
  LOG_INFO("pagerank: result {} published to {} ({} pages in {} parts)", i.id, options_.topic, ranking.pages.size(),
           groups.size());
  return Status::Ok();
}

}  // namespace webindex::app
