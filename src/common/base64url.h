// base64url (RFC 4648 §5) without padding: how the query API's and the graph store's cursors
// spell store keys in URLs. Stateless; any thread.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex {

std::string Base64UrlEncode(std::string_view bytes);
//! InvalidArgument on characters outside the alphabet, padding, an impossible length, or
//! non-zero leftover bits (so every byte string has exactly one spelling).
Result<std::string> Base64UrlDecode(std::string_view text);

}  // namespace webindex
