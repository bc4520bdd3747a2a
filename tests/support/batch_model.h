// The reference: a batch computation of the query table (docs/semantics.md §4) over the current pages
// (docs/semantics.md §3) of a sequence of crawl events, written as plainly as possible.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/page.h"

namespace webindex::testing {

class BatchModel {
 public:
  //! Folds one raw event value (invalid ones change nothing), in topic order.
  void Apply(const std::string& value);
  //! The table's text lines, sorted, as `webindex dump` prints them.
  std::vector<std::string> TableLines() const;
  size_t invalid_events() const { return invalid_; }
  size_t current_pages() const;
  //! The current pages, by URI.
  std::vector<model::Page> CurrentPages() const;

 private:
  struct UriState {
    std::optional<Instant> date;
    std::optional<std::string> date_text;
    std::optional<uint64_t> revision;
    std::optional<model::Page> page;
  };
  std::map<std::string, UriState> pages_;
  size_t invalid_ = 0;
};

}  // namespace webindex::testing
