#include "query/query_service.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>

#include "codec/records.h"
#include "model/url.h"
#include "query/cursor.h"
#include "query/table_source.h"
#include "sink/table.h"

namespace webindex::query {
namespace {

Result<uint64_t> ParseCount(std::string_view text) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Corruption("count '" + std::string(text) + "' in the query table is not a number");
  }
  return n;
}

//! One page of a contiguous key range: the cells under `prefix` that `in_range` accepts, from
//! the first or strictly after the cursor's cell, at most `limit`. Sets `next` when another cell
//! follows.
struct RangeScan {
  std::string prefix;                               //!< of every key of the range
  std::function<bool(const sink::Cell&)> in_range;  //!< true for every cell of the range
};

Status ScanPage(TableRead& read, const RangeScan& range, size_t limit, std::string_view cursor,
                const std::function<Status(const sink::Cell&)>& emit, std::optional<std::string>* next) {
  std::string after;
  if (!cursor.empty()) {
    ASSIGN_OR_RETURN(sink::Cell at, DecodeCursor(cursor));
    if (!range.in_range(at)) return Status::InvalidArgument("cursor does not belong to this query");
    after = sink::EncodeCellKey(at.row, at.cf, at.cq);
  }
  std::vector<KeyValue> cells;
  RETURN_IF_ERROR(read.Scan(range.prefix, after, limit + 1, &cells));
  size_t emitted = 0;
  sink::Cell cell;
  next->reset();
  for (KeyValue& kv : cells) {
    if (!sink::DecodeCellKey(kv.key, &cell.row, &cell.cf, &cell.cq)) {
      return Status::Corruption("undecodable table key");
    }
    if (!range.in_range(cell)) break;
    if (emitted == limit) {
      *next = Base64UrlEncode(cells[emitted - 1].key);
      break;
    }
    cell.value = std::move(kv.value);
    RETURN_IF_ERROR(emit(cell));
    ++emitted;
  }
  return Status::Ok();
}

//! Ranked rows "<prefix><rev count>:<uri>" with column family `cf`; the value is the count.
Status ScanRanked(TableRead& read, const std::string& prefix, const std::string& cf, size_t limit,
                  std::string_view cursor, std::vector<RankedPage>* out, std::optional<std::string>* next) {
  RangeScan range{sink::RowPrefixKey(prefix),
                  [&](const sink::Cell& c) { return c.row.starts_with(prefix) && c.cf == cf && c.cq.empty(); }};
  return ScanPage(
      read, range, limit, cursor,
      [&](const sink::Cell& c) -> Status {
        const size_t colon = c.row.find(':', prefix.size());
        if (colon == std::string::npos) return Status::Corruption("ranked row without a URI: " + c.row);
        RankedPage r;
        r.uri = c.row.substr(colon + 1);
        r.url = DisplayUrl(r.uri);
        ASSIGN_OR_RETURN(r.count, ParseCount(c.value));
        out->push_back(std::move(r));
        return Status::Ok();
      },
      next);
}

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_' || c == ':' || c == '[' || c == ']';
}

bool HasHttpScheme(std::string_view text) {
  auto starts = [&](std::string_view p) {
    return text.size() >= p.size() && std::equal(p.begin(), p.end(), text.begin(), [](char a, char b) {
             return a == std::tolower(static_cast<unsigned char>(b));
           });
  };
  return starts("http://") || starts("https://");
}

//! What the table holds about one URI, read from one snapshot.
struct UriCells {
  std::optional<std::string> cur, incount;
};

//! Both cells of a URI's row from its shard, in one read.
Result<UriCells> ReadUri(TableRead& read, const std::string& uri) {
  const std::string row = sink::PageRow(uri);
  ASSIGN_OR_RETURN(auto values, read.Get(uri, {sink::EncodeCellKey(row, "page", "cur"),
                                               sink::EncodeCellKey(row, "page", "incount")}));
  return UriCells{std::move(values[0]), std::move(values[1])};
}

Result<model::Url> ParsePageUrl(std::string_view url) {
  if (url.empty()) return Status::InvalidArgument("url is empty");
  return model::ParseUrl(url);
}

}  // namespace

Status CheckLimit(size_t limit) {
  if (limit < 1 || limit > kMaxLimit) {
    return Status::InvalidArgument("limit must be between 1 and " + std::to_string(kMaxLimit));
  }
  return Status::Ok();
}

Result<LinkType> ParseLinkType(std::string_view text) {
  if (text == "in") return LinkType::kIn;
  if (text == "out") return LinkType::kOut;
  return Status::InvalidArgument("linkType must be 'in' or 'out'");
}

Status NormalizeDomain(std::string_view text, std::string* key, std::string* name) {
  if (text.empty()) return Status::InvalidArgument("domain is empty");
  Result<model::Url> url = Status::InvalidArgument("");
  if (HasHttpScheme(text)) {
    url = model::ParseUrl(text);
  } else if (text.size() > 300 || !std::all_of(text.begin(), text.end(), IsHostChar)) {
    return Status::InvalidArgument("domain '" + std::string(text) + "' is not a host name or IP address");
  } else {
    url = model::ParseUrl("http://" + std::string(text) + "/");
  }
  if (!url.ok()) return Status::InvalidArgument("bad domain: " + url.status().message());
  *key = url->ReverseDomain();
  *name = url->domain;
  return Status::Ok();
}

std::string DisplayUrl(std::string_view uri) {
  auto url = model::UrlFromUri(uri);
  return url.ok() ? url->ToString() : std::string(uri);
}

QueryService::QueryService(state::Store& store)
    : source_(std::make_shared<StoreTableSource>(store)) {}
QueryService::QueryService(std::shared_ptr<TableSource> table) : source_(std::move(table)) {}

Result<TopResult> QueryService::Top(size_t limit, std::string_view cursor) {
  RETURN_IF_ERROR(CheckLimit(limit));
  auto read = source_->Read();
  TopResult out;
  RETURN_IF_ERROR(ScanRanked(*read, "t:", "", limit, cursor, &out.results, &out.next));
  return out;
}

Result<PagesResult> QueryService::Pages(std::string_view domain, size_t limit, std::string_view cursor) {
  RETURN_IF_ERROR(CheckLimit(limit));
  PagesResult out;
  std::string key;
  RETURN_IF_ERROR(NormalizeDomain(domain, &key, &out.domain));
  auto read = source_->Read();
  ASSIGN_OR_RETURN(auto pagecount, read->Get(key, {sink::EncodeCellKey(sink::DomainRow(key), "domain", "pagecount")}));
  if (pagecount[0]) {
    ASSIGN_OR_RETURN(out.total, ParseCount(*pagecount[0]));
  }
  RETURN_IF_ERROR(ScanRanked(*read, "d:" + key + ":", "rank", limit, cursor, &out.results, &out.next));
  return out;
}

Result<PageResult> QueryService::Page(std::string_view url) {
  ASSIGN_OR_RETURN(model::Url parsed, ParsePageUrl(url));
  PageResult out;
  out.uri = parsed.ToUri();
  out.url = parsed.ToString();
  out.domain = parsed.domain;
  auto read = source_->Read();
  ASSIGN_OR_RETURN(UriCells cells, ReadUri(*read, out.uri));
  if (!cells.cur && !cells.incount) return Status::NotFound("no page " + out.url + " in the index");
  if (cells.incount) {
    ASSIGN_OR_RETURN(out.incount, ParseCount(*cells.incount));
  }
  if (cells.cur) {
    codec::RecordDecoder decoder;
    ASSIGN_OR_RETURN(model::Page page, decoder.DecodePageJson(*cells.cur));
    out.crawled = true;
    out.num_outbound = page.links.size();
    out.crawl_date = std::move(page.crawl_date);
    out.title = std::move(page.title);
    out.server = std::move(page.server);
  }
  return out;
}

namespace {

//! Outlinks come from the page JSON; they are served sorted by target URI so that a cursor
//! (the last target URI) positions exactly as in the table's inlinks rows.
Status PageOutlinks(const std::optional<std::string>& cur, const std::string& row, size_t limit,
                    std::string_view cursor, LinksResult* out) {
  std::vector<model::Link> links;
  if (cur) {
    codec::RecordDecoder decoder;
    ASSIGN_OR_RETURN(model::Page page, decoder.DecodePageJson(*cur));
    links = std::move(page.links);
  }
  std::sort(links.begin(), links.end(), [](const model::Link& a, const model::Link& b) { return a.uri < b.uri; });
  out->total = links.size();
  auto it = links.begin();
  if (!cursor.empty()) {
    ASSIGN_OR_RETURN(sink::Cell at, DecodeCursor(cursor));
    if (at.row != row || at.cf != "outlinks") return Status::InvalidArgument("cursor does not belong to this query");
    it = std::upper_bound(links.begin(), links.end(), at.cq,
                          [](const std::string& uri, const model::Link& l) { return uri < l.uri; });
  }
  for (; it != links.end() && out->results.size() < limit; ++it) {
    out->results.push_back({it->url, it->uri, it->anchor_text});
  }
  if (it != links.end()) out->next = EncodeCursor(row, "outlinks", out->results.back().uri);
  return Status::Ok();
}

}  // namespace

Result<LinksResult> QueryService::Links(std::string_view url, LinkType type, size_t limit, std::string_view cursor) {
  RETURN_IF_ERROR(CheckLimit(limit));
  ASSIGN_OR_RETURN(model::Url parsed, ParsePageUrl(url));
  LinksResult out;
  out.type = type;
  out.uri = parsed.ToUri();
  out.url = parsed.ToString();
  auto read = source_->Read();
  ASSIGN_OR_RETURN(UriCells cells, ReadUri(*read, out.uri));
  if (!cells.cur && !cells.incount) return Status::NotFound("no page " + out.url + " in the index");
  const std::string row = sink::PageRow(out.uri);
  if (type == LinkType::kOut) {
    RETURN_IF_ERROR(PageOutlinks(cells.cur, row, limit, cursor, &out));
    return out;
  }
  if (cells.incount) {
    ASSIGN_OR_RETURN(out.total, ParseCount(*cells.incount));
  }
  RangeScan range{sink::CellPrefixKey(row, "inlinks"),
                  [&](const sink::Cell& c) { return c.row == row && c.cf == "inlinks"; }};
  RETURN_IF_ERROR(ScanPage(
      *read, range, limit, cursor,
      [&](const sink::Cell& c) {
        out.results.push_back({DisplayUrl(c.cq), c.cq, c.value});
        return Status::Ok();
      },
      &out.next));
  return out;
}

}  // namespace webindex::query
