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

//! The proleptic Gregorian calendar (Howard Hinnant's algorithms; any year, year 0 is 1 BCE), for
//! the parsers of RFC 3339 here and of xsd:dateTime (graph/temporal_index.h, sparql/expr_time.cc).
//! Days from 1970-01-01 to y-m-d, and back.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);
bool IsLeapYear(int64_t y);
//! 28 to 31 for m in 1..12.
int DaysInMonth(int64_t y, int m);
//! Reads exactly `n` ASCII digits at `pos` of `s` into `*out`; false when they are not there.
bool ParseDigits(std::string_view s, size_t pos, size_t n, int* out);

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
