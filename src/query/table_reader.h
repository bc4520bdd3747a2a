// Reads the query table: the text form of `webindex dump` (docs/semantics.md §4) and scans of row
// ranges for queries. Reads one consistent snapshot; any thread.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sink/table.h"
#include "state/store.h"

namespace webindex::query {

//! `row|cf|cq|value`, bytes outside 32..126 and '\' written as \xNN (lowercase hex).
std::string EscapeCellText(std::string_view s);
std::string CellLine(const sink::Cell& cell);

//! Calls `fn` for each cell whose row starts with `row_prefix`, in table order, until it
//! returns false.
Status ScanRows(state::Store& store, std::string_view row_prefix, const std::function<bool(const sink::Cell&)>& fn);

struct RankedUri {
  std::string uri;
  uint64_t count = 0;
};

//! The most linked-to URIs, count descending then URI (the t: rows), at most `limit`.
Result<std::vector<RankedUri>> TopUris(state::Store& store, size_t limit);
//! The most linked-to URIs of a domain key ("com.stackoverflow"), and the domain's page count.
Result<std::vector<RankedUri>> DomainUris(state::Store& store, std::string_view domain, size_t limit,
                                          uint64_t* pagecount);

//! The domain key with the most pages ("" when the table is empty).
Result<std::string> LargestDomain(state::Store& store);

//! Writes every cell as a text line, sorted by (row, cf, cq) bytes; returns the line count.
Result<uint64_t> DumpTable(state::Store& store, std::ostream& out);

}  // namespace webindex::query
