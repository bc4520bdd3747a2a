#include "rank/rank_store.h"

#include <bit>
#include <cstring>

#include "common/base64url.h"
#include "common/bytes.h"

namespace webindex::rank {
namespace {

constexpr std::string_view kCurrentKey = "pagerank/current";
constexpr std::string_view kPrefix = "pagerank/r/";

std::string Be64(uint64_t v) {
  BytesWriter w;
  w.PutFixed64BE(v);
  return w.Take();
}

//! "pagerank/r/<id>/s/<~bits><url>": byte order is score descending (scores are >= 0), then URL.
std::string RankKey(uint64_t id, double score, std::string_view url) {
  return std::string(kPrefix) + Be64(id) + "/s/" + Be64(~std::bit_cast<uint64_t>(score)) + std::string(url);
}
std::string UrlKey(uint64_t id, std::string_view url) {
  return std::string(kPrefix) + Be64(id) + "/u/" + std::string(url);
}
std::string ResultPrefix(uint64_t id) { return std::string(kPrefix) + Be64(id) + "/"; }

std::string EncodeScore(double score) { return Be64(std::bit_cast<uint64_t>(score)); }
Result<double> DecodeScore(std::string_view v) {
  uint64_t bits = 0;
  BytesReader r(v);
  if (!r.GetFixed64BE(&bits) || !r.empty()) return Status::Corruption("pagerank: a score is not 8 bytes");
  return std::bit_cast<double>(bits);
}

std::string EncodeInfo(const RankResultInfo& info) {
  BytesWriter w;
  w.PutVarint(info.id);
  w.PutSigned(info.computed_at_ms);
  w.PutVarint(static_cast<uint64_t>(info.iterations));
  w.PutVarint(info.nodes);
  w.PutVarint(info.edges);
  w.PutFixed64BE(std::bit_cast<uint64_t>(info.seconds));
  w.PutString(info.exports_topic);
  w.PutVarint(info.positions.size());
  for (int64_t p : info.positions) w.PutSigned(p);
  return w.Take();
}

Result<RankResultInfo> DecodeInfo(std::string_view v) {
  RankResultInfo info;
  BytesReader r(v);
  uint64_t iterations = 0, n = 0, seconds = 0;
  if (!r.GetVarint(&info.id) || !r.GetSigned(&info.computed_at_ms) || !r.GetVarint(&iterations) ||
      !r.GetVarint(&info.nodes) || !r.GetVarint(&info.edges) || !r.GetFixed64BE(&seconds) ||
      !r.GetString(&info.exports_topic) || !r.GetVarint(&n) || n > v.size()) {
    return Status::Corruption("pagerank: the current result's record does not decode");
  }
  info.iterations = static_cast<int32_t>(iterations);
  info.seconds = std::bit_cast<double>(seconds);
  info.positions.resize(n);
  for (auto& p : info.positions) {
    if (!r.GetSigned(&p)) return Status::Corruption("pagerank: the current result's record does not decode");
  }
  return info;
}

}  // namespace

Result<std::optional<RankResultInfo>> CurrentRankResult(state::Store& store, const state::Snapshot* snap) {
  ASSIGN_OR_RETURN(auto value, store.Get(state::Family::kMeta, kCurrentKey, snap));
  if (!value) return std::optional<RankResultInfo>();
  ASSIGN_OR_RETURN(auto info, DecodeInfo(*value));
  return std::optional<RankResultInfo>(std::move(info));
}

Result<RankResultInfo> StoreRankResult(state::Store& store, const LinkGraph& g, const std::vector<double>& scores,
                                       RankResultInfo info, size_t batch_rows, const std::atomic<bool>* cancel) {
  ASSIGN_OR_RETURN(auto previous, CurrentRankResult(store));
  info.id = previous ? previous->id + 1 : 1;
  info.nodes = g.nodes();
  info.edges = g.edges();
  // Leftovers of a result that was being written when the process stopped.
  {
    state::WriteBatch wb(store);
    wb.DeleteRange(state::Family::kMeta, ResultPrefix(info.id), ResultPrefix(info.id + 1));
    RETURN_IF_ERROR(store.Write(wb));
  }
  for (size_t begin = 0; begin < g.nodes(); begin += batch_rows) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return Status::Aborted("stopping: a result was being stored");
    state::WriteBatch wb(store);
    for (size_t u = begin; u < std::min(g.nodes(), begin + batch_rows); ++u) {
      const std::string score = EncodeScore(scores[u]);
      wb.Put(state::Family::kMeta, RankKey(info.id, scores[u], g.names[u]), score);
      wb.Put(state::Family::kMeta, UrlKey(info.id, g.names[u]), score);
    }
    RETURN_IF_ERROR(store.Write(wb));
  }
  state::WriteBatch wb(store);
  wb.Put(state::Family::kMeta, kCurrentKey, EncodeInfo(info));
  if (previous) wb.DeleteRange(state::Family::kMeta, ResultPrefix(previous->id), ResultPrefix(previous->id + 1));
  RETURN_IF_ERROR(store.Write(wb));
  return info;
}

Result<RankPage> RankingPage(state::Store& store, size_t limit, const std::string& cursor) {
  auto snap = store.GetSnapshot();
  ASSIGN_OR_RETURN(auto info, CurrentRankResult(store, snap.get()));
  if (!info) return Status::NotFound("no PageRank result yet: the first computation has not finished");
  RankPage page;
  page.info = *info;
  const std::string prefix = ResultPrefix(info->id) + "s/";
  std::string start = prefix;
  if (!cursor.empty()) {
    ASSIGN_OR_RETURN(std::string after, Base64UrlDecode(cursor));
    if (after.size() < prefix.size() + 8 || !after.starts_with(kPrefix)) {
      return Status::InvalidArgument("next is not a cursor of /api/pagerank");
    }
    if (!after.starts_with(prefix)) {
      return Status::Aborted("the PageRank result this cursor belongs to was replaced by a newer one; "
                             "start again without next");
    }
    start = after + std::string(1, '\0');  // strictly after
  }
  auto it = store.NewIterator(state::Family::kMeta, snap.get());
  std::string last;  // the key of the last entry returned
  for (it->Seek(start); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    if (page.pages.size() == limit) {
      page.next = Base64UrlEncode(last);
      break;
    }
    ASSIGN_OR_RETURN(double score, DecodeScore(it->value()));
    page.pages.push_back({std::string(it->key().substr(prefix.size() + 8)), score});
    last.assign(it->key());
  }
  RETURN_IF_ERROR(it->status());
  return page;
}

Result<std::optional<std::pair<double, RankResultInfo>>> ScoreOf(state::Store& store, const std::string& url) {
  using Out = std::optional<std::pair<double, RankResultInfo>>;
  auto snap = store.GetSnapshot();
  ASSIGN_OR_RETURN(auto info, CurrentRankResult(store, snap.get()));
  if (!info) return Out();
  ASSIGN_OR_RETURN(auto value, store.Get(state::Family::kMeta, UrlKey(info->id, url), snap.get()));
  if (!value) return Out();
  ASSIGN_OR_RETURN(double score, DecodeScore(*value));
  return Out(std::make_pair(score, *info));
}

}  // namespace webindex::rank
