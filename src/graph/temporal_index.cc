#include "graph/temporal_index.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/base64url.h"
#include "common/time.h"
#include "graph/ntriples.h"

namespace webindex::graph {
namespace {

constexpr size_t kMaxCursorChars = 1 << 20;
constexpr size_t kInstantBytes = 8;

//! Reads exactly `n` digits at `*pos`.
bool Fixed(std::string_view s, size_t* pos, size_t n, unsigned* out) {
  if (*pos + n > s.size()) return false;
  unsigned v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

//! Order-preserving: the sign bit flipped, big-endian.
void AppendInstant(int64_t seconds, std::string* out) {
  const uint64_t u = static_cast<uint64_t>(seconds) ^ (uint64_t{1} << 63);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((u >> shift) & 0xff));
}

bool ReadInstant(std::string_view* in, int64_t* seconds) {
  if (in->size() < kInstantBytes) return false;
  uint64_t u = 0;
  for (size_t i = 0; i < kInstantBytes; ++i) u = (u << 8) | static_cast<unsigned char>((*in)[i]);
  *seconds = static_cast<int64_t>(u ^ (uint64_t{1} << 63));
  in->remove_prefix(kInstantBytes);
  return true;
}

void AppendSpo(const Statement& st, std::string* out) {
  AppendTerm(st.subject, out);
  AppendTerm(st.predicate, out);
  AppendTerm(st.object, out);
}

//! The row key of `st` at instant `seconds`, by predicate or not.
void AppendTemporalKey(const KeySpace& space, bool by_predicate, const Statement& st, int64_t seconds,
                       std::string* key) {
  key->append(space.prefix);
  key->push_back(by_predicate ? kTemporalByPredicateRows : kTemporalRows);
  AppendGraph(st.graph, key);
  if (by_predicate) AppendTerm(st.predicate, key);
  AppendInstant(seconds, key);
  AppendSpo(st, key);
}

std::string TemporalKey(const KeySpace& space, bool by_predicate, const Statement& st, int64_t seconds) {
  std::string key;
  AppendTemporalKey(space, by_predicate, st, seconds, &key);
  return key;
}

//! An RFC 3339 time (or an xsd:dateTime lexical form) in whole UTC seconds.
Result<int64_t> ParseTime(std::string_view name, std::string_view text) {
  if (auto seconds = ParseInstant(text)) return *seconds;
  return Status::InvalidArgument(std::string(name) + ": '" + std::string(text) +
                                 "' is not a date-time; write RFC 3339, e.g. 2015-07-28T03:06:17Z or "
                                 "2015-07-28T05:06:17+02:00");
}

}  // namespace

std::optional<int64_t> ParseInstant(std::string_view text) {
  if (auto instant = ParseRfc3339(text)) return instant->seconds;
  return ParseXsdDateTime(text);
}

std::optional<int64_t> ParseXsdDateTime(std::string_view s) {
  size_t pos = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++pos;
  const size_t year_start = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  const size_t year_digits = pos - year_start;
  // At least four digits, no leading zero beyond four; at most 11, so that seconds fit 64 bits.
  if (year_digits < 4 || year_digits > 11 || (year_digits > 4 && s[year_start] == '0')) return std::nullopt;
  int64_t year = 0;
  for (size_t i = year_start; i < pos; ++i) year = year * 10 + (s[i] - '0');
  if (negative) year = -year;
  unsigned mon, day, hour, min, sec;
  if (!Expect(s, &pos, '-') || !Fixed(s, &pos, 2, &mon) || !Expect(s, &pos, '-') || !Fixed(s, &pos, 2, &day) ||
      !Expect(s, &pos, 'T') || !Fixed(s, &pos, 2, &hour) || !Expect(s, &pos, ':') || !Fixed(s, &pos, 2, &min) ||
      !Expect(s, &pos, ':') || !Fixed(s, &pos, 2, &sec)) {
    return std::nullopt;
  }
  bool fraction_zero = true;
  if (pos < s.size() && s[pos] == '.') {
    const size_t start = ++pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') fraction_zero &= s[pos++] == '0';
    if (pos == start) return std::nullopt;
  }
  if (mon < 1 || mon > 12 || day < 1 || day > static_cast<unsigned>(DaysInMonth(year, static_cast<int>(mon)))) {
    return std::nullopt;
  }
  if (min > 59 || sec > 59) return std::nullopt;
  if (hour > 24 || (hour == 24 && (min != 0 || sec != 0 || !fraction_zero))) return std::nullopt;
  int64_t offset = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const bool west = s[pos++] == '-';
      unsigned oh, om;
      if (!Fixed(s, &pos, 2, &oh) || !Expect(s, &pos, ':') || !Fixed(s, &pos, 2, &om) || om > 59 || oh > 14 ||
          (oh == 14 && om != 0)) {
        return std::nullopt;
      }
      offset = static_cast<int64_t>(oh) * 3600 + static_cast<int64_t>(om) * 60;
      if (west) offset = -offset;
    } else {
      return std::nullopt;
    }
  }
  if (pos != s.size()) return std::nullopt;
  return DaysFromCivil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec - offset;
}

std::string FormatXsdDateTime(int64_t seconds) {
  const int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
  const int64_t rest = seconds - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y < 0 ? "-" : "", y < 0 ? -y : y, m, d, rest / 3600,
                     rest / 60 % 60, rest % 60);
}

void AppendTemporalRows(const IndexSet& indexes, const KeySpace& space, const Statement& st, bool add,
                        state::SortedWrites* rows, IndexNotes* notes) {
  if (!st.object.is_literal() || st.object.datatype() != kXsdDateTime || !indexes.TemporalHolds(st.predicate.value())) {
    return;
  }
  const auto seconds = ParseXsdDateTime(st.object.value());
  if (!seconds) {
    if (add) {
      ++notes->unparsed_dates;
      notes->last_unparsed = st.object.value();
    }
    return;
  }
  for (const bool by_predicate : {false, true}) {
    AppendTemporalKey(space, by_predicate, st, *seconds, &rows->BeginKey());
    EndRow(rows, add);
  }
}

Result<TemporalQuery> ParseTemporalQuery(std::string_view before, std::string_view after, std::string_view equals,
                                         std::string_view within, std::string_view predicate,
                                         std::string_view graph) {
  TemporalQuery q;
  const int given = !before.empty() + !after.empty() + !equals.empty() + !within.empty();
  if (given != 1) {
    return Status::InvalidArgument("give exactly one of before, after, equals and within (T1/T2)");
  }
  if (!before.empty()) {
    q.op = TemporalQuery::Op::kBefore;
    ASSIGN_OR_RETURN(q.t1, ParseTime("before", before));
  } else if (!after.empty()) {
    q.op = TemporalQuery::Op::kAfter;
    ASSIGN_OR_RETURN(q.t1, ParseTime("after", after));
  } else if (!equals.empty()) {
    q.op = TemporalQuery::Op::kEquals;
    ASSIGN_OR_RETURN(q.t1, ParseTime("equals", equals));
  } else {
    q.op = TemporalQuery::Op::kWithin;
    const size_t slash = within.find('/');
    if (slash == std::string_view::npos) {
      return Status::InvalidArgument("within: write T1/T2, e.g. 2015-07-01T00:00:00Z/2015-08-01T00:00:00Z");
    }
    ASSIGN_OR_RETURN(q.t1, ParseTime("within", within.substr(0, slash)));
    ASSIGN_OR_RETURN(q.t2, ParseTime("within", within.substr(slash + 1)));
    if (q.t1 > q.t2) return Status::InvalidArgument("within: T1 is after T2");
  }
  ASSIGN_OR_RETURN(Pattern p, ParsePattern("", predicate, "", graph));
  q.predicate = std::move(p.predicate);
  q.graph = std::move(p.graph);
  return q;
}

Status TemporalReader::Scan(const TemporalQuery& q, std::string_view cursor, const GraphReader::Visitor& fn) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  int64_t lo = kMin;  // inclusive
  std::optional<int64_t> hi;  // exclusive; none: to the end
  switch (q.op) {
    case TemporalQuery::Op::kBefore:
      hi = q.t1;
      break;
    case TemporalQuery::Op::kAfter:
      if (q.t1 == kMax) return Status::Ok();
      lo = q.t1 + 1;
      break;
    case TemporalQuery::Op::kEquals:
      lo = q.t1;
      if (q.t1 != kMax) hi = q.t1 + 1;
      break;
    case TemporalQuery::Op::kWithin:
      if (q.t1 == kMax) return Status::Ok();
      lo = q.t1 + 1;
      hi = q.t2;
      break;
  }
  if (hi && *hi <= lo) return Status::Ok();
  const bool by_predicate = q.predicate.has_value();
  std::string base = space_.prefix;
  base.push_back(by_predicate ? kTemporalByPredicateRows : kTemporalRows);
  std::string predicate;
  if (by_predicate) AppendTerm(*q.predicate, &predicate);
  std::optional<std::string> fixed;  // base + graph, when one graph is read
  if (q.graph.kind != GraphSelector::Kind::kAll) {
    fixed = base;
    AppendGraph(q.graph.kind == GraphSelector::Kind::kNamed ? std::optional<Term>(q.graph.name) : std::nullopt,
                &*fixed);
  }

  std::string after;  // the cursor's key: the scan resumes strictly after it
  std::string start = fixed ? *fixed + predicate : base;
  if (fixed) AppendInstant(lo, &start);  // else graphs are found as the scan meets them
  Statement st;
  if (!cursor.empty()) {
    std::string rest;
    if (cursor.size() <= kMaxCursorChars) {
      auto decoded = Base64UrlDecode(cursor);
      if (decoded.ok()) rest = std::move(decoded).value();
    }
    std::string_view in = rest;
    Term p;
    int64_t at = 0;
    if (in.empty() || in.front() != base.back()) return Status::InvalidArgument("bad cursor");
    in.remove_prefix(1);
    if (!ReadGraph(&in, &st.graph) || (by_predicate && !ReadTerm(&in, &p)) || !ReadInstant(&in, &at) ||
        !ReadTerm(&in, &st.subject) || !ReadTerm(&in, &st.predicate) || !ReadTerm(&in, &st.object) || !in.empty()) {
      return Status::InvalidArgument("bad cursor");
    }
    const Pattern scope{std::nullopt, q.predicate, std::nullopt, q.graph};
    if (!Matches(scope, st) || at < lo || (hi && at >= *hi)) {
      return Status::InvalidArgument("cursor does not belong to this query");
    }
    start = after = space_.prefix + rest;
  }

  auto it = store_.NewIterator(space_.family, snapshot_);
  it->Seek(start);
  while (it->Valid()) {
    const std::string_view key = it->key();
    if (!key.starts_with(base)) break;
    std::string_view rest = key.substr(base.size());
    if (!ReadGraph(&rest, &st.graph)) return Status::Corruption("undecodable temporal row key");
    const std::string_view graph_prefix = key.substr(0, key.size() - rest.size());
    if (fixed && graph_prefix != *fixed) break;
    const std::string head = std::string(graph_prefix) + predicate;
    std::string first = head;
    AppendInstant(lo, &first);
    if (key < first) {
      it->Seek(first);
      continue;
    }
    std::string end = head;
    if (hi) {
      AppendInstant(*hi, &end);
    } else {
      end = PrefixEnd(head);
    }
    if (key >= end) {  // past this graph's matches
      if (fixed) break;
      it->Seek(PrefixEnd(graph_prefix));
      continue;
    }
    if (!after.empty() && key == after) {
      it->Next();
      continue;
    }
    rest = key.substr(head.size());
    int64_t at;
    if (!ReadInstant(&rest, &at) || !ReadTerm(&rest, &st.subject) || !ReadTerm(&rest, &st.predicate) ||
        !ReadTerm(&rest, &st.object) || !rest.empty()) {
      return Status::Corruption("undecodable temporal row key");
    }
    if (!fn(st)) return Status::Ok();
    it->Next();
  }
  return it->status();
}

Result<Page> TemporalReader::Query(const TemporalQuery& q, size_t limit, std::string_view cursor) {
  Page page;
  ASSIGN_OR_RETURN(const bool more, FillPage(limit, &page, [&](const GraphReader::Visitor& fn) {
    return Scan(q, cursor, fn);
  }));
  if (more) {
    const Statement& last = page.statements.back();
    const auto seconds = ParseXsdDateTime(last.object.value());
    if (!seconds) return Status::Corruption("temporal row of an unparsable date-time");
    const std::string key = TemporalKey(space_, q.predicate.has_value(), last, *seconds);
    page.next = Base64UrlEncode(std::string_view(key).substr(space_.prefix.size()));
  }
  return page;
}

}  // namespace webindex::graph
