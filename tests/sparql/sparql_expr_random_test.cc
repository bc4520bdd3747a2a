// Randomized checks of the expression evaluator against simple models: numeric comparisons and
// arithmetic of random integers, decimals and doubles against long double, and ORDER BY's order
// as a total order (antisymmetric, transitive) over a mix of every kind of term.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "seeds.h"
#include "sparql/expr_eval.h"
#include "sparql/parser.h"

namespace webindex::sparql {
namespace {

using graph::Term;

std::string Xsd(const char* local) { return std::string("http://www.w3.org/2001/XMLSchema#") + local; }

//! A random number as a literal of a random numeric type, and its value.
std::pair<Term, long double> RandomNumber(std::mt19937_64& rng) {
  const int64_t whole = static_cast<int64_t>(rng() % 2001) - 1000;
  const int frac = static_cast<int>(rng() % 100);
  switch (rng() % 4) {
    case 0: return {Term::Literal(std::to_string(whole), Xsd(rng() % 2 ? "integer" : "int")), whole};
    case 1: {
      const std::string sign = whole < 0 || (whole == 0 && rng() % 2) ? "-" : "";
      const std::string text = sign + std::to_string(std::llabs(whole)) + "." + (frac < 10 ? "0" : "") + std::to_string(frac);
      return {Term::Literal(text, Xsd("decimal")), std::stold(text)};
    }
    case 2: {
      const double d = static_cast<double>(whole) / 8;  // exact in binary
      return {Term::Literal(std::to_string(d), Xsd("double")), d};
    }
    default: {
      const double d = static_cast<double>(whole) / 4;
      return {Term::Literal(std::to_string(d) + "E0", Xsd("float")), d};
    }
  }
}

struct Fixture {
  VarTable vars;
  ExprContext context;
  Expr less, add, multiply, subtract;
  Fixture() {
    vars.Add("a");
    vars.Add("b");
    context.vars = &vars;
    less = Parse("?a < ?b");
    add = Parse("?a + ?b");
    multiply = Parse("?a * ?b");
    subtract = Parse("?a - ?b");
  }
  static Expr Parse(const std::string& text) {
    Result<Query> q = ParseQuery("SELECT * { FILTER(" + text + ") }");
    return q.ok() ? q->where->elements.at(0).expr : Expr{};
  }
};

long double ValueOf(const std::optional<Term>& t) { return t ? std::stold(t->value()) : NAN; }

TEST(ExprRandomTest, NumericComparisonAndArithmetic) {
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    Fixture f;
    for (int i = 0; i < 2000; ++i) {
      const auto [a, x] = RandomNumber(rng);
      const auto [b, y] = RandomNumber(rng);
      const Solution s = {a, b};
      const std::string what = ToNTriples(a) + " " + ToNTriples(b);
      ASSERT_EQ(EvaluateBoolean(f.less, s, f.context), x < y) << what;
      const long double tolerance = 1e-4L * (1 + std::fabs(x) + std::fabs(y));
      ASSERT_NEAR(ValueOf(Evaluate(f.add, s, f.context)), x + y, tolerance) << what;
      ASSERT_NEAR(ValueOf(Evaluate(f.subtract, s, f.context)), x - y, tolerance) << what;
      ASSERT_NEAR(ValueOf(Evaluate(f.multiply, s, f.context)), x * y, tolerance * (1 + std::fabs(x * y))) << what;
      ASSERT_EQ(CompareForOrder(a, b) < 0, x < y || (x == y && CompareForOrder(a, b) < 0)) << what;
      if (x < y) ASSERT_LT(CompareForOrder(a, b), 0) << what;
    }
  }
}

Term RandomTerm(std::mt19937_64& rng) {
  static const char* kWords[] = {"a", "b", "ab", "B", "1", "01", "abc", "", "2002-04-02T12:00:00Z"};
  const std::string word = kWords[rng() % std::size(kWords)];
  switch (rng() % 9) {
    case 0: return Term::Iri("http://e/" + word);
    case 1: return Term::Blank("b" + word);
    case 2: return Term::Literal(word);
    case 3: return Term::LangLiteral(word, rng() % 2 ? "en" : "fr");
    case 4: return Term::Literal(word, "http://e/type");
    case 5: return Term::Literal(word, Xsd("integer"));
    case 6: return Term::Literal(word == "b" ? "true" : "false", Xsd("boolean"));
    case 7: {
      static const char* kTimes[] = {"2002-04-02T12:00:00Z", "2002-04-02T12:00:00", "2002-04-02T10:00:00-05:00",
                                     "2002-04-03T12:00:00", "2002-04-02T12:00:00.5Z"};
      return Term::Literal(kTimes[rng() % std::size(kTimes)], Xsd("dateTime"));
    }
    default: {
      if (rng() % 8 == 0) return Term::Literal(rng() % 2 ? "NaN" : "INF", Xsd("double"));
      return RandomNumber(rng).first;
    }
  }
}

TEST(ExprRandomTest, OrderIsTotal) {
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::vector<std::optional<Term>> terms = {std::nullopt};
    for (int i = 0; i < 60; ++i) terms.push_back(RandomTerm(rng));
    for (const auto& a : terms) {
      for (const auto& b : terms) {
        const int ab = CompareForOrder(a, b), ba = CompareForOrder(b, a);
        ASSERT_EQ(ab < 0, ba > 0) << (a ? ToNTriples(*a) : "unbound") << " " << (b ? ToNTriples(*b) : "unbound");
        ASSERT_EQ(ab == 0, a == b) << (a ? ToNTriples(*a) : "unbound") << " " << (b ? ToNTriples(*b) : "unbound");
        for (const auto& c : terms) {
          if (ab < 0 && CompareForOrder(b, c) < 0) {
            ASSERT_LT(CompareForOrder(a, c), 0) << ToNTriples(*a) << " " << ToNTriples(*b) << " " << ToNTriples(*c);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace webindex::sparql
