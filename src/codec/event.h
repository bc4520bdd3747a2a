// Crawl-event decoding (docs/semantics.md §1): JSON bytes -> validated model::CrawlEvent, or the reason it
// is invalid. One EventDecoder per thread (it reuses its parser buffers).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "model/page.h"

namespace webindex::codec {

struct DecodeLimits {
  size_t max_event_bytes = 1 << 20;  //!< larger events are invalid
  size_t max_outlinks = 10000;       //!< links beyond this are dropped and counted
};

class EventDecoder {
 public:
  explicit EventDecoder(DecodeLimits limits = {});
  ~EventDecoder();
  EventDecoder(const EventDecoder&) = delete;
  EventDecoder& operator=(const EventDecoder&) = delete;

  //! InvalidArgument carries the dead-letter reason.
  Result<model::CrawlEvent> Decode(std::string_view json);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

//! What `webindex load` needs of a line: the page URL to key it by. InvalidArgument when the
//! line is not a JSON object with a string "url".
Result<std::string> ExtractEventUrl(std::string_view json);

}  // namespace webindex::codec
