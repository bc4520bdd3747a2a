// Page URLs in webindex form: parsing (docs/semantics.md §2), URI form, registrable domain, and
// RFC 3986 resolution of relative links. Immutable values; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex::model {

struct Url {
  std::string host;    //!< lowercased, e.g. "www.d.com.au" or "1.2.3.4"
  std::string domain;  //!< registrable domain ("d.com.au"), or the IP itself
  std::string path;    //!< from the first '/', '?' or '#', case kept; "/" when absent
  int port = 80;
  bool secure = false;
  bool ip_host = false;

  //! "http[s]://host[:port]path", port only when not the scheme's default.
  std::string ToString() const;
  //! "<rev domain>><rev host minus rev domain>>(s|o)[port]><path>", e.g. "au.com.d>.www>s9443>/a/bc".
  std::string ToUri() const;
  //! The domain key: the URI's first field ("com.b", "1.2.3.4").
  std::string ReverseDomain() const;
};

//! Parses an absolute http(s) URL by webindex's URL.from rules; InvalidArgument with the reason.
Result<Url> ParseUrl(std::string_view raw);

//! Resolves a link found on `base` (RFC 3986 §5); absolute links are parsed as they are.
Result<Url> ResolveLink(const Url& base, std::string_view link);

//! The URL a URI stands for (inverse of Url::ToUri).
Result<Url> UrlFromUri(std::string_view uri);

//! The domain key of a URI (its first field), without parsing the rest.
std::string_view DomainOfUri(std::string_view uri);

//! The plain name of a domain key or reversed host: "com.stackoverflow" -> "stackoverflow.com";
//! an IP address stays as it is.
std::string HostName(std::string_view reversed);

}  // namespace webindex::model
