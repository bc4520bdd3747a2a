// The data model of the link graph: crawl events, pages with their outlinks, and the
// per-URI counts (UriInfo) the aggregation stages keep. Plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time.h"

namespace webindex::model {

struct Link {
  std::string url;  //!< canonical URL (Url::ToString)
  std::string uri;  //!< URI form (Url::ToUri)
  std::string anchor_text;
  bool operator==(const Link&) const = default;
};

//! A current page as the table shows it in `page|cur`.
struct Page {
  std::string url;
  std::string uri;
  std::optional<std::string> crawl_date;  //!< RFC 3339 text as received
  std::optional<std::string> title;
  std::optional<std::string> server;
  std::vector<Link> links;  //!< deduplicated by uri, first anchor text kept, input order
  bool operator==(const Page&) const = default;
};

//! A validated crawl event, keyed by the page's URI.
struct CrawlEvent {
  Page page;                               //!< links already resolved and deduplicated
  std::optional<Instant> crawl_time;       //!< parsed crawlDate
  std::optional<uint64_t> revision;        //!< the source's revision number, when it has one
  bool deleted = false;
  uint32_t dropped_links = 0;              //!< links whose url did not resolve
  uint32_t truncated_links = 0;            //!< links beyond the per-page limit
};

//! What the page stage remembers per URI: the current page (if any), the recorded date and
//! revision.
struct PageState {
  uint64_t version = 0;                    //!< grows on every change of the exported page
  std::optional<Instant> date;             //!< recorded crawlDate (also kept by deletes)
  std::optional<std::string> date_text;
  std::optional<uint64_t> revision;        //!< recorded revision (also kept by deletes)
  std::optional<Page> page;                //!< nullopt: no current page
};

//! Counts of one URI: pages linking to it, and whether it is itself a current page.
struct UriInfo {
  int64_t links_to = 0;
  int64_t docs = 0;
  bool Exists() const { return links_to != 0 || docs != 0; }
  bool operator==(const UriInfo&) const = default;
};

//! Removes links to an already-seen uri, keeping the first (and its anchor text).
void DedupLinks(std::vector<Link>* links);

}  // namespace webindex::model
