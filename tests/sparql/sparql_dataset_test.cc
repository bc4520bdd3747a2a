// The RDF dataset of a query (§13): named graphs through GRAPH with an IRI or a variable, the
// active graph inside GRAPH, FROM merging named graphs into the default graph, FROM NAMED
// limiting the named graphs.
#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

constexpr char kData[] = R"(
<http://e/a> <http://e/p> "default" .
<http://e/a> <http://e/p> "one" <http://e/g1> .
<http://e/b> <http://e/p> "two" <http://e/g2> .
<http://e/a> <http://e/p> "shared" <http://e/g1> .
<http://e/a> <http://e/p> "shared" <http://e/g2> .
<http://e/c> <http://e/q> <http://e/g2> <http://e/g2> .
)";

class SparqlDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override { Load(&ds_, kData); }
  Lines Q(const std::string& text) { return Rows(ds_, text); }
  MemoryDataset ds_;
};

TEST_F(SparqlDatasetTest, DefaultGraphAlone) { EXPECT_EQ(Q("SELECT ?o { ?s :p ?o }"), Lines{"\"default\""}); }

TEST_F(SparqlDatasetTest, GraphWithAnIriOrAVariable) {
  EXPECT_EQ(Q("SELECT ?o { GRAPH :g1 { ?s :p ?o } }"), (Lines{"\"one\"", "\"shared\""}));
  EXPECT_EQ(Q("SELECT ?g ?o { GRAPH ?g { :b :p ?o } }"), Lines{":g2 \"two\""});
  EXPECT_EQ(Q("SELECT ?g { GRAPH ?g { :a :p \"shared\" } }"), (Lines{":g1", ":g2"}));
  EXPECT_EQ(Q("SELECT ?o { GRAPH :nope { ?s :p ?o } }"), Lines{});
  EXPECT_EQ(Q("SELECT * { GRAPH :nope {} }"), Lines{});
  EXPECT_EQ(Q("SELECT * { GRAPH :g1 {} }"), Lines{""});
  EXPECT_EQ(Q("SELECT ?x ?p { GRAPH ?g { { SELECT * { ?x ?p ?g } } } }"), Lines{":c :q"});
  // The variable bound before GRAPH picks the graph.
  EXPECT_EQ(Q("SELECT ?o { VALUES ?g { :g2 } GRAPH ?g { ?s :p ?o } }"), (Lines{"\"shared\"", "\"two\""}));
}

TEST_F(SparqlDatasetTest, FromMergesNamedGraphsIntoTheDefaultGraph) {
  EXPECT_EQ(Q("SELECT ?o FROM :g1 FROM :g2 { ?s :p ?o }"), (Lines{"\"one\"", "\"shared\"", "\"two\""}));
  EXPECT_EQ(Q("SELECT ?o FROM :g2 { ?s :p ?o }"), (Lines{"\"shared\"", "\"two\""}));
  // FROM alone: no named graphs.
  EXPECT_EQ(Q("SELECT ?g FROM :g1 { GRAPH ?g { ?s ?p ?o } }"), Lines{});
}

TEST_F(SparqlDatasetTest, FromNamedLimitsTheNamedGraphs) {
  EXPECT_EQ(Q("SELECT ?g ?o FROM NAMED :g2 { GRAPH ?g { ?s :p ?o } }"), (Lines{":g2 \"shared\"", ":g2 \"two\""}));
  EXPECT_EQ(Q("SELECT ?o FROM NAMED :g2 { GRAPH :g1 { ?s :p ?o } }"), Lines{});
  // FROM NAMED alone: the default graph is empty.
  EXPECT_EQ(Q("SELECT ?o FROM NAMED :g2 { ?s :p ?o }"), Lines{});
}

}  // namespace
}  // namespace webindex::sparql
