#include "query/cursor.h"

namespace webindex::query {

std::string EncodeCursor(std::string_view row, std::string_view cf, std::string_view cq) {
  return Base64UrlEncode(sink::EncodeCellKey(row, cf, cq));
}

Result<sink::Cell> DecodeCursor(std::string_view cursor) {
  if (cursor.empty() || cursor.size() > kMaxCursorChars) return Status::InvalidArgument("bad cursor");
  auto key = Base64UrlDecode(cursor);
  if (!key.ok()) return Status::InvalidArgument("bad cursor: " + key.status().message());
  sink::Cell cell;
  if (!sink::DecodeCellKey(*key, &cell.row, &cell.cf, &cell.cq)) {
    return Status::InvalidArgument("bad cursor: not a table position");
  }
  return cell;
}

}  // namespace webindex::query
