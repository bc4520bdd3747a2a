// libFuzzer target: URL parsing, URI form and link resolution. Invariants: a parsed URL's
// canonical form parses to the same URI, and the URI maps back to the same URL.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using webindex::model::ParseUrl;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\n');
  const std::string_view first = input.substr(0, split);
  auto url = ParseUrl(first);
  if (url.ok()) {
    const std::string uri = url->ToUri();
    auto again = ParseUrl(url->ToString());
    if (!again.ok() || again->ToUri() != uri) __builtin_trap();
    auto back = webindex::model::UrlFromUri(uri);
    if (!back.ok() || back->ToString() != url->ToString()) __builtin_trap();
    (void)webindex::model::DomainOfUri(uri);
    if (split != std::string_view::npos) {
      auto link = webindex::model::ResolveLink(*url, input.substr(split + 1));
      if (link.ok() && !ParseUrl(link->ToString()).ok()) __builtin_trap();
    }
  }
  return 0;
}
