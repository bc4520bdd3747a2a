#include "query/table_reader.h"

namespace webindex::query {

std::string EscapeCellText(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 32 || u > 126 || c == '\\') {
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string CellLine(const sink::Cell& c) {
  return EscapeCellText(c.row) + "|" + EscapeCellText(c.cf) + "|" + EscapeCellText(c.cq) + "|" +
         EscapeCellText(c.value);
}

Status ScanRows(state::Store& store, std::string_view row_prefix, const std::function<bool(const sink::Cell&)>& fn) {
  auto snap = store.GetSnapshot();
  auto it = store.NewIterator(state::Family::kTable, snap.get());
  const std::string start = sink::RowPrefixKey(row_prefix);
  sink::Cell cell;
  for (it->Seek(start); it->Valid(); it->Next()) {
    if (!sink::DecodeCellKey(it->key(), &cell.row, &cell.cf, &cell.cq)) {
      return Status::Corruption("undecodable table key");
    }
    if (!cell.row.starts_with(row_prefix)) break;
    cell.value.assign(it->value());
    if (!fn(cell)) break;
  }
  return it->status();
}

Result<uint64_t> DumpTable(state::Store& store, std::ostream& out) {
  uint64_t lines = 0;
  RETURN_IF_ERROR(ScanRows(store, "", [&](const sink::Cell& c) {
    out << CellLine(c) << '\n';
    ++lines;
    return true;
  }));
  return lines;
}

}  // namespace webindex::query
