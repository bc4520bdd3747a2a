// RFC 3339 timestamps: parsed to an instant so that crawl dates compare by time, not spelling.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace webindex {

//! Nanoseconds since the Unix epoch, or nullopt when `text` is not an RFC 3339 date-time
//! (YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), 'T'/'Z' in either case).
std::optional<int64_t> ParseRfc3339(std::string_view text);

}  // namespace webindex
