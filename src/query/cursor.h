// Paging cursors of the query service: an opaque, URL-safe token naming the table key of the
// last returned row or cell; the next page seeks strictly after it. Stateless; any thread.
#pragma once

#include <string>
#include <string_view>

#include "common/base64url.h"
#include "common/status.h"
#include "sink/table.h"

namespace webindex::query {

//! The cursor of the cell (row, cf, cq).
std::string EncodeCursor(std::string_view row, std::string_view cf, std::string_view cq);
//! The cell a cursor names; InvalidArgument when it is not one of ours.
Result<sink::Cell> DecodeCursor(std::string_view cursor);

//! Upper bound on a cursor's length (a table key holds at most a few URIs).
inline constexpr size_t kMaxCursorChars = 16384;

}  // namespace webindex::query
