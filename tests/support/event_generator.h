// Random crawl-event streams for incremental-versus-batch tests: upserts, deletes (unknown
// and repeated too), stale and missing crawlDates and revisions, duplicate deliveries, anchor-only edits,
// self and relative links, differently spelled URLs of one page, and invalid events.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace webindex::testing {

struct GeneratedEvent {
  std::string key;    //!< the URL as a crawler would key it (may be spelled differently)
  std::string value;  //!< the event JSON (or garbage)
  int partition_hint; //!< stable per page URI, so one page's events keep their order
};

class EventGenerator {
 public:
  //! Events of `pages` pages (the first 24 always the same few hosts' pages; more on more hosts).
  EventGenerator(uint64_t seed, int partitions, size_t pages = 24);
  std::vector<GeneratedEvent> Next(size_t count);

 private:
  std::string PageUrl(size_t i);
  std::string Spell(const std::string& url);
  std::string Date();
  std::string Anchor();
  std::string Link(size_t self);
  GeneratedEvent Upsert(size_t page, bool anchor_only);
  GeneratedEvent Delete(size_t page);
  GeneratedEvent Invalid();
  GeneratedEvent Make(size_t page, std::string value);

  std::mt19937_64 rng_;
  int partitions_;
  std::vector<std::string> pages_;
  std::map<size_t, std::vector<std::pair<std::string, std::string>>> last_links_;  // page -> (url, anchor)
  GeneratedEvent previous_;
  bool has_previous_ = false;
};

}  // namespace webindex::testing
