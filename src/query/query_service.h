// QueryService: the four questions the query table answers (top pages, a domain's pages, one
// page, a page's in- or outlinks), paged by cursors, and what the sink keeps beside it (domains
// by the start of their name, the table's totals). Reads through a TableSource (table_source.h):
// every call is one read of it (one RocksDB snapshot of a store, or of each shard of a partitioned
// table). Borrows the store (which must outlive it); stateless otherwise, so any thread may call it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "query/table_source.h"
#include "sink/summary.h"
#include "state/store.h"

namespace webindex::query {

inline constexpr size_t kDefaultLimit = 25;
inline constexpr size_t kMaxLimit = 1000;

//! One ranked page: its URL, URI and the number of pages linking to it.
struct RankedPage {
  std::string url, uri;
  uint64_t count = 0;
};

//! One link: the page at the other end and the anchor text.
struct LinkItem {
  std::string url, uri, anchor_text;
};

struct TopResult {
  std::vector<RankedPage> results;
  std::optional<std::string> next;  //!< cursor of the next page; nullopt at the end
};

struct PagesResult {
  std::string domain;  //!< registrable domain, e.g. "stackoverflow.com"
  uint64_t total = 0;  //!< pagecount: existing URIs of the domain
  std::vector<RankedPage> results;
  std::optional<std::string> next;
};

struct PageResult {
  std::string url, uri, domain;
  uint64_t incount = 0;
  uint64_t num_outbound = 0;
  bool crawled = false;  //!< has a current page (page|cur); false: only linked to
  std::optional<std::string> crawl_date, title, server;
  //! The page's score in the current PageRank result and that result's id (set by the caller
  //! that has one, see rank/rank_store.h).
  std::optional<double> pagerank;
  uint64_t pagerank_result = 0;
};

enum class LinkType { kIn, kOut };

inline constexpr size_t kDefaultSuggestLimit = 10;
inline constexpr size_t kMaxSuggestLimit = 50;

//! A domain or host the index knows, offered for the start of a name.
struct Suggestion {
  std::string name;    //!< "stackoverflow.com", "meta.stackoverflow.com"
  std::string domain;  //!< its registrable domain (name itself for a domain)
  bool is_domain = true;
  uint64_t pages = 0;  //!< the domain's page count (domains only)
};

struct SuggestResult {
  std::string q;  //!< the text as matched (lowercased, scheme and path dropped)
  std::vector<Suggestion> results;
  //! Some matches were not looked at: more domains start with the text than one answer reads.
  bool truncated = false;
};

struct LinksResult {
  std::string url, uri;
  LinkType type = LinkType::kIn;
  uint64_t total = 0;  //!< in: incount; out: numOutbound
  std::vector<LinkItem> results;
  std::optional<std::string> next;
};

class QueryService {
 public:
  //! Over the whole table in `store`.
  explicit QueryService(state::Store& store);
  //! Over `table` (a partitioned table: sharded_table.h).
  explicit QueryService(std::shared_ptr<TableSource> table);

  //! The most linked-to pages, count descending then URI (the t: rows). `cursor` "" = first page.
  Result<TopResult> Top(size_t limit, std::string_view cursor);
  //! A domain's most linked-to pages; `domain` is any host of it, an IP, or an http(s) URL.
  Result<PagesResult> Pages(std::string_view domain, size_t limit, std::string_view cursor);
  //! One page by URL; NotFound when the table knows no such URI.
  Result<PageResult> Page(std::string_view url);
  //! Pages linking to `url` (in, by source URI) or linked from it (out, by target URI).
  Result<LinksResult> Links(std::string_view url, LinkType type, size_t limit, std::string_view cursor);
  //! Domains whose name starts with `text` and hosts of them, most pages first (suggest.cc;
  //! bounds in docs/api.md). InvalidArgument for text that cannot start a host name.
  Result<SuggestResult> Suggest(std::string_view text, size_t limit);
  //! The table's totals as the sink keeps them; NotFound when it keeps none yet.
  Result<sink::TableTotals> Totals();

 private:
  std::shared_ptr<TableSource> source_;
};

//! Validates a limit: 1..kMaxLimit, else InvalidArgument.
Status CheckLimit(size_t limit);
//! "in" / "out"; InvalidArgument otherwise.
Result<LinkType> ParseLinkType(std::string_view text);
//! The domain key ("com.stackoverflow") and display name ("stackoverflow.com") of a host, IP or URL.
Status NormalizeDomain(std::string_view text, std::string* key, std::string* name);
//! The URL a URI stands for, as text; the URI itself if it does not decode.
std::string DisplayUrl(std::string_view uri);

}  // namespace webindex::query
