#include "rank/rank_store.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <thread>

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
                                       RankResultInfo info, size_t check_rows, const std::atomic<bool>* cancel) {
  ASSIGN_OR_RETURN(auto previous, CurrentRankResult(store));
  const uint64_t next = previous ? previous->id + 1 : 1;
  info.id = std::max(info.id, next);  // a caller's floor: ids another store gave out before
  info.nodes = g.nodes();
  info.edges = g.edges();
  auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  // Leftovers of results that were being stored when the process stopped (ids from `next` on).
  {
    auto it = store.NewIterator(state::Family::kMeta);
    it->Seek(ResultPrefix(next));
    if (it->Valid() && it->key() < ResultPrefix(info.id + 1)) {
      state::WriteBatch wb(store);
      wb.DeleteRange(state::Family::kMeta, ResultPrefix(next), ResultPrefix(info.id + 1));
      RETURN_IF_ERROR(store.Write(wb));
    }
    RETURN_IF_ERROR(it->status());
  }
  // The rows in key order: by rank (score descending, then URL), then by URL; sorted on two
  // threads, written to one sorted file and added to the store in one step.
  std::vector<uint32_t> by_rank(g.nodes()), by_url(g.nodes());
  for (uint32_t u = 0; u < g.nodes(); ++u) by_rank[u] = by_url[u] = u;
  {
    std::thread rank_sort([&] {
      std::sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t x = std::bit_cast<uint64_t>(scores[a]), y = std::bit_cast<uint64_t>(scores[b]);
        return x != y ? x > y : g.name(a) < g.name(b);
      });
    });
    std::sort(by_url.begin(), by_url.end(), [&](uint32_t a, uint32_t b) { return g.name(a) < g.name(b); });
    rank_sort.join();
  }
  ASSIGN_OR_RETURN(auto file, store.NewSortedFile(state::Family::kMeta));
  size_t written = 0;
  auto put = [&](const std::string& key, double score) -> Status {
    if (++written % std::max<size_t>(check_rows, 1) == 0 && cancelled()) {
      return Status::Aborted("stopping: a result was being stored");
    }
    return file->Put(key, EncodeScore(score));
  };
  for (uint32_t u : by_rank) RETURN_IF_ERROR(put(RankKey(info.id, scores[u], g.name(u)), scores[u]));
  for (uint32_t u : by_url) RETURN_IF_ERROR(put(UrlKey(info.id, g.name(u)), scores[u]));
  if (cancelled()) return Status::Aborted("stopping: a result was being stored");
  RETURN_IF_ERROR(store.Ingest(std::move(file)));
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
