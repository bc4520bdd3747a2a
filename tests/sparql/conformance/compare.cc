// Answers compared as the W3C test rules say: solutions as a multiset (a list under ORDER BY,
// rows that tie on the ORDER BY variables in any order among themselves),
// blank nodes matched up to a bijection found by backtracking, graphs up to isomorphism (their
// statements as rows), CSV by its plain values. Numeric literals of one datatype compare by value
// (a result file may write 1.0 where the evaluator writes 1.00), and so do numbers in CSV.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "sparql/results_format.h"
#include "w3c_suite.h"

namespace webindex::sparql::w3c {
namespace {

using Row = std::map<std::string, graph::Term>;

bool IsNumeric(const std::string& datatype) {
  static const std::set<std::string> kTypes = {
      "integer", "decimal", "float", "double", "int", "long", "short", "byte", "nonNegativeInteger",
      "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
      "unsignedShort", "unsignedByte"};
  constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";
  return datatype.starts_with(kXsd) && kTypes.count(datatype.substr(kXsd.size()));
}

bool SameNumber(const graph::Term& a, const graph::Term& e) {
  if (!a.is_literal() || !e.is_literal() || a.datatype() != e.datatype() || !IsNumeric(a.datatype())) return false;
  char *end_a, *end_e;
  long double x = std::strtold(a.value().c_str(), &end_a), y = std::strtold(e.value().c_str(), &end_e);
  return *end_a == '\0' && *end_e == '\0' && !a.value().empty() && x == y;
}

//! The blank node bijection built so far: actual label <-> expected label.
struct Bijection {
  std::map<std::string, std::string> fwd, bwd;
  std::vector<std::string> added;  // fwd keys, in order, for undo

  bool Bind(const std::string& a, const std::string& e) {
    if (auto it = fwd.find(a); it != fwd.end()) return it->second == e;
    if (bwd.count(e)) return false;
    fwd[a] = e;
    bwd[e] = a;
    added.push_back(a);
    return true;
  }
  void UndoTo(size_t mark) {
    while (added.size() > mark) {
      bwd.erase(fwd[added.back()]);
      fwd.erase(added.back());
      added.pop_back();
    }
  }
};

bool TermMatch(const graph::Term& a, const graph::Term& e, bool csv, Bijection* b) {
  if (csv) {
    if (a.is_blank() && e.value().starts_with("_:")) return b->Bind(a.value(), e.value().substr(2));
    if (CsvValue(a) == e.value()) return true;
    // A number's CSV text may differ in form (1.0e6, 1.0E6): compared by value.
    return SameNumber(a, graph::Term::Literal(e.value(), a.datatype()));
  }
  if (a.is_blank() && e.is_blank()) return b->Bind(a.value(), e.value());
  if (a.is_blank() || e.is_blank()) return false;
  return a == e || SameNumber(a, e);
}

bool RowMatch(const Row& a, const Row& e, bool csv, Bijection* b) {
  if (a.size() != e.size()) return false;
  size_t mark = b->added.size();
  for (const auto& [var, term] : a) {
    auto it = e.find(var);
    if (it == e.end() || !TermMatch(term, it->second, csv, b)) {
      b->UndoTo(mark);
      return false;
    }
  }
  return true;
}

int Blanks(const Row& r) {
  return static_cast<int>(std::count_if(r.begin(), r.end(), [](const auto& kv) { return kv.second.is_blank(); }));
}

//! Matches `actual` to `expected` rows one to one, extending the bijection `b`.
struct Matcher {
  const std::vector<Row>& actual;
  const std::vector<Row>& expected;
  bool csv;
  Bijection& b;
  std::vector<size_t> order;
  std::vector<bool> used;
  long steps = 0;

  bool Go(size_t k) {
    if (k == order.size()) return true;
    if (++steps > 2'000'000) return false;
    const Row& a = actual[order[k]];
    const bool free = Blanks(a) == 0;
    for (size_t j = 0; j < expected.size(); ++j) {
      if (used[j]) continue;
      size_t mark = b.added.size();
      if (!RowMatch(a, expected[j], csv, &b)) continue;
      used[j] = true;
      if (Go(k + 1)) return true;
      used[j] = false;
      b.UndoTo(mark);
      if (free) return false;  // rows without blank nodes: any equal expected row does as well
    }
    return false;
  }
};

bool MultisetEqual(const std::vector<Row>& actual, const std::vector<Row>& expected, bool csv, Bijection* b) {
  if (actual.size() != expected.size()) return false;
  Matcher m{actual, expected, csv, *b, {}, std::vector<bool>(expected.size())};
  for (size_t i = 0; i < actual.size(); ++i) m.order.push_back(i);
  std::stable_sort(m.order.begin(), m.order.end(),
                   [&](size_t x, size_t y) { return Blanks(actual[x]) < Blanks(actual[y]); });
  return m.Go(0);
}

//! Whether two rows hold the same values of the ORDER BY variables (their order is free then).
bool SameKeys(const Row& x, const Row& y, const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    auto a = x.find(k), b = y.find(k);
    if ((a == x.end()) != (b == y.end()) || (a != x.end() && a->second != b->second)) return false;
  }
  return true;
}

bool RowsEqual(const std::vector<Row>& actual, const std::vector<Row>& expected, bool csv, bool ordered,
               const std::vector<std::string>& keys) {
  if (actual.size() != expected.size()) return false;
  Bijection b;
  if (!ordered) return MultisetEqual(actual, expected, csv, &b);
  // Runs of expected rows that tie on every ORDER BY variable compare as multisets, in order.
  for (size_t i = 0; i < expected.size();) {
    size_t j = i + 1;
    while (!keys.empty() && j < expected.size() && SameKeys(expected[i], expected[j], keys)) ++j;
    std::vector<Row> a(actual.begin() + i, actual.begin() + j), e(expected.begin() + i, expected.begin() + j);
    if (!MultisetEqual(a, e, csv, &b)) return false;
    i = j;
  }
  return true;
}

std::vector<Row> Dedup(std::vector<Row> rows) {
  std::vector<Row> out;
  for (auto& r : rows) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
  }
  return out;
}

std::vector<Row> GraphRows(const std::vector<graph::Statement>& g) {
  std::set<graph::Statement> set(g.begin(), g.end());
  std::vector<Row> rows;
  for (const auto& st : set) {
    Row r{{"s", st.subject}, {"p", st.predicate}, {"o", st.object}};
    if (st.graph) r["g"] = *st.graph;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string Show(const std::vector<Row>& rows) {
  std::ostringstream out;
  for (size_t i = 0; i < rows.size() && i < 8; ++i) {
    out << "\n    ";
    for (const auto& [v, t] : rows[i]) out << v << "=" << graph::ToNTriples(t) << " ";
  }
  if (rows.size() > 8) out << "\n    ... " << rows.size() - 8 << " more";
  return out.str();
}

}  // namespace

std::string Compare(const Answer& actual, const Answer& expected, bool ordered, bool lax,
                    const std::vector<std::string>& order_keys) {
  if (actual.kind != expected.kind) return "the answer is of another kind (rows, boolean, graph) than expected";
  if (actual.kind == Answer::Kind::kBoolean) {
    if (actual.boolean == expected.boolean) return "";
    return std::string("got ") + (actual.boolean ? "true" : "false") + ", expected " + (expected.boolean ? "true" : "false");
  }
  std::vector<Row> a = actual.kind == Answer::Kind::kGraph ? GraphRows(actual.graph) : actual.rows;
  std::vector<Row> e = expected.kind == Answer::Kind::kGraph ? GraphRows(expected.graph) : expected.rows;
  if (lax) {
    a = Dedup(std::move(a));
    e = Dedup(std::move(e));
  }
  const bool graph = actual.kind == Answer::Kind::kGraph;
  if (RowsEqual(a, e, expected.csv, ordered && !graph, order_keys)) return "";
  std::ostringstream why;
  why << a.size() << (graph ? " statements" : " rows") << ", expected " << e.size();
  if (ordered && !graph && RowsEqual(a, e, expected.csv, false, {})) why << " (the same rows in another order)";
  why << "\n  actual:" << Show(a) << "\n  expected:" << Show(e);
  return why.str();
}

}  // namespace webindex::sparql::w3c
