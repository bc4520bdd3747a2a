// SPARQL expressions (§17) evaluated over one solution: operators with their error semantics,
// numeric promotion, the built-in functions, casts, ORDER BY's order and the aggregates.
#include <gtest/gtest.h>

#include "sparql/expr_eval.h"
#include "sparql/parser.h"

namespace webindex::sparql {
namespace {

using graph::Term;

constexpr std::string_view kXsdNs = "http://www.w3.org/2001/XMLSchema#";

std::string Xsd(std::string_view local) { return std::string(kXsdNs) + std::string(local); }

//! A short form of a result: "error", <iri>, _:label, "lexical", "lexical"@lang, "lexical"^^xsd:type.
std::string Show(const std::optional<Term>& t) {
  if (!t) return "error";
  if (t->is_iri()) return "<" + t->value() + ">";
  if (t->is_blank()) return "_:";
  std::string out = "\"" + t->value() + "\"";
  if (!t->language().empty()) return out + "@" + t->language();
  if (t->datatype() == graph::kXsdString) return out;
  if (t->datatype().starts_with(kXsdNs)) return out + "^^xsd:" + t->datatype().substr(kXsdNs.size());
  return out + "^^<" + t->datatype() + ">";
}

//! Parses `FILTER(text)` and evaluates it over a solution binding ?i ?d ?f ?s ?en ?iri ?bn ?bad
//! and ?dt (?u is never bound).
class ExprTest : public ::testing::Test {
 protected:
  ExprTest() {
    Bind("i", Term::Literal("1", Xsd("integer")));
    Bind("d", Term::Literal("2.5", Xsd("decimal")));
    Bind("f", Term::Literal("1.5e0", Xsd("double")));
    Bind("s", Term::Literal("abc"));
    Bind("en", Term::LangLiteral("chat", "en"));
    Bind("iri", Term::Iri("http://e/x"));
    Bind("bn", Term::Blank("b1"));
    Bind("bad", Term::Literal("abc", Xsd("integer")));
    Bind("dt", Term::Literal("2011-01-10T14:45:13.815-05:00", Xsd("dateTime")));
    vars_.Add("u");
    context_.vars = &vars_;
  }

  void Bind(std::string_view name, Term t) {
    const int slot = vars_.Add(name);
    solution_.resize(vars_.size());
    solution_[slot] = std::move(t);
  }

  std::optional<Expr> Parse(const std::string& text) {
    const Result<Query> q = ParseQuery("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> PREFIX : <http://e/> "
                                       "SELECT * { FILTER(" + text + ") }");
    EXPECT_TRUE(q.ok()) << text << ": " << q.status().message();
    if (!q.ok()) return std::nullopt;
    return q->where->elements.at(0).expr;
  }

  std::string E(const std::string& text) {
    const std::optional<Expr> e = Parse(text);
    return e ? Show(Evaluate(*e, solution_, context_)) : "unparsed";
  }

  std::optional<Term> Value(const std::string& text) {
    const std::optional<Expr> e = Parse(text);
    return e ? Evaluate(*e, solution_, context_) : std::nullopt;
  }

  VarTable vars_;
  Solution solution_;
  ExprContext context_;
};

TEST_F(ExprTest, TermsAndVariables) {
  EXPECT_EQ(E("?s"), "\"abc\"");
  EXPECT_EQ(E("?u"), "error");
  EXPECT_EQ(E("?never"), "error");
  EXPECT_EQ(E("1"), "\"1\"^^xsd:integer");
  EXPECT_EQ(E("\"x\"@EN"), "\"x\"@en");
  EXPECT_EQ(E("true"), "\"true\"^^xsd:boolean");
}

TEST_F(ExprTest, Arithmetic) {
  EXPECT_EQ(E("1 + 2"), "\"3\"^^xsd:integer");
  EXPECT_EQ(E("?i - 3"), "\"-2\"^^xsd:integer");
  EXPECT_EQ(E("2 * 3"), "\"6\"^^xsd:integer");
  EXPECT_EQ(E("1 / 2"), "\"0.5\"^^xsd:decimal");
  EXPECT_EQ(E("4 / 2"), "\"2.0\"^^xsd:decimal");
  EXPECT_EQ(E("1 / 3"), "\"0.333333333333333333333333\"^^xsd:decimal");
  EXPECT_EQ(E("?i + ?d"), "\"3.5\"^^xsd:decimal");
  EXPECT_EQ(E("1.1 + 2.2"), "\"3.3\"^^xsd:decimal");
  EXPECT_EQ(E("0.1 * 0.2"), "\"0.02\"^^xsd:decimal");
  EXPECT_EQ(E("?d + ?f"), "\"4.0E0\"^^xsd:double");
  EXPECT_EQ(E("1 + 1e0"), "\"2.0E0\"^^xsd:double");
  EXPECT_EQ(E("1e3 * 1.5"), "\"1.5E3\"^^xsd:double");
  EXPECT_EQ(E("xsd:float(1) + 1"), "\"2.0E0\"^^xsd:float");
  EXPECT_EQ(E("xsd:float(1) + 1e0"), "\"2.0E0\"^^xsd:double");
  EXPECT_EQ(E("\"7\"^^xsd:int + \"3\"^^xsd:nonNegativeInteger"), "\"10\"^^xsd:integer");
  EXPECT_EQ(E("\"7\"^^xsd:unsignedByte * 2"), "\"14\"^^xsd:integer");
  EXPECT_EQ(E("1 / 0"), "error");
  EXPECT_EQ(E("1.0 / 0.0"), "error");
  EXPECT_EQ(E("1e0 / 0"), "\"INF\"^^xsd:double");
  EXPECT_EQ(E("-1e0 / 0"), "\"-INF\"^^xsd:double");
  EXPECT_EQ(E("0e0 / 0"), "\"NaN\"^^xsd:double");
  EXPECT_EQ(E("?bad + 1"), "error");
  EXPECT_EQ(E("?s + 1"), "error");
  EXPECT_EQ(E("?u + 1"), "error");
  EXPECT_EQ(E("\"-1\"^^xsd:nonNegativeInteger + 1"), "error");
  EXPECT_EQ(E("-?i"), "\"-1\"^^xsd:integer");
  EXPECT_EQ(E("-?d"), "\"-2.5\"^^xsd:decimal");
  EXPECT_EQ(E("+?f"), "\"1.5E0\"^^xsd:double");
  EXPECT_EQ(E("-?s"), "error");
  EXPECT_EQ(E("9223372036854775807 + 1"), "\"9223372036854775808\"^^xsd:integer");
}

TEST_F(ExprTest, Logical) {
  EXPECT_EQ(E("true || ?u"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?u || true"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?u || false"), "error");
  EXPECT_EQ(E("false || false"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("false && ?u"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?u && false"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?u && true"), "error");
  EXPECT_EQ(E("true && 1"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("!?u"), "error");
  EXPECT_EQ(E("!\"\""), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("!?iri"), "error");
  EXPECT_EQ(E("!0.0"), "\"true\"^^xsd:boolean");
}

TEST_F(ExprTest, EvaluateBoolean) {
  const auto ebv = [&](const std::string& text) { return EvaluateBoolean(*Parse(text), solution_, context_); };
  EXPECT_EQ(ebv("?i < 2"), true);
  EXPECT_EQ(ebv("?i > 2"), false);
  EXPECT_EQ(ebv("?s"), true);
  EXPECT_EQ(ebv("?i - 1"), false);
  EXPECT_EQ(ebv("?iri"), std::nullopt);
  EXPECT_EQ(ebv("?u = 1"), std::nullopt);
  EXPECT_EQ(ebv("?u = 1 || ?i = 1"), true);
}

TEST_F(ExprTest, EffectiveBooleanValue) {
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("true", Xsd("boolean"))), true);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("maybe", Xsd("boolean"))), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("")), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("x")), true);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("0", Xsd("integer"))), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("NaN", Xsd("double"))), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("0.1", Xsd("decimal"))), true);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("x", Xsd("integer"))), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Iri("http://e/")), std::nullopt);
  EXPECT_EQ(EffectiveBooleanValue(Term::Literal("x", "http://e/t")), std::nullopt);
  EXPECT_EQ(EffectiveBooleanValue(Term::LangLiteral("x", "en")), true);
  EXPECT_EQ(EffectiveBooleanValue(Term::LangLiteral("", "en")), false);
  EXPECT_EQ(EffectiveBooleanValue(Term::Blank("b")), std::nullopt);
}

TEST_F(ExprTest, Comparisons) {
  EXPECT_EQ(E("1 = 1.0"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("1 = 1e0"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"01\"^^xsd:int = 1"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("1 < 2.5"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?d >= 2.5"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?d > 2.5"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?i <= 0"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("1 != 2"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"NaN\"^^xsd:double = \"NaN\"^^xsd:double"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("\"NaN\"^^xsd:double != \"NaN\"^^xsd:double"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"abc\" < \"abd\""), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?s = \"abc\"^^xsd:string"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?s = \"abd\""), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?en = \"chat\"@en"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?en = \"chat\"@fr"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?en = \"chat\""), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?en < \"chat\"@en"), "error");
  // A language-tagged string is known to differ from literals of unknown datatypes.
  EXPECT_EQ(E("?en = \"chat\"^^:t"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?en != ?bad"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?s = ?bad"), "error");
  EXPECT_EQ(E("false < true"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("1 < \"2\""), "error");
  EXPECT_EQ(E("1 = \"1\""), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?iri = :x"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?iri = :y"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?iri = \"http://e/x\""), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("?iri < :y"), "error");
  EXPECT_EQ(E("?bn = ?bn"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?u = 1"), "error");
  // Unknown datatypes: the same term is equal, different terms are not known to differ.
  EXPECT_EQ(E("\"a\"^^:t = \"a\"^^:t"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"a\"^^:t = \"b\"^^:t"), "error");
  EXPECT_EQ(E("\"a\"^^:t != \"b\"^^:t"), "error");
  EXPECT_EQ(E("\"a\"^^:t = 1"), "error");
  // Invalid lexical forms: a term equal to itself, an error otherwise.
  EXPECT_EQ(E("?bad = ?bad"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("?bad = 1"), "error");
  EXPECT_EQ(E("?bad < 1"), "error");
}

TEST_F(ExprTest, DateTimeComparisons) {
  const std::string dt = "\"2002-04-02T12:00:00Z\"^^xsd:dateTime";
  EXPECT_EQ(E(dt + " = \"2002-04-02T17:00:00+05:00\"^^xsd:dateTime"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(dt + " < \"2002-04-02T12:00:01Z\"^^xsd:dateTime"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(dt + " < \"2002-04-02T12:00:00.5Z\"^^xsd:dateTime"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"2002-04-02T12:00:00\"^^xsd:dateTime < \"2002-04-02T13:00:00\"^^xsd:dateTime"),
            "\"true\"^^xsd:boolean");
  // Without a timezone against with one: determinate only more than 14 hours apart.
  EXPECT_EQ(E(dt + " = \"2002-04-02T12:00:00\"^^xsd:dateTime"), "error");
  EXPECT_EQ(E(dt + " < \"2002-04-03T12:00:00\"^^xsd:dateTime"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(dt + " = \"2002-04-03T12:00:00\"^^xsd:dateTime"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("\"2002-02-30T12:00:00Z\"^^xsd:dateTime = " + dt), "error");
  // xsd:date: midnight of its day; a date and a dateTime are different values.
  const std::string date = "\"2006-08-23\"^^xsd:date";
  EXPECT_EQ(E(date + " = \"2006-08-23\"^^xsd:date"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(date + " != \"2001-01-01Z\"^^xsd:date"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(date + " != \"2006-08-23Z\"^^xsd:date"), "error");
  EXPECT_EQ(E("\"2006-08-23Z\"^^xsd:date > \"2006-08-22\"^^xsd:date"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("\"2006-08-23+00:00\"^^xsd:date = \"2006-08-23Z\"^^xsd:date"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(date + " != \"2006-08-23T09:00:00+01:00\"^^xsd:dateTime"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E(date + " < \"2006-08-23T09:00:00+01:00\"^^xsd:dateTime"), "error");
}

TEST_F(ExprTest, InAndNotIn) {
  EXPECT_EQ(E("2 IN (1, 2, 3)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("2 IN (1.0, 2.0)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("2 IN ()"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("2 NOT IN ()"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("2 IN (?u, 2)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("2 IN (?u, 3)"), "error");
  EXPECT_EQ(E("2 NOT IN (?u, 2)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("2 NOT IN (?u, 3)"), "error");
  EXPECT_EQ(E("?u IN (1)"), "error");
  EXPECT_EQ(E(":x IN (\"a\", <http://e/x>)"), "\"true\"^^xsd:boolean");
}

TEST_F(ExprTest, TermFunctions) {
  EXPECT_EQ(E("BOUND(?i)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("BOUND(?u)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("BOUND(?never)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("IF(?i = 1, \"y\", ?u)"), "\"y\"");
  EXPECT_EQ(E("IF(?i = 2, \"y\", ?u)"), "error");
  EXPECT_EQ(E("IF(?u, 1, 2)"), "error");
  EXPECT_EQ(E("COALESCE(?u, 1/0, ?s)"), "\"abc\"");
  EXPECT_EQ(E("COALESCE(?u)"), "error");
  EXPECT_EQ(E("COALESCE()"), "error");
  EXPECT_EQ(E("sameTerm(1, 1.0)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("sameTerm(?s, \"abc\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("sameTerm(?u, 1)"), "error");
  EXPECT_EQ(E("isIRI(?iri)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("isURI(?s)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isBlank(?bn)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("isLiteral(?en)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("isLiteral(?u)"), "error");
  EXPECT_EQ(E("isNumeric(?d)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(?bad)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"1\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"127\"^^xsd:byte)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"1200\"^^xsd:byte)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"-1\"^^xsd:unsignedInt)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"0\"^^xsd:positiveInteger)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("isNumeric(\"18446744073709551615\"^^xsd:unsignedLong)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STR(?iri)"), "\"http://e/x\"");
  EXPECT_EQ(E("STR(?en)"), "\"chat\"");
  EXPECT_EQ(E("STR(?d)"), "\"2.5\"");
  EXPECT_EQ(E("STR(?bn)"), "error");
  EXPECT_EQ(E("LANG(?en)"), "\"en\"");
  EXPECT_EQ(E("LANG(?s)"), "\"\"");
  EXPECT_EQ(E("LANG(?iri)"), "error");
  EXPECT_EQ(E("DATATYPE(?s)"), "<http://www.w3.org/2001/XMLSchema#string>");
  EXPECT_EQ(E("DATATYPE(?en)"), "<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>");
  EXPECT_EQ(E("DATATYPE(?i)"), "<http://www.w3.org/2001/XMLSchema#integer>");
  EXPECT_EQ(E("DATATYPE(?iri)"), "error");
  EXPECT_EQ(E("IRI(\"http://e/y\")"), "<http://e/y>");
  EXPECT_EQ(E("URI(?iri)"), "<http://e/x>");
  EXPECT_EQ(E("IRI(?en)"), "error");
  context_.base = "http://example.org/a/b";
  EXPECT_EQ(E("IRI(\"c\")"), "<http://example.org/a/c>");
  EXPECT_EQ(E("IRI(\"urn:x\")"), "<urn:x>");
  EXPECT_EQ(E("IRI(\"http://e/./y/../z\")"), "<http://e/./y/../z>");  // absolute: as written
  EXPECT_EQ(E("IRI(\"c/./d/../e\")"), "<http://example.org/a/c/e>");
  EXPECT_EQ(E("STRDT(\"1\", xsd:integer)"), "\"1\"^^xsd:integer");
  EXPECT_EQ(E("STRDT(?en, xsd:integer)"), "error");
  EXPECT_EQ(E("STRDT(\"1\", \"x\")"), "error");
  EXPECT_EQ(E("STRLANG(\"a\", \"EN-gb\")"), "\"a\"@en-gb");
  EXPECT_EQ(E("STRLANG(?en, \"fr\")"), "error");
  EXPECT_EQ(E("STRLANG(\"a\", \"\")"), "error");
}

TEST_F(ExprTest, BlankNodesUuidsRandomNow) {
  const std::optional<Term> a = Value("BNODE()"), b = Value("BNODE()");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->is_blank());
  EXPECT_NE(*a, *b);
  const std::optional<Term> x1 = Value("BNODE(\"x\")"), x2 = Value("BNODE(\"x\")"), y = Value("BNODE(\"y\")");
  ASSERT_TRUE(x1 && x2 && y);
  EXPECT_EQ(*x1, *x2);
  EXPECT_NE(*x1, *y);
  context_.NewSolution();
  const std::optional<Term> x3 = Value("BNODE(\"x\")");
  ASSERT_TRUE(x3);
  EXPECT_NE(*x1, *x3);
  EXPECT_EQ(E("BNODE(1)"), "error");

  const std::optional<Term> u = Value("UUID()"), v = Value("UUID()");
  ASSERT_TRUE(u && v);
  EXPECT_TRUE(u->is_iri());
  EXPECT_NE(*u, *v);
  EXPECT_TRUE(u->value().starts_with("urn:uuid:")) << u->value();
  EXPECT_EQ(u->value().size(), 45u);
  EXPECT_EQ(u->value()[9 + 14], '4');
  const std::optional<Term> su = Value("STRUUID()");
  ASSERT_TRUE(su);
  EXPECT_EQ(su->value().size(), 36u);
  EXPECT_EQ(su->datatype(), graph::kXsdString);

  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(E("RAND() >= 0 && RAND() < 1"), "\"true\"^^xsd:boolean");
  }
  EXPECT_EQ(E("DATATYPE(RAND())"), "<" + Xsd("double") + ">");

  context_.now = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000123));
  EXPECT_EQ(E("NOW()"), "\"2023-11-14T22:13:20.123Z\"^^xsd:dateTime");
  EXPECT_EQ(E("YEAR(NOW())"), "\"2023\"^^xsd:integer");
}

TEST_F(ExprTest, StringFunctions) {
  EXPECT_EQ(E("STRLEN(\"chat\")"), "\"4\"^^xsd:integer");
  EXPECT_EQ(E("STRLEN(\"éte\"@fr)"), "\"3\"^^xsd:integer");
  EXPECT_EQ(E("STRLEN(?i)"), "error");
  EXPECT_EQ(E("SUBSTR(\"foobar\", 4)"), "\"bar\"");
  EXPECT_EQ(E("SUBSTR(\"foobar\", 4, 1)"), "\"b\"");
  EXPECT_EQ(E("SUBSTR(\"foobar\"@en, 0, 3)"), "\"fo\"@en");
  EXPECT_EQ(E("SUBSTR(\"été\", 2, 1)"), "\"t\"");
  EXPECT_EQ(E("SUBSTR(\"12345\", 1.5, 2.6)"), "\"234\"");
  EXPECT_EQ(E("SUBSTR(\"foobar\", 10)"), "\"\"");
  EXPECT_EQ(E("SUBSTR(\"foobar\", \"1\")"), "error");
  EXPECT_EQ(E("UCASE(\"foo\"@en)"), "\"FOO\"@en");
  EXPECT_EQ(E("UCASE(\"straße\")"), "\"STRASSE\"");
  EXPECT_EQ(E("LCASE(\"BAR\")"), "\"bar\"");
  EXPECT_EQ(E("LCASE(?iri)"), "error");
  EXPECT_EQ(E("STRSTARTS(\"foobar\", \"foo\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STRSTARTS(\"foobar\"@en, \"foo\"@en)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STRSTARTS(\"foobar\"@en, \"foo\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STRSTARTS(\"foobar\", \"foo\"@en)"), "error");
  EXPECT_EQ(E("STRSTARTS(\"foobar\"@en, \"foo\"@fr)"), "error");
  EXPECT_EQ(E("STRSTARTS(\"foobar\", 1)"), "error");
  EXPECT_EQ(E("STRENDS(\"foobar\", \"bar\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STRENDS(\"foobar\", \"foo\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("CONTAINS(\"foobar\", \"oba\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("CONTAINS(\"foobar\", \"\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("STRBEFORE(\"abc\", \"b\")"), "\"a\"");
  EXPECT_EQ(E("STRBEFORE(\"abc\"@en, \"bc\")"), "\"a\"@en");
  EXPECT_EQ(E("STRBEFORE(\"abc\"@en, \"z\")"), "\"\"");
  EXPECT_EQ(E("STRBEFORE(\"abc\"@en, \"\")"), "\"\"@en");
  EXPECT_EQ(E("STRBEFORE(\"abc\", \"b\"@cy)"), "error");
  EXPECT_EQ(E("STRAFTER(\"abc\", \"b\")"), "\"c\"");
  EXPECT_EQ(E("STRAFTER(\"abc\"@en, \"\")"), "\"abc\"@en");
  EXPECT_EQ(E("STRAFTER(\"abc\", \"xyz\")"), "\"\"");
  EXPECT_EQ(E("ENCODE_FOR_URI(\"Los Angeles\")"), "\"Los%20Angeles\"");
  EXPECT_EQ(E("ENCODE_FOR_URI(\"café~/\"@fr)"), "\"caf%C3%A9~%2F\"");
  EXPECT_EQ(E("CONCAT(\"foo\", \"bar\")"), "\"foobar\"");
  EXPECT_EQ(E("CONCAT(\"foo\"@en, \"bar\"@en)"), "\"foobar\"@en");
  EXPECT_EQ(E("CONCAT(\"foo\"@en, \"bar\")"), "\"foobar\"");
  EXPECT_EQ(E("CONCAT()"), "\"\"");
  EXPECT_EQ(E("CONCAT(\"a\", \"b\", \"c\", \"d\", \"e\", \"f\")"), "\"abcdef\"");
  EXPECT_EQ(E("CONCAT(\"a\", 1)"), "error");
  EXPECT_EQ(E("langMatches(\"en-GB\", \"en\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("langMatches(\"en\", \"EN\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("langMatches(\"english\", \"en\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("langMatches(\"fr\", \"*\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("langMatches(\"\", \"*\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("langMatches(LANG(?en), \"en\")"), "\"true\"^^xsd:boolean");
}

TEST_F(ExprTest, RegexAndReplace) {
  EXPECT_EQ(E("REGEX(\"Alice\", \"^ali\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"Alice\", \"^ali\", \"i\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"chat\"@en, \"h.t\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"a\\nb\", \"a.b\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"a\\nb\", \"a.b\", \"s\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"a\\nb\", \"^b$\", \"m\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"ab\", \"a b\", \"x\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"a.c\", \".\", \"q\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"abc\", \".\", \"q\")"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("REGEX(\"abc\", \"(\")"), "error");
  EXPECT_EQ(E("REGEX(\"abc\", \"a\", \"z\")"), "error");
  EXPECT_EQ(E("REGEX(?i, \"1\")"), "error");
  EXPECT_EQ(E("REGEX(\"abc\", \"a\"@en)"), "error");
  EXPECT_EQ(E("REPLACE(\"abcd\", \"b\", \"Z\")"), "\"aZcd\"");
  EXPECT_EQ(E("REPLACE(\"abab\", \"B\", \"Z\", \"i\")"), "\"aZaZ\"");
  EXPECT_EQ(E("REPLACE(\"abcd\"@en, \"(b)(c)\", \"$2$1\")"), "\"acbd\"@en");
  EXPECT_EQ(E("REPLACE(\"a.b\", \"[.]\", \"\\\\$\")"), "\"a$b\"");
  EXPECT_EQ(E("REPLACE(\"a.b\", \".\", \"\\\\$\", \"q\")"), "\"a\\$b\"");
  EXPECT_EQ(E("REPLACE(\"a.b\", \".\", \"$1\", \"q\")"), "\"a$1b\"");
  // XPath's $N: a group past the pattern's up to $9 is empty, $12 with one group is $1 then "2".
  EXPECT_EQ(E("REPLACE(\"abc\", \"b\", \"[$1]\")"), "\"a[]c\"");
  EXPECT_EQ(E("REPLACE(\"abc\", \"(b)\", \"$12\")"), "\"ab2c\"");
  EXPECT_EQ(E("REPLACE(\"abc\", \"(b)\", \"$0$1\")"), "\"abbc\"");
  EXPECT_EQ(E("REPLACE(\"abc\", \"(b)\", \"$123456789012345\")"), "\"ab23456789012345c\"");
  EXPECT_EQ(E("REPLACE(\"abc\", \"b\", \"$\")"), "error");
  EXPECT_EQ(E("REPLACE(\"abc\", \"b\", \"\\\\n\")"), "error");
  EXPECT_EQ(E("REPLACE(\"abc\", \"b\", \"\\\\\\\\\")"), "\"a\\c\"");
  EXPECT_EQ(E("REPLACE(\"abc\", \"x*\", \"-\")"), "error");
  EXPECT_EQ(E("REPLACE(\"abc\", \"b\", 1)"), "error");
}

TEST_F(ExprTest, Hashes) {
  EXPECT_EQ(E("MD5(\"abc\")"), "\"900150983cd24fb0d6963f7d28e17f72\"");
  EXPECT_EQ(E("SHA1(\"abc\")"), "\"a9993e364706816aba3e25717850c26c9cd0d89d\"");
  EXPECT_EQ(E("SHA256(\"abc\")"), "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"");
  EXPECT_EQ(E("SHA384(\"abc\")"),
            "\"cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7\"");
  EXPECT_EQ(E("SHA512(\"abc\")"),
            "\"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
            "454d4423643ce80e2a9ac94fa54ca49f\"");
  EXPECT_EQ(E("MD5(\"abc\"^^xsd:string)"), "\"900150983cd24fb0d6963f7d28e17f72\"");
  EXPECT_EQ(E("MD5(\"abc\"@en)"), "error");
  EXPECT_EQ(E("SHA1(1)"), "error");
}

TEST_F(ExprTest, NumericFunctions) {
  EXPECT_EQ(E("ABS(-1)"), "\"1\"^^xsd:integer");
  EXPECT_EQ(E("ABS(-1.5)"), "\"1.5\"^^xsd:decimal");
  EXPECT_EQ(E("ABS(-1.5e0)"), "\"1.5E0\"^^xsd:double");
  EXPECT_EQ(E("ROUND(2.5)"), "\"3.0\"^^xsd:decimal");
  EXPECT_EQ(E("ROUND(-2.5)"), "\"-2.0\"^^xsd:decimal");
  EXPECT_EQ(E("ROUND(-2.6)"), "\"-3.0\"^^xsd:decimal");
  EXPECT_EQ(E("ROUND(2.4999)"), "\"2.0\"^^xsd:decimal");
  EXPECT_EQ(E("ROUND(-2.5e0)"), "\"-2.0E0\"^^xsd:double");
  EXPECT_EQ(E("ROUND(7)"), "\"7\"^^xsd:integer");
  EXPECT_EQ(E("CEIL(10.5)"), "\"11.0\"^^xsd:decimal");
  EXPECT_EQ(E("CEIL(-10.5)"), "\"-10.0\"^^xsd:decimal");
  EXPECT_EQ(E("FLOOR(10.5)"), "\"10.0\"^^xsd:decimal");
  EXPECT_EQ(E("FLOOR(-10.5)"), "\"-11.0\"^^xsd:decimal");
  EXPECT_EQ(E("FLOOR(-10.5e0)"), "\"-1.1E1\"^^xsd:double");
  EXPECT_EQ(E("ABS(\"1\")"), "error");
  EXPECT_EQ(E("CEIL(?bad)"), "error");
}

TEST_F(ExprTest, DateTimeFunctions) {
  EXPECT_EQ(E("YEAR(?dt)"), "\"2011\"^^xsd:integer");
  EXPECT_EQ(E("MONTH(?dt)"), "\"1\"^^xsd:integer");
  EXPECT_EQ(E("DAY(?dt)"), "\"10\"^^xsd:integer");
  EXPECT_EQ(E("HOURS(?dt)"), "\"14\"^^xsd:integer");
  EXPECT_EQ(E("MINUTES(?dt)"), "\"45\"^^xsd:integer");
  EXPECT_EQ(E("SECONDS(?dt)"), "\"13.815\"^^xsd:decimal");
  EXPECT_EQ(E("SECONDS(\"2011-01-10T14:45:05Z\"^^xsd:dateTime)"), "\"5.0\"^^xsd:decimal");
  EXPECT_EQ(E("TIMEZONE(?dt)"), "\"-PT5H\"^^xsd:dayTimeDuration");
  EXPECT_EQ(E("TIMEZONE(\"2011-01-10T14:45:13Z\"^^xsd:dateTime)"), "\"PT0S\"^^xsd:dayTimeDuration");
  EXPECT_EQ(E("TIMEZONE(\"2011-01-10T14:45:13+05:30\"^^xsd:dateTime)"), "\"PT5H30M\"^^xsd:dayTimeDuration");
  EXPECT_EQ(E("TIMEZONE(\"2011-01-10T14:45:13\"^^xsd:dateTime)"), "error");
  EXPECT_EQ(E("TZ(?dt)"), "\"-05:00\"");
  EXPECT_EQ(E("TZ(\"2011-01-10T14:45:13Z\"^^xsd:dateTime)"), "\"Z\"");
  EXPECT_EQ(E("TZ(\"2011-01-10T14:45:13\"^^xsd:dateTime)"), "\"\"");
  EXPECT_EQ(E("YEAR(\"2011-01-10T14:45:13\")"), "error");
  EXPECT_EQ(E("YEAR(\"2011-13-10T14:45:13\"^^xsd:dateTime)"), "error");
  EXPECT_EQ(E("YEAR(\"-0044-03-15T00:00:00\"^^xsd:dateTime)"), "\"-44\"^^xsd:integer");
}

TEST_F(ExprTest, Casts) {
  EXPECT_EQ(E("xsd:string(?iri)"), "\"http://e/x\"");
  EXPECT_EQ(E("xsd:string(1)"), "\"1\"");
  // XPath's casts to string: canonical numbers, decimal notation for doubles near 1.
  EXPECT_EQ(E("xsd:string(1.0)"), "\"1\"");
  EXPECT_EQ(E("xsd:string(-2.50)"), "\"-2.5\"");
  EXPECT_EQ(E("xsd:string(0E1)"), "\"0\"");
  EXPECT_EQ(E("xsd:string(-7.875e0)"), "\"-7.875\"");
  EXPECT_EQ(E("xsd:string(1e7)"), "\"1.0E7\"");
  EXPECT_EQ(E("xsd:string(\"0\"^^xsd:boolean)"), "\"false\"");
  EXPECT_EQ(E("xsd:string(\"+33.3300\")"), "\"+33.3300\"");
  EXPECT_EQ(E("xsd:string(?bn)"), "error");
  EXPECT_EQ(E("xsd:integer(\"12\")"), "\"12\"^^xsd:integer");
  EXPECT_EQ(E("xsd:integer(\" 12\")"), "error");
  EXPECT_EQ(E("xsd:integer(\"1.5\")"), "error");
  EXPECT_EQ(E("xsd:integer(2.7)"), "\"2\"^^xsd:integer");
  EXPECT_EQ(E("xsd:integer(-2.7e0)"), "\"-2\"^^xsd:integer");
  EXPECT_EQ(E("xsd:integer(true)"), "\"1\"^^xsd:integer");
  EXPECT_EQ(E("xsd:integer(\"INF\"^^xsd:double)"), "error");
  EXPECT_EQ(E("xsd:integer(?iri)"), "error");
  EXPECT_EQ(E("xsd:decimal(\"1.50\")"), "\"1.5\"^^xsd:decimal");
  EXPECT_EQ(E("xsd:decimal(\"1e0\")"), "error");
  EXPECT_EQ(E("xsd:decimal(3)"), "\"3.0\"^^xsd:decimal");
  EXPECT_EQ(E("xsd:decimal(1.25e0)"), "\"1.25\"^^xsd:decimal");
  EXPECT_EQ(E("xsd:decimal(false)"), "\"0.0\"^^xsd:decimal");
  EXPECT_EQ(E("xsd:double(\"1\")"), "\"1.0E0\"^^xsd:double");
  EXPECT_EQ(E("xsd:double(\"-INF\")"), "\"-INF\"^^xsd:double");
  EXPECT_EQ(E("xsd:double(\"abc\")"), "error");
  EXPECT_EQ(E("xsd:double(100)"), "\"1.0E2\"^^xsd:double");
  EXPECT_EQ(E("xsd:double(true)"), "\"1.0E0\"^^xsd:double");
  EXPECT_EQ(E("xsd:float(0.1)"), "\"1.0E-1\"^^xsd:float");
  EXPECT_EQ(E("xsd:boolean(\"1\")"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("xsd:boolean(\"yes\")"), "error");
  EXPECT_EQ(E("xsd:boolean(0.0)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("xsd:boolean(\"NaN\"^^xsd:double)"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("xsd:boolean(-3)"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("xsd:dateTime(\"2002-04-02T12:00:00Z\")"), "\"2002-04-02T12:00:00Z\"^^xsd:dateTime");
  EXPECT_EQ(E("xsd:dateTime(\"2002-04-02\")"), "error");
  EXPECT_EQ(E("xsd:dateTime(1)"), "error");
  EXPECT_EQ(E("xsd:integer(?bad)"), "error");
  EXPECT_EQ(E("xsd:string(?bad)"), "\"abc\"");
  EXPECT_EQ(E("xsd:date(\"2002-04-02\")"), "error");
  EXPECT_EQ(E("<http://e/f>(1)"), "error");
}

TEST_F(ExprTest, Exists) {
  int calls = 0;
  context_.exists = [&](const GroupPattern& pattern, const Solution& solution) {
    ++calls;
    EXPECT_EQ(&solution, &solution_);
    return pattern.elements.size() == 1;
  };
  EXPECT_EQ(E("EXISTS { ?s ?p ?o }"), "\"true\"^^xsd:boolean");
  EXPECT_EQ(E("NOT EXISTS { ?s ?p ?o }"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(E("EXISTS { ?s ?p ?o FILTER(true) }"), "\"false\"^^xsd:boolean");
  EXPECT_EQ(calls, 3);
}

TEST(ExprOrderTest, CompareForOrder) {
  const std::optional<Term> unbound;
  const Term blank = Term::Blank("a"), iri = Term::Iri("http://e/a"), iri2 = Term::Iri("http://e/b");
  const Term one = Term::Literal("1", Xsd("integer")), two = Term::Literal("2.0", Xsd("decimal")),
             ten = Term::Literal("10", Xsd("integer")), a = Term::Literal("a"), b = Term::Literal("b");
  const std::vector<std::optional<Term>> sorted = {unbound, blank, iri, iri2, one, two, ten, a, b};
  for (size_t i = 0; i < sorted.size(); ++i) {
    for (size_t j = 0; j < sorted.size(); ++j) {
      const int c = CompareForOrder(sorted[i], sorted[j]);
      EXPECT_EQ(c < 0, i < j) << i << " " << j;
      EXPECT_EQ(c == 0, i == j) << i << " " << j;
    }
  }
  // Equal values, different terms: still a fixed order.
  const Term one_decimal = Term::Literal("1.0", Xsd("decimal"));
  EXPECT_NE(CompareForOrder(one, one_decimal), 0);
  EXPECT_EQ(CompareForOrder(one, one_decimal), -CompareForOrder(one_decimal, one));
  const Term d1 = Term::Literal("2002-04-02T12:00:00Z", Xsd("dateTime"));
  const Term d2 = Term::Literal("2002-04-02T08:00:00-05:00", Xsd("dateTime"));
  EXPECT_LT(CompareForOrder(d1, d2), 0);
}

//! Runs the aggregate of `SELECT (text AS ?x)` over `values`.
std::string Aggregate(const std::string& text, const std::vector<std::optional<Term>>& values) {
  const Result<Query> q = ParseQuery("SELECT (" + text + " AS ?x) {}");
  EXPECT_TRUE(q.ok()) << q.status().message();
  if (!q.ok()) return "unparsed";
  std::unique_ptr<Aggregator> agg = MakeAggregator(*q->projection.at(0).expr);
  for (const auto& v : values) agg->Add(v);
  return Show(agg->Result());
}

TEST(ExprAggregateTest, Aggregates) {
  const Term one = Term::Literal("1", Xsd("integer")), two = Term::Literal("2", Xsd("integer")),
             half = Term::Literal("0.5", Xsd("decimal")), dbl = Term::Literal("1e0", Xsd("double")),
             a = Term::Literal("a"), iri = Term::Iri("http://e/a");
  const std::optional<Term> error;
  EXPECT_EQ(Aggregate("COUNT(*)", {one, one, two}), "\"3\"^^xsd:integer");
  EXPECT_EQ(Aggregate("COUNT(?v)", {one, error, two}), "\"2\"^^xsd:integer");
  EXPECT_EQ(Aggregate("COUNT(DISTINCT ?v)", {one, one, two, error}), "\"2\"^^xsd:integer");
  EXPECT_EQ(Aggregate("COUNT(?v)", {}), "\"0\"^^xsd:integer");
  EXPECT_EQ(Aggregate("SUM(?v)", {one, two, half}), "\"3.5\"^^xsd:decimal");
  EXPECT_EQ(Aggregate("SUM(?v)", {one, two}), "\"3\"^^xsd:integer");
  EXPECT_EQ(Aggregate("SUM(DISTINCT ?v)", {one, one, two}), "\"3\"^^xsd:integer");
  EXPECT_EQ(Aggregate("SUM(?v)", {one, dbl}), "\"2.0E0\"^^xsd:double");
  EXPECT_EQ(Aggregate("SUM(?v)", {}), "\"0\"^^xsd:integer");
  EXPECT_EQ(Aggregate("SUM(?v)", {one, a}), "error");
  EXPECT_EQ(Aggregate("SUM(?v)", {one, error}), "error");
  EXPECT_EQ(Aggregate("AVG(?v)", {one, two}), "\"1.5\"^^xsd:decimal");
  EXPECT_EQ(Aggregate("AVG(?v)", {one, one}), "\"1.0\"^^xsd:decimal");
  EXPECT_EQ(Aggregate("AVG(DISTINCT ?v)", {one, one, two}), "\"1.5\"^^xsd:decimal");
  EXPECT_EQ(Aggregate("AVG(?v)", {}), "\"0\"^^xsd:integer");
  EXPECT_EQ(Aggregate("AVG(?v)", {one, iri}), "error");
  EXPECT_EQ(Aggregate("MIN(?v)", {two, one, a, iri}), "<http://e/a>");
  EXPECT_EQ(Aggregate("MAX(?v)", {two, one, a, iri}), "\"a\"");
  EXPECT_EQ(Aggregate("MAX(?v)", {two, one, half}), "\"2\"^^xsd:integer");
  EXPECT_EQ(Aggregate("MIN(?v)", {two, one, half}), "\"0.5\"^^xsd:decimal");
  EXPECT_EQ(Aggregate("MIN(?v)", {}), "error");
  EXPECT_EQ(Aggregate("MIN(?v)", {one, error}), "error");
  EXPECT_EQ(Aggregate("SAMPLE(?v)", {error, two, one}), "\"2\"^^xsd:integer");
  EXPECT_EQ(Aggregate("SAMPLE(?v)", {}), "error");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(?v)", {a, one, a}), "\"a 1 a\"");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(DISTINCT ?v; SEPARATOR=\"|\")", {a, one, a}), "\"a|1\"");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(?v)", {}), "\"\"");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(?v)", {a, error}), "error");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(?v)", {Term::LangLiteral("x", "en"), Term::LangLiteral("y", "en")}),
            "\"x y\"");
  EXPECT_EQ(Aggregate("GROUP_CONCAT(?v)", {Term::LangLiteral("x", "en"), a}), "\"x a\"");
}

}  // namespace
}  // namespace webindex::sparql
