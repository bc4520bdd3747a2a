// The harness's own parts: the comparison must tell apart what the W3C rules tell apart, and the
// readers must see the rows of the suite's result files.
#include "w3c_suite.h"

#include <gtest/gtest.h>

#include "test_paths.h"

namespace webindex::sparql::w3c {
namespace {

using graph::Term;
using Row = std::map<std::string, Term>;

Answer Rows(std::vector<Row> rows) {
  Answer a;
  a.rows = std::move(rows);
  return a;
}

const std::string kDir = WEBINDEX_TEST_DATA + "/sparql/eval/";

TEST(SparqlW3cCompareTest, BlankNodesUpToABijection) {
  Answer same = Rows({{{"x", Term::Blank("a")}, {"y", Term::Blank("a")}}, {{"x", Term::Blank("b")}}});
  Answer renamed = Rows({{{"x", Term::Blank("q")}}, {{"x", Term::Blank("p")}, {"y", Term::Blank("p")}}});
  Answer split = Rows({{{"x", Term::Blank("p")}, {"y", Term::Blank("r")}}, {{"x", Term::Blank("q")}}});
  Answer merged = Rows({{{"x", Term::Blank("p")}, {"y", Term::Blank("p")}}, {{"x", Term::Blank("p")}}});
  EXPECT_EQ(Compare(same, renamed, false, false), "");
  EXPECT_NE(Compare(same, split, false, false), "");
  EXPECT_NE(Compare(same, merged, false, false), "");
}

TEST(SparqlW3cCompareTest, MultisetsListsAndReduced) {
  Row a{{"x", Term::Iri("http://e/a")}}, b{{"x", Term::Iri("http://e/b")}};
  EXPECT_EQ(Compare(Rows({a, b}), Rows({b, a}), false, false), "");
  EXPECT_NE(Compare(Rows({a, b}), Rows({b, a}), true, false), "");
  EXPECT_NE(Compare(Rows({a, a, b}), Rows({a, b, b}), false, false), "");
  EXPECT_NE(Compare(Rows({a, a, b}), Rows({a, b}), false, false), "");
  EXPECT_EQ(Compare(Rows({a, a, b}), Rows({a, b}), false, true), "");
  EXPECT_NE(Compare(Rows({a}), Rows({Row{}}), false, false), "");  // bound vs unbound
}

TEST(SparqlW3cCompareTest, OrderByTiesInAnyOrder) {
  const Term one = Term::Literal("1"), two = Term::Literal("2");
  Row a1{{"k", one}, {"x", Term::Iri("http://e/a")}}, b1{{"k", one}, {"x", Term::Iri("http://e/b")}};
  Row c2{{"k", two}, {"x", Term::Iri("http://e/c")}};
  EXPECT_EQ(Compare(Rows({b1, a1, c2}), Rows({a1, b1, c2}), true, false, {"k"}), "");
  EXPECT_NE(Compare(Rows({b1, a1, c2}), Rows({a1, b1, c2}), true, false, {"k", "x"}), "");
  EXPECT_NE(Compare(Rows({c2, a1, b1}), Rows({a1, b1, c2}), true, false, {"k"}), "");
  EXPECT_NE(Compare(Rows({b1, a1, c2}), Rows({a1, b1, c2}), true, false), "");
}

TEST(SparqlW3cCompareTest, NumbersOfOneDatatypeByValue) {
  const std::string xsd = "http://www.w3.org/2001/XMLSchema#";
  Answer dec = Rows({{{"n", Term::Literal("1.0", xsd + "decimal")}}});
  EXPECT_EQ(Compare(dec, Rows({{{"n", Term::Literal("1.00", xsd + "decimal")}}}), false, false), "");
  EXPECT_NE(Compare(dec, Rows({{{"n", Term::Literal("1", xsd + "integer")}}}), false, false), "");
  EXPECT_NE(Compare(dec, Rows({{{"n", Term::Literal("1.0")}}}), false, false), "");
}

TEST(SparqlW3cCompareTest, GraphsUpToIsomorphism) {
  Answer g1, g2, g3;
  g1.kind = g2.kind = g3.kind = Answer::Kind::kGraph;
  const Term p = Term::Iri("http://e/p");
  g1.graph = {{Term::Blank("a"), p, Term::Blank("b"), {}}, {Term::Blank("b"), p, Term::Literal("x"), {}}};
  g2.graph = {{Term::Blank("y"), p, Term::Literal("x"), {}}, {Term::Blank("z"), p, Term::Blank("y"), {}}};
  g3.graph = {{Term::Blank("y"), p, Term::Literal("x"), {}}, {Term::Blank("z"), p, Term::Blank("w"), {}}};
  EXPECT_EQ(Compare(g1, g2, false, false), "");
  EXPECT_NE(Compare(g1, g3, false, false), "");
}

TEST(SparqlW3cReadersTest, CsvAndTsvOfOneQueryAgree) {
  const std::string base = std::string(kBase) + "sparql11/csv-tsv-res/";
  for (const std::string n : {"01", "02", "03"}) {
    auto tsv = ReadAnswer(kDir + "sparql11/csv-tsv-res/csvtsv" + n + ".tsv", base);
    auto csv = ReadAnswer(kDir + "sparql11/csv-tsv-res/csvtsv" + n + ".csv", base);
    ASSERT_TRUE(tsv.ok() && csv.ok());
    EXPECT_GE(tsv->rows.size(), 4u);
    EXPECT_TRUE(csv->csv);
    EXPECT_EQ(Compare(*tsv, *csv, false, false), "") << n;
    Answer altered = *tsv;
    altered.rows[1].begin()->second = Term::Literal("other");
    EXPECT_NE(Compare(altered, *csv, false, false), "") << n;
  }
}

TEST(SparqlW3cReadersTest, SrxSrjAndRdfResultSets) {
  auto srx = ReadAnswer(kDir + "sparql10/distinct/distinct-node.srx", "http://b/");
  ASSERT_TRUE(srx.ok()) << srx.status().ToString();
  ASSERT_EQ(srx->rows.size(), 2u);
  EXPECT_EQ(srx->vars, std::vector<std::string>{"v"});
  EXPECT_EQ(srx->rows[0].at("v"), Term::Blank("b0"));
  EXPECT_EQ(srx->rows[1].at("v"), Term::Iri("http://example/z1"));
  // result-sort-2.rdf (ORDER BY DESC(?name)): names in rs:index order
  auto rdf = ReadAnswer(kDir + "sparql10/sort/result-sort-2.rdf", "http://b/");
  ASSERT_TRUE(rdf.ok()) << rdf.status().ToString();
  ASSERT_EQ(rdf->rows.size(), 4u);
  EXPECT_EQ(rdf->rows[0].at("name"), Term::Literal("Fred"));
  EXPECT_EQ(rdf->rows[3].at("name"), Term::Literal("Alice"));
  auto srj = ParseAnswer(R"({"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","xml:lang":"EN"}},
      {"a":{"type":"typed-literal","value":"1","datatype":"http://www.w3.org/2001/XMLSchema#integer"}},{}]}})",
                         "srj", "");
  ASSERT_TRUE(srj.ok());
  ASSERT_EQ(srj->rows.size(), 3u);
  EXPECT_EQ(srj->rows[0].at("a"), Term::LangLiteral("x", "en"));
  EXPECT_EQ(srj->rows[1].at("a"), Term::Literal("1", "http://www.w3.org/2001/XMLSchema#integer"));
  EXPECT_TRUE(srj->rows[2].empty());
}

TEST(SparqlW3cReadersTest, EveryExpectedResultReads) {
  auto cases = ReadManifest(kDir + "manifest.txt");
  ASSERT_TRUE(cases.ok());
  size_t run = 0, rows = 0;
  for (const auto& c : *cases) {
    if (!c.out_of_scope.empty()) continue;
    ++run;
    auto a = ReadAnswer(c.Dir() + "/" + c.result, c.BaseIri() + c.result);
    ASSERT_TRUE(a.ok()) << c.Id() << ": " << a.status().ToString();
    rows += a->rows.size() + a->graph.size();
    for (const auto& f : c.data) {
      EXPECT_TRUE(ReadRdf(c.Dir() + "/" + f, c.BaseIri() + f, "", std::nullopt).ok()) << c.Id() << " " << f;
    }
  }
  EXPECT_GT(run, 500u);
  EXPECT_GT(rows, 1500u);
}

TEST(SparqlW3cReadersTest, EveryExpectedResultThroughTheWritersAndBack) {
  auto cases = ReadManifest(kDir + "manifest.txt");
  ASSERT_TRUE(cases.ok());
  for (const auto& c : *cases) {
    if (!c.out_of_scope.empty()) continue;
    auto a = ReadAnswer(c.Dir() + "/" + c.result, c.BaseIri() + c.result);
    ASSERT_TRUE(a.ok()) << c.Id();
    EXPECT_EQ(RoundTrip(ToQueryResult(*a), *a, a->csv), "") << c.Id();
  }
}

TEST(SparqlW3cReadersTest, TurtleWithPrefixesBaseAndBlankNodes) {
  auto st = ReadRdf(kDir + "sparql10/basic/data-1.ttl", "http://b/data-1.ttl", "f0_", std::nullopt);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_FALSE(st->empty());
  for (const auto& s : *st) {
    EXPECT_TRUE(s.predicate.is_iri() && s.predicate.value().find(':') != std::string::npos);
    if (s.subject.is_blank()) {
      EXPECT_TRUE(s.subject.value().starts_with("f0_"));
    }
    EXPECT_FALSE(s.graph.has_value());
  }
}

}  // namespace
}  // namespace webindex::sparql::w3c
