// A synthetic crawl with a web-like link graph, for benchmarks: pages spread over several
// thousand registrable domains, about N links per page, link targets drawn from a Zipf
// distribution over the URI space (a few URIs get most inlinks, most get one or none).
// Event(i) depends only on the seed and i, so any range is generated in O(1) memory.
// Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace webindex::bench {

struct CrawlShape {
  uint64_t pages = 100000;       //!< crawled pages, one event each (URI indices 0..pages-1)
  uint32_t links_per_page = 10;  //!< mean outlinks per page (uniform in [n/2, 3n/2])
  uint32_t domains = 5000;       //!< registrable domains the URI space is spread over
  uint64_t uri_space = 0;        //!< URIs links may point to; 0: 4 x pages
  double zipf = 0.9;             //!< in-degree skew: P(rank r) ~ r^-zipf
  double internal_links = 0.3;   //!< share of links to the page's own domain (relative URLs)
  uint64_t seed = 1;
};

//! One crawl event keyed by its page URL, and how many links it lists.
struct SyntheticEvent {
  std::string key;
  std::string value;
  uint32_t links = 0;
};

class SyntheticCrawl {
 public:
  //! `total_pages` is the highest page index + 1 that will be asked for (at least shape.pages).
  SyntheticCrawl(CrawlShape shape, uint64_t total_pages);

  //! The crawl event of page `i`; with `probe`, one more link to ProbeUrl(*probe), a URL no
  //! other event links to (its in-link count appears in the table only through this event).
  SyntheticEvent Event(uint64_t i, std::optional<uint64_t> probe = std::nullopt) const;
  //! The canonical URL of URI index `j` ("http://www.site12.co.uk/a/34.html").
  std::string PageUrl(uint64_t j) const;
  std::string ProbeUrl(uint64_t probe) const;
  //! Zipf rank in [0, n) for a uniform `u` in [0, 1): continuous inverse CDF, floored.
  static uint64_t ZipfRank(double u, uint64_t n, double s);

  uint64_t uri_space() const { return uri_space_; }
  const CrawlShape& shape() const { return shape_; }

 private:
  std::string Host(uint64_t domain) const;
  //! A link target of page `i`: an absolute URL elsewhere or a relative path in its domain.
  std::string LinkTarget(uint64_t i, uint64_t* state) const;

  CrawlShape shape_;
  uint64_t uri_space_;
  uint64_t per_domain_;  //!< URI indices per domain (uri_space / domains)
};

}  // namespace webindex::bench
