// xsd:dateTime for SPARQL: parsing, XPath's comparison with and without timezones, the accessor
// functions YEAR ... TZ (§17.4.5) and NOW().
#include <charconv>
#include <cstdio>

#include "common/time.h"
#include "sparql/expr_internal.h"

namespace webindex::sparql::expr {
namespace {

//! Seconds since the epoch of the local time, minus `tz_minutes` (UTC when it had a zone).
int64_t Seconds(const DateTime& t, int tz_minutes) {
  return DaysFromCivil(t.year, static_cast<unsigned>(t.month), static_cast<unsigned>(t.day)) * 86400 + t.hour * 3600 + t.minute * 60 + t.second -
         int64_t{tz_minutes} * 60;
}

std::partial_ordering CompareAt(const DateTime& a, int tz_a, const DateTime& b, int tz_b) {
  const int64_t sa = Seconds(a, tz_a), sb = Seconds(b, tz_b);
  if (sa != sb) return sa <=> sb;
  return a.nanos <=> b.nanos;
}

std::string TimezoneDuration(int minutes) {
  if (minutes == 0) return "PT0S";
  std::string out = minutes < 0 ? "-PT" : "PT";
  const int m = minutes < 0 ? -minutes : minutes;
  if (m / 60) out += std::to_string(m / 60) + "H";
  if (m % 60) out += std::to_string(m % 60) + "M";
  return out;
}

}  // namespace

std::optional<DateTime> ParseDateTime(std::string_view s) {
  // -?YYYY+-MM-DDThh:mm:ss(.s+)?(Z|(+|-)hh:mm)?
  DateTime t;
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++i;
  size_t y = i;
  while (y < s.size() && s[y] >= '0' && s[y] <= '9') ++y;
  if (y - i < 4 || (y - i > 4 && s[i] == '0')) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data() + i, s.data() + y, t.year);
  if (ec != std::errc()) return std::nullopt;
  if (negative) t.year = -t.year;
  i = y;
  if (i + 15 > s.size() || s[i] != '-' || !ParseDigits(s, i + 1, 2, &t.month) || s[i + 3] != '-' ||
      !ParseDigits(s, i + 4, 2, &t.day) || s[i + 6] != 'T' || !ParseDigits(s, i + 7, 2, &t.hour) || s[i + 9] != ':' ||
      !ParseDigits(s, i + 10, 2, &t.minute) || s[i + 12] != ':' || !ParseDigits(s, i + 13, 2, &t.second)) {
    return std::nullopt;
  }
  i += 15;
  if (i < s.size() && s[i] == '.') {
    size_t f = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == f) return std::nullopt;
    t.fraction = std::string(s.substr(f, i - f));
    int64_t scale = 100000000;
    for (size_t k = 0; k < t.fraction.size() && k < 9; ++k, scale /= 10) t.nanos += (t.fraction[k] - '0') * scale;
  }
  if (i < s.size()) {
    int hh = 0, mm = 0;
    if (s[i] == 'Z' && i + 1 == s.size()) {
      t.tz_minutes = 0;
    } else if ((s[i] == '+' || s[i] == '-') && i + 6 == s.size() && ParseDigits(s, i + 1, 2, &hh) && s[i + 3] == ':' &&
               ParseDigits(s, i + 4, 2, &mm) && (hh < 14 || (hh == 14 && mm == 0)) && mm < 60) {
      t.tz_minutes = (s[i] == '-' ? -1 : 1) * (hh * 60 + mm);
    } else {
      return std::nullopt;
    }
  }
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > DaysInMonth(t.year, t.month) || t.minute > 59 ||
      t.second > 59) {
    return std::nullopt;
  }
  if (t.hour > 24 || (t.hour == 24 && (t.minute != 0 || t.second != 0 || t.nanos != 0))) return std::nullopt;
  return t;
}

std::optional<DateTime> ParseDate(std::string_view lexical) {
  // -?YYYY-MM-DD(Z|(+|-)hh:mm)?: midnight starting the day.
  size_t dash = lexical.find('-', lexical.starts_with("-") ? 1 : 0);
  if (dash == std::string_view::npos || dash + 6 > lexical.size()) return std::nullopt;
  const size_t end = dash + 6;
  std::string as_time(lexical.substr(0, end));
  as_time += "T00:00:00";
  as_time += lexical.substr(end);
  return ParseDateTime(as_time);
}

std::optional<std::partial_ordering> CompareDateTimes(const DateTime& a, const DateTime& b) {
  if (a.tz_minutes.has_value() == b.tz_minutes.has_value()) {
    return CompareAt(a, a.tz_minutes.value_or(0), b, b.tz_minutes.value_or(0));
  }
  // XPath: the one without a timezone could be anywhere from -14:00 to +14:00.
  const bool a_local = !a.tz_minutes;
  const int ta = a.tz_minutes.value_or(0), tb = b.tz_minutes.value_or(0);
  const std::partial_ordering lo = a_local ? CompareAt(a, 14 * 60, b, tb) : CompareAt(a, ta, b, 14 * 60);
  const std::partial_ordering hi = a_local ? CompareAt(a, -14 * 60, b, tb) : CompareAt(a, ta, b, -14 * 60);
  if (lo == hi && lo != 0) return lo;
  return std::nullopt;
}

std::strong_ordering OrderDateTimes(const DateTime& a, const DateTime& b) {
  const int64_t sa = Seconds(a, a.tz_minutes.value_or(0)), sb = Seconds(b, b.tz_minutes.value_or(0));
  if (sa != sb) return sa <=> sb;
  return a.nanos <=> b.nanos;
}

std::optional<graph::Term> DateTimeFunction(std::string_view name, const graph::Term& arg) {
  if (XsdLocal(arg) != "dateTime") return std::nullopt;
  const std::optional<DateTime> t = ParseDateTime(arg.value());
  if (!t) return std::nullopt;
  auto integer = [](int64_t v) { return graph::Term::Literal(std::to_string(v), Xsd("integer")); };
  if (name == "YEAR") return integer(t->year);
  if (name == "MONTH") return integer(t->month);
  if (name == "DAY") return integer(t->day);
  if (name == "HOURS") return integer(t->hour);
  if (name == "MINUTES") return integer(t->minute);
  if (name == "SECONDS") {
    std::string frac = t->fraction;
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return graph::Term::Literal(std::to_string(t->second) + "." + (frac.empty() ? "0" : frac), Xsd("decimal"));
  }
  if (name == "TIMEZONE") {
    if (!t->tz_minutes) return std::nullopt;
    return graph::Term::Literal(TimezoneDuration(*t->tz_minutes), Xsd("dayTimeDuration"));
  }
  if (name == "TZ") {
    if (!t->tz_minutes) return graph::Term::Literal("");
    if (*t->tz_minutes == 0) return graph::Term::Literal("Z");
    const int m = *t->tz_minutes < 0 ? -*t->tz_minutes : *t->tz_minutes;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%c%02d:%02d", *t->tz_minutes < 0 ? '-' : '+', m / 60, m % 60);
    return graph::Term::Literal(buf);
  }
  return std::nullopt;
}

graph::Term NowTerm(std::chrono::system_clock::time_point now) {
  const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  int64_t days = ms / 86400000, rem = ms % 86400000;
  if (rem < 0) rem += 86400000, --days;
  // civil_from_days
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  const int64_t y = yoe + era * 400 + (m <= 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", static_cast<long long>(y), m, d,
                static_cast<int>(rem / 3600000), static_cast<int>(rem / 60000 % 60), static_cast<int>(rem / 1000 % 60),
                static_cast<int>(rem % 1000));
  return graph::Term::Literal(buf, Xsd("dateTime"));
}

}  // namespace webindex::sparql::expr
