// Request targets: the path and the percent-decoded query parameters (RFC 3986 §2.1, with
// '+' as space in the query as HTML forms send it). Stateless; any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex::http {

struct Target {
  std::string path;                           //!< decoded, e.g. "/api/top"
  std::map<std::string, std::string> params;  //!< decoded name -> decoded value
};

//! Decodes %XX escapes (and '+' as space when `plus_is_space`); InvalidArgument on a bad escape
//! or a decoded result that is not UTF-8.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space);

//! Splits "/path?a=1&b=x%20y"; InvalidArgument on bad escapes, a parameter given twice or a
//! target that is not origin-form ("/...").
Result<Target> ParseTarget(std::string_view target);

}  // namespace webindex::http
