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
  it->Seek(start);
  while (it->Valid()) {
    if (auto foreign = sink::ForeignKeyPrefix(it->key())) {
      // Another store's rows (the graph store's): past them, to the cells that follow.
      foreign->back() = static_cast<char>(static_cast<unsigned char>(foreign->back()) + 1);
      it->Seek(*foreign);
      continue;
    }
    if (!sink::DecodeCellKey(it->key(), &cell.row, &cell.cf, &cell.cq)) {
      return Status::Corruption("undecodable table key");
    }
    if (!cell.row.starts_with(row_prefix)) break;
    cell.value.assign(it->value());
    if (!fn(cell)) break;
    it->Next();
  }
  return it->status();
}

namespace {

//! Ranked rows end in "<rev count hex>:<uri>"; the value is the count.
Result<std::vector<RankedUri>> ScanRanked(state::Store& store, const std::string& prefix, size_t limit) {
  std::vector<RankedUri> out;
  Status parse;
  RETURN_IF_ERROR(ScanRows(store, prefix, [&](const sink::Cell& c) {
    const size_t colon = c.row.find(':', prefix.size());
    if (colon == std::string::npos) return true;  // the d:<domain> row itself
    RankedUri r;
    r.uri = c.row.substr(colon + 1);
    r.count = std::stoull(c.value);
    out.push_back(std::move(r));
    return out.size() < limit;
  }));
  return out;
}

}  // namespace

Result<std::vector<RankedUri>> TopUris(state::Store& store, size_t limit) { return ScanRanked(store, "t:", limit); }

Result<std::vector<RankedUri>> DomainUris(state::Store& store, std::string_view domain, size_t limit,
                                          uint64_t* pagecount) {
  const std::string row = "d:" + std::string(domain);
  *pagecount = 0;
  RETURN_IF_ERROR(ScanRows(store, row, [&](const sink::Cell& c) {
    if (c.row == row && c.cf == "domain" && c.cq == "pagecount") *pagecount = std::stoull(c.value);
    return false;
  }));
  return ScanRanked(store, row + ":", limit);
}

Result<std::string> LargestDomain(state::Store& store) {
  std::string best;
  uint64_t best_count = 0;
  RETURN_IF_ERROR(ScanRows(store, "d:", [&](const sink::Cell& c) {
    if (c.cf != "domain") return true;
    const uint64_t n = std::stoull(c.value);
    if (n > best_count) {
      best_count = n;
      best = c.row.substr(2);
    }
    return true;
  }));
  return best;
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
