// RFC 3339 timestamps: parsed to an instant so that crawl dates compare by time, not spelling.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace webindex {

//! An instant: seconds since the Unix epoch and nanoseconds within the second. Covers every
//! RFC 3339 year (0000-9999) exactly; compares chronologically.
struct Instant {
  int64_t seconds = 0;
  int32_t nanos = 0;
  auto operator<=>(const Instant&) const = default;
};

//! The instant `text` names, or nullopt when it is not an RFC 3339 date-time
//! (YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), 'T'/'Z' in either case) or its fraction of a
//! second has more than 9 digits (an Instant holds nanoseconds).
std::optional<Instant> ParseRfc3339(std::string_view text);

//! Milliseconds since the Unix epoch as RFC 3339 in UTC, "2026-11-21T08:00:00.000Z" (years
//! 0000-9999; outside them the number itself).
std::string FormatRfc3339Ms(int64_t ms);

//! The wall clock now, in milliseconds since the Unix epoch.
int64_t NowMs();

}  // namespace webindex
