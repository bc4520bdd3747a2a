#include "sink/table.h"

#include <charconv>
#include <unordered_map>

#include "codec/records.h"
#include "model/lexicoder.h"
#include "model/url.h"

namespace webindex::sink {
namespace {

void AppendPart(std::string* out, std::string_view part) {
  for (char c : part) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

bool ReadPart(std::string_view* in, std::string* out) {
  out->clear();
  while (!in->empty()) {
    char c = in->front();
    in->remove_prefix(1);
    if (c != '\0') {
      out->push_back(c);
      continue;
    }
    if (in->empty()) return false;
    char next = in->front();
    in->remove_prefix(1);
    if (next == '\x01') return true;
    if (next != '\xff') return false;
    out->push_back('\0');
  }
  return false;
}

constexpr std::string_view kPage = "page", kCur = "cur", kIncount = "incount", kInlinks = "inlinks",
                           kDomain = "domain", kPagecount = "pagecount", kRank = "rank";

}  // namespace

void AppendCellKey(std::string_view row, std::string_view cf, std::string_view cq, std::string* key) {
  AppendPart(key, row);
  AppendPart(key, cf);
  AppendPart(key, cq);
}

std::string EncodeCellKey(std::string_view row, std::string_view cf, std::string_view cq) {
  std::string key;
  key.reserve(row.size() + cf.size() + cq.size() + 6);
  AppendCellKey(row, cf, cq, &key);
  return key;
}

bool DecodeCellKey(std::string_view key, std::string* row, std::string* cf, std::string* cq) {
  return ReadPart(&key, row) && ReadPart(&key, cf) && ReadPart(&key, cq) && key.empty();
}

std::optional<CellKeyView> ViewCellKey(std::string_view key) {
  std::string_view parts[3];
  for (auto& part : parts) {
    const size_t end = key.find('\0');
    if (end == std::string_view::npos || end + 1 == key.size() || key[end + 1] != '\x01') return std::nullopt;
    part = key.substr(0, end);
    key.remove_prefix(end + 2);
  }
  if (!key.empty()) return std::nullopt;
  return CellKeyView{parts[0], parts[1], parts[2]};
}

std::optional<std::string> ForeignKeyPrefix(std::string_view key) {
  if (key.size() < 2 || key[0] != '\0' || key[1] == '\x01' || key[1] == '\xff') return std::nullopt;
  return std::string(key.substr(0, 2));
}

std::string RowPrefixKey(std::string_view row_prefix) {
  std::string key;
  for (char c : row_prefix) {
    key.push_back(c);
    if (c == '\0') key.push_back('\xff');
  }
  return key;
}

std::string CellPrefixKey(std::string_view row, std::string_view cf) {
  std::string key;
  AppendPart(&key, row);
  AppendPart(&key, cf);
  return key;
}

std::string DomainRow(std::string_view domain) { return "d:" + std::string(domain); }
std::string RankRow(std::string_view domain, uint64_t count, std::string_view uri) {
  return "d:" + std::string(domain) + ":" + model::ReverseCountHex(count) + ":" + std::string(uri);
}
std::string PageRow(std::string_view uri) { return "p:" + std::string(uri); }
std::string TotalRow(uint64_t count, std::string_view uri) {
  return "t:" + model::ReverseCountHex(count) + ":" + std::string(uri);
}

void TableWriter::Put(std::string_view row, std::string_view cf, std::string_view cq, std::string_view value) {
  AppendCellKey(row, cf, cq, &writes_.BeginKey());
  writes_.EndPut(value);
}
void TableWriter::Delete(std::string_view row, std::string_view cf, std::string_view cq) {
  AppendCellKey(row, cf, cq, &writes_.BeginKey());
  writes_.EndDelete();
}

void TableWriter::Flush() { writes_.AddTo(state::Family::kTable, batch_); }

std::string TableWriter::PageCurKey(std::string_view uri) { return EncodeCellKey(PageRow(uri), kPage, kCur); }
std::string TableWriter::IncountKey(std::string_view uri) { return EncodeCellKey(PageRow(uri), kPage, kIncount); }
std::string TableWriter::PagecountKey(std::string_view domain) {
  return EncodeCellKey(DomainRow(domain), kDomain, kPagecount);
}
std::string TableWriter::InlinkKey(std::string_view target, std::string_view source) {
  return EncodeCellKey(PageRow(target), kInlinks, source);
}
std::string TableWriter::TotalKey(uint64_t n, std::string_view uri) { return EncodeCellKey(TotalRow(n, uri), "", ""); }
std::string TableWriter::RankKey(std::string_view domain, uint64_t n, std::string_view uri) {
  return EncodeCellKey(RankRow(domain, n, uri), kRank, "");
}

Status TableWriter::SetPage(std::string_view uri, const std::optional<model::Page>& page,
                            const std::string& page_json) {
  ASSIGN_OR_RETURN(auto old_json, store_.Get(state::Family::kTable, PageCurKey(uri)));
  return SetPage(uri, page, page_json, old_json);
}

Status TableWriter::SetUriInfo(std::string_view uri, const model::UriInfo& info) {
  ASSIGN_OR_RETURN(auto old, store_.Get(state::Family::kTable, IncountKey(uri)));
  SetUriInfo(uri, info, old);
  return Status::Ok();
}

Status TableWriter::SetPage(std::string_view uri, const std::optional<model::Page>& page, const std::string& page_json,
                            const std::optional<std::string>& old_json) {
  const std::string row = PageRow(uri);
  std::unordered_map<std::string, std::string> old_links;
  if (old_json) {
    thread_local codec::RecordDecoder decoder;
    ASSIGN_OR_RETURN(model::Page old, decoder.DecodePageJson(*old_json));
    for (auto& l : old.links) old_links.emplace(std::move(l.uri), std::move(l.anchor_text));
  }
  if (page) {
    for (const auto& l : page->links) {
      auto it = old_links.find(l.uri);
      if (it == old_links.end() || it->second != l.anchor_text) Put(PageRow(l.uri), kInlinks, uri, l.anchor_text);
      if (it != old_links.end()) old_links.erase(it);
    }
    Put(row, kPage, kCur, page_json);
  } else if (old_json) {
    Delete(row, kPage, kCur);
  }
  for (const auto& [target, anchor] : old_links) Delete(PageRow(target), kInlinks, uri);
  return Status::Ok();
}

void TableWriter::SetUriInfo(std::string_view uri, const model::UriInfo& info,
                             const std::optional<std::string>& old) {
  const std::string row = PageRow(uri);
  const std::string domain(model::DomainOfUri(uri));
  if (old) {
    uint64_t n = 0;
    std::from_chars(old->data(), old->data() + old->size(), n);
    Delete(TotalRow(n, uri), "", "");
    Delete(RankRow(domain, n, uri), kRank, "");
  }
  if (info.Exists()) {
    const auto n = static_cast<uint64_t>(info.links_to);
    const std::string value = std::to_string(n);
    Put(row, kPage, kIncount, value);
    Put(TotalRow(n, uri), "", "", value);
    Put(RankRow(domain, n, uri), kRank, "", value);
  } else if (old) {
    Delete(row, kPage, kIncount);
  }
}

void TableWriter::SetDomainCount(std::string_view domain, int64_t pagecount) {
  if (pagecount > 0) {
    Put(DomainRow(domain), kDomain, kPagecount, std::to_string(pagecount));
  } else {
    Delete(DomainRow(domain), kDomain, kPagecount);
  }
}

}  // namespace webindex::sink
