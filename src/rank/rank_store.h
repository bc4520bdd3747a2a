// PageRank results of the live graph, kept in the data dir's store (kMeta family, keys under
// "pagerank/") next to the state they were computed from: the current result's facts (id, time,
// the sink's export positions it reflects) and its scores twice, by rank and by URL. A new result
// is written under a new id, then made current in one write, then the old one is deleted, so
// readers always see one whole result. Stateless functions; any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "rank/link_graph.h"
#include "state/store.h"

namespace webindex::rank {

//! What a stored result is: which computation, over which graph, reflecting which exports.
struct RankResultInfo {
  uint64_t id = 0;              //!< 1, 2, ...: grows with every stored result
  int64_t computed_at_ms = 0;   //!< when the snapshot was taken (Unix ms)
  int32_t iterations = 0;
  uint64_t nodes = 0, edges = 0;
  double seconds = 0;           //!< from the snapshot to the scores (storing them not included)
  //! The sink's next export offset per partition of its input topic, as of the snapshot:
  //! the result reflects every export before these.
  std::string exports_topic;
  std::vector<int64_t> positions;
};

struct RankedPage {
  std::string url;
  double score = 0;
};

//! The current result's facts, or nullopt when none was stored yet.
Result<std::optional<RankResultInfo>> CurrentRankResult(state::Store& store, const state::Snapshot* snap = nullptr);

//! Stores `scores` of `g` as the next result (info.id is assigned: the current one's plus one, or
//! info.id when greater, a floor the caller knows of), makes it current and deletes the previous
//! one. Returns the stored facts. The rows go into a sorted file that the store adds whole
//! (Store::Ingest): millions of rows in about a second, no memtable or WAL. Aborted, with the
//! previous result still current and nothing of the new one stored, when `*cancel` turns true
//! (checked every `check_rows` rows) before the rows are added.
Result<RankResultInfo> StoreRankResult(state::Store& store, const LinkGraph& g, const std::vector<double>& scores,
                                       RankResultInfo info, size_t check_rows = 50000,
                                       const std::atomic<bool>* cancel = nullptr);

//! One page of the current ranking (score descending, then URL ascending): at most `limit`
//! entries after `cursor` ("" = from the top); `next` is "" after the last one. InvalidArgument
//! for a cursor that is not ours; NotFound when no result is stored; Aborted when the cursor
//! belongs to a result that was replaced since (start again from the top).
struct RankPage {
  RankResultInfo info;
  std::vector<RankedPage> pages;
  std::string next;
};
Result<RankPage> RankingPage(state::Store& store, size_t limit, const std::string& cursor);

//! The current score of the page with canonical URL `url`, with its result's facts; nullopt
//! when no result is stored or the URL is no node of it.
Result<std::optional<std::pair<double, RankResultInfo>>> ScoreOf(state::Store& store, const std::string& url);

}  // namespace webindex::rank
