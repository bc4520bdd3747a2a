#include "table_compare.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "model/url.h"
#include "query/table_reader.h"

namespace webindex::testing {
namespace {

std::string Text(const std::vector<query::RankedPage>& pages, const std::optional<std::string>& next) {
  std::ostringstream out;
  for (const auto& p : pages) out << p.url << " " << p.uri << " " << p.count << "\n";
  out << "next " << next.value_or("-");
  return out.str();
}
std::string Text(const query::LinksResult& r) {
  std::ostringstream out;
  out << r.url << " " << r.uri << " total " << r.total << "\n";
  for (const auto& l : r.results) out << l.url << " " << l.uri << " [" << l.anchor_text << "]\n";
  out << "next " << r.next.value_or("-");
  return out.str();
}
std::string Text(const query::PageResult& r) {
  std::ostringstream out;
  out << r.url << " " << r.uri << " " << r.domain << " in " << r.incount << " out " << r.num_outbound << " crawled "
      << r.crawled << " " << r.crawl_date.value_or("-") << " " << r.title.value_or("-") << " " << r.server.value_or("-");
  return out.str();
}
std::string Text(const query::SuggestResult& r) {
  std::ostringstream out;
  out << r.q << (r.truncated ? " truncated" : "") << "\n";
  for (const auto& s : r.results) out << s.name << " " << s.domain << " " << s.is_domain << " " << s.pages << "\n";
  return out.str();
}
std::string Text(const sink::TableTotals& t) {
  return "pages " + std::to_string(t.pages) + " crawled " + std::to_string(t.crawled) + " linked " +
         std::to_string(t.linked) + " links " + std::to_string(t.links) + " domains " + std::to_string(t.domains);
}
template <typename T>
std::string TextOf(const Result<T>& r) {
  if (!r.ok()) return "error " + r.status().ToString();
  if constexpr (std::is_same_v<T, query::TopResult>) {
    return Text(r->results, r->next);
  } else if constexpr (std::is_same_v<T, query::PagesResult>) {
    return r->domain + " " + std::to_string(r->total) + "\n" + Text(r->results, r->next);
  } else {
    return Text(*r);
  }
}

//! Pages through a question on both services with the same random page sizes; every page and
//! cursor must agree. Returns the items seen (to check that the walk reached the end).
template <typename Ask>
size_t WalkBoth(std::mt19937_64& rng, Ask ask, query::QueryService& whole, query::QueryService& sharded,
                const std::string& what, size_t* differed) {
  std::string cursor;
  size_t items = 0;
  for (int page = 0; page < 10000; ++page) {
    const size_t limit = 1 + rng() % 7;
    auto a = ask(whole, limit, cursor);
    auto b = ask(sharded, limit, cursor);
    if (TextOf(a) != TextOf(b)) ++*differed;
    EXPECT_EQ(TextOf(a), TextOf(b)) << what << ", page " << page << ", limit " << limit;
    if (!a.ok() || !b.ok()) return items;
    items += a->results.size();
    if (!a->next) return items;
    cursor = *a->next;
  }
  ADD_FAILURE() << what << ": no end";
  return items;
}

}  // namespace

std::string PageText(const Result<query::PageResult>& page) { return TextOf(page); }

size_t ExpectSameAnswers(state::Store& table, query::QueryService& whole, query::QueryService& other,
                         std::mt19937_64& rng) {
  size_t differed = 0;
  auto same = [&](const std::string& a, const std::string& b, const std::string& what) {
    if (a != b) ++differed;
    EXPECT_EQ(a, b) << what;
  };
  same(TextOf(whole.Totals()), TextOf(other.Totals()), "totals");
  auto totals = whole.Totals();
  const size_t top = WalkBoth(
      rng, [](query::QueryService& q, size_t limit, const std::string& c) { return q.Top(limit, c); }, whole, other,
      "top", &differed);
  if (totals.ok()) EXPECT_EQ(top, totals->pages);

  std::set<std::string> domains, uris;
  EXPECT_TRUE(query::ScanRows(table, "", [&](const sink::Cell& c) {
                if (c.row.starts_with("d:") && c.cf == "domain") domains.insert(c.row.substr(2));
                if (c.row.starts_with("p:")) uris.insert(c.row.substr(2));
                return true;
              }).ok());
  for (const std::string& key : domains) {
    const std::string name = model::HostName(key);
    WalkBoth(
        rng, [&](query::QueryService& q, size_t limit, const std::string& c) { return q.Pages(name, limit, c); },
        whole, other, "pages of " + name, &differed);
  }
  for (const std::string& uri : uris) {
    const std::string url = query::DisplayUrl(uri);
    same(TextOf(whole.Page(url)), TextOf(other.Page(url)), "page " + url);
    for (query::LinkType type : {query::LinkType::kIn, query::LinkType::kOut}) {
      WalkBoth(
          rng,
          [&](query::QueryService& q, size_t limit, const std::string& c) { return q.Links(url, type, limit, c); },
          whole, other, (type == query::LinkType::kIn ? "inlinks of " : "outlinks of ") + url, &differed);
    }
  }
  same(TextOf(whole.Page("http://no-such-page.example/")), TextOf(other.Page("http://no-such-page.example/")),
       "a page the table lacks");

  // Suggestions for the starts of domain and host names (a host's start names the host through
  // its domain: "www.site1" -> www.site1.com), with random limits.
  std::set<std::string> texts;
  for (const std::string& key : domains) {
    const std::string name = model::HostName(key);
    for (size_t n : {size_t{1}, size_t{2}, size_t{4}, name.size()}) texts.insert(name.substr(0, n));
  }
  for (const std::string& uri : uris) {
    auto url = model::UrlFromUri(uri);
    if (!url.ok()) continue;
    const std::string host = url->host;
    const size_t dot = host.find('.');
    if (dot != std::string::npos && dot + 3 <= host.size()) texts.insert(host.substr(0, dot + 3));
  }
  texts.insert("no-such-name");
  for (const std::string& text : texts) {
    const size_t limit = 1 + rng() % 12;
    same(TextOf(whole.Suggest(text, limit)), TextOf(other.Suggest(text, limit)),
         "suggestions for '" + text + "', limit " + std::to_string(limit));
  }
  return differed;
}

}  // namespace webindex::testing
