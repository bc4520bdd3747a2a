#include "common/time.h"

#include <chrono>

#include <ctime>

#include <fmt/format.h>

namespace webindex {
namespace {

}  // namespace

bool ParseDigits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

std::optional<Instant> ParseRfc3339(std::string_view s) {
  int year, mon, day, hour, min, sec;
  if (!ParseDigits(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !ParseDigits(s, 5, 2, &mon) || s[7] != '-' ||
      !ParseDigits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't') || !ParseDigits(s, 11, 2, &hour) || s[13] != ':' ||
      !ParseDigits(s, 14, 2, &min) || s[16] != ':' || !ParseDigits(s, 17, 2, &sec)) {
    return std::nullopt;
  }
  if (mon < 1 || mon > 12 || day < 1 || day > DaysInMonth(year, mon)) return std::nullopt;
  if (hour > 23 || min > 59 || sec > 60) return std::nullopt;  // 60: leap second
  size_t pos = 19;
  int32_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    int32_t scale = 100000000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      nanos += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    // Finer than nanoseconds would be cut, and two instants that differ would compare equal.
    if (pos == start || pos - start > 9) return std::nullopt;
  }
  if (pos >= s.size()) return std::nullopt;
  int64_t offset_sec = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!ParseDigits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !ParseDigits(s, pos + 4, 2, &om) ||
        oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_sec = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t secs = DaysFromCivil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec - offset_sec;
  return Instant{secs, nanos};
}

std::string FormatRfc3339Ms(int64_t ms) {
  const int64_t seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;  // floor
  const auto millis = static_cast<int>(ms - seconds * 1000);
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr || utc.tm_year + 1900 < 0 || utc.tm_year + 1900 > 9999) {
    return std::to_string(ms) + " ms since the epoch";
  }
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace webindex
