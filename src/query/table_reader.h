// Reads the query table: the text form of `webindex dump` (spec §4) and scans of row
// ranges for queries. Reads one consistent snapshot; any thread.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

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

//! Writes every cell as a text line, sorted by (row, cf, cq) bytes; returns the line count.
Result<uint64_t> DumpTable(state::Store& store, std::ostream& out);

}  // namespace webindex::query
