#include "batch_model.h"

#include <algorithm>
#include <set>

#include "codec/event.h"
#include "codec/records.h"
#include "model/lexicoder.h"
#include "model/url.h"
#include "query/table_reader.h"

namespace webindex::testing {

void BatchModel::Apply(const std::string& value) {
  static codec::EventDecoder decoder;
  auto ev = decoder.Decode(value);
  if (!ev.ok()) {
    ++invalid_;
    return;
  }
  UriState& s = pages_[ev->page.uri];
  if (ev->revision && s.revision) {
    if (*ev->revision < *s.revision) return;  // stale by revision, whatever the dates say
  } else if (ev->crawl_time && s.date && *ev->crawl_time < *s.date) {
    return;  // stale by date
  }
  if (ev->revision) s.revision = ev->revision;
  if (ev->crawl_time) {
    s.date = ev->crawl_time;
    s.date_text = ev->page.crawl_date;
  } else if (s.date) {
    ev->page.crawl_date = s.date_text;
  }
  if (ev->deleted) {
    s.page.reset();
  } else {
    s.page = ev->page;
  }
}

size_t BatchModel::current_pages() const {
  return std::count_if(pages_.begin(), pages_.end(), [](const auto& kv) { return kv.second.page.has_value(); });
}

std::vector<model::Page> BatchModel::CurrentPages() const {
  std::vector<model::Page> out;
  for (const auto& [uri, state] : pages_) {
    if (state.page) out.push_back(*state.page);
  }
  return out;
}

std::vector<std::string> BatchModel::TableLines() const {
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> cells;
  auto put = [&](std::string row, std::string cf, std::string cq, std::string value) {
    cells[{std::move(row), std::move(cf), std::move(cq)}] = std::move(value);
  };
  std::map<std::string, model::UriInfo> info;
  for (const auto& [uri, s] : pages_) {
    if (!s.page) continue;
    info[uri].docs = 1;
    put("p:" + uri, "page", "cur", codec::EncodePageJson(*s.page));
    for (const auto& l : s.page->links) {
      info[l.uri].links_to += 1;
      put("p:" + l.uri, "inlinks", uri, l.anchor_text);
    }
  }
  std::map<std::string, int64_t> domain_pages;
  for (const auto& [uri, i] : info) {
    const std::string n = std::to_string(i.links_to);
    const std::string rev = model::ReverseCountHex(static_cast<uint64_t>(i.links_to));
    const std::string domain(model::DomainOfUri(uri));
    put("p:" + uri, "page", "incount", n);
    put("t:" + rev + ":" + uri, "", "", n);
    put("d:" + domain + ":" + rev + ":" + uri, "rank", "", n);
    domain_pages[domain] += 1;
  }
  for (const auto& [domain, n] : domain_pages) put("d:" + domain, "domain", "pagecount", std::to_string(n));
  std::vector<std::string> lines;
  for (const auto& [k, v] : cells) {
    lines.push_back(query::CellLine({std::get<0>(k), std::get<1>(k), std::get<2>(k), v}));
  }
  return lines;
}

}  // namespace webindex::testing
