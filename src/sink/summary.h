// What the sink keeps beside the query table, in the meta family, for answers the table's key
// order cannot give cheaply: the table's totals and an index of domains by plain name. Both are
// written in the commit of the rows they describe, so they always equal a count over the table.
// Stateless functions and a per-batch SummaryUpdate (the sink's thread).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "model/page.h"
#include "state/store.h"

namespace webindex::sink {

//! Counts over the query table (docs/semantics.md §4).
struct TableTotals {
  uint64_t pages = 0;    //!< existing URIs (t: rows): crawled, linked to, or both
  uint64_t crawled = 0;  //!< current pages (page|cur cells)
  uint64_t linked = 0;   //!< URIs with linksTo > 0
  uint64_t links = 0;    //!< the sum of linksTo: links between distinct pages, counted once per pair
  uint64_t domains = 0;  //!< d:<domain> rows
  bool operator==(const TableTotals&) const = default;
};

//! The kept totals as of `snap`; nullopt when the store has none (no `webindex run` of this
//! version opened it yet).
Result<std::optional<TableTotals>> ReadTotals(state::Store& store, const state::Snapshot* snap = nullptr);

//! The totals counted from the rows (every t: and d: row, two seeks per p: row): what the kept
//! ones must equal; seconds on a table of millions of pages.
Result<TableTotals> CountTotals(state::Store& store, const state::Snapshot* snap = nullptr);

//! The meta-family key of the kept summary, and its value for `totals` as of the sink's input
//! `positions` (partition -> next offset, every partition): for a build that writes a table whole
//! (a replay's bulk build), which must name the positions the sink then starts from.
inline constexpr std::string_view kSummaryKey = "sink/summary";
std::string EncodeSummaryValue(const TableTotals& totals, const std::map<int32_t, int64_t>& positions);

//! Meta-family keys of the domain index: "sink/domain/<plain name>" -> pagecount (decimal),
//! one per d:<domain> row, so that names sort by their start ("stackoverflow.com").
inline constexpr std::string_view kDomainIndexPrefix = "sink/domain/";
std::string DomainIndexKey(std::string_view name);

//! The changes one sink batch makes, from the old and new values of the cells it writes; Write
//! adds them to the kept summary in the batch's commit. Not thread-safe.
class SummaryUpdate {
 public:
  //! Every input record of the batch, applied or skipped: the summary names the input positions
  //! it reflects, which must equal the sink's committed ones (see OpenSummary).
  void Consumed(const InRecord& record);
  void Page(bool had, bool has) { crawled_ += static_cast<int64_t>(has) - static_cast<int64_t>(had); }
  void Uri(const std::optional<std::string>& old_incount, const model::UriInfo& info);
  void Domain(std::string_view key, const std::optional<std::string>& old_pagecount, int64_t pagecount);
  //! Reads the kept summary (committed by the batch before) and puts the updated one and the
  //! domain index entries into `batch`.
  Status Write(state::Store& store, state::WriteBatch& batch);

 private:
  int64_t pages_ = 0, crawled_ = 0, linked_ = 0, links_ = 0, domains_ = 0;
  std::map<int32_t, int64_t> positions_;                 //!< partition -> next offset
  std::map<std::string, std::optional<int64_t>> names_;  //!< plain name -> pagecount, nullopt: gone
};

//! Makes the kept summary match the table before the sink's first batch: when it is missing,
//! or names other input positions than the sink committed (a version that does not keep it
//! wrote to the table since), counts it again from the rows. `offsets_prefix` is the sink's
//! key prefix in the offsets family ("sink/webindex.exports/").
Status OpenSummary(state::Store& store, std::string_view offsets_prefix);

}  // namespace webindex::sink
