// The evaluator's operators (§18.5) over a small MemoryDataset: BGPs with blank nodes, joins,
// OPTIONAL with its filter, FILTER, UNION, MINUS, BIND, VALUES, grouping, ordering, slices,
// subqueries and EXISTS.
#include <set>

#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

constexpr char kData[] = R"(
<http://e/alice> <http://e/knows> <http://e/bob> .
<http://e/alice> <http://e/knows> <http://e/carol> .
<http://e/bob> <http://e/knows> <http://e/carol> .
<http://e/alice> <http://e/age> "30"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/bob> <http://e/age> "25"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/carol> <http://e/age> "35"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/alice> <http://e/name> "Alice" .
<http://e/bob> <http://e/name> "Bob" .
<http://e/dave> <http://e/name> "Dave" .
)";

class SparqlEvalTest : public ::testing::Test {
 protected:
  void SetUp() override { Load(&ds_, kData); }
  Lines Q(const std::string& text) { return Rows(ds_, text); }
  MemoryDataset ds_;
};

TEST_F(SparqlEvalTest, BgpJoinsOnSharedVariables) {
  EXPECT_EQ(Q("SELECT ?x ?z { ?x :knows ?y . ?y :knows ?z }"), (Lines{":alice :carol"}));
  EXPECT_EQ(Q("SELECT ?n { ?x :knows :carol ; :name ?n }"), (Lines{"\"Alice\"", "\"Bob\""}));
  EXPECT_EQ(Q("SELECT ?x { ?x :knows ?x }"), Lines{});
  EXPECT_EQ(Q("SELECT * { :nobody ?p ?o }"), Lines{});
}

TEST_F(SparqlEvalTest, BlankNodesInPatternsActAsVariables) {
  EXPECT_EQ(Q("SELECT ?x { ?x :knows [ :name \"Bob\" ] }"), Lines{":alice"});
  EXPECT_EQ(Q("SELECT ?x { ?x :knows _:b . _:b :knows :carol }"), Lines{":alice"});
  EXPECT_EQ(Q("SELECT * { :bob :knows _:b }"), Lines{""});
}

TEST_F(SparqlEvalTest, OptionalKeepsTheLeftAndSeesBothSidesInItsFilter) {
  EXPECT_EQ(Q("SELECT ?x ?n { ?x :age ?a OPTIONAL { ?x :name ?n } }"),
            (Lines{":alice \"Alice\"", ":bob \"Bob\"", ":carol -"}));
  EXPECT_EQ(Q("SELECT ?x ?y { ?x :age ?a OPTIONAL { ?x :knows ?y . ?y :age ?b FILTER(?b > ?a) } }"),
            (Lines{":alice :carol", ":bob :carol", ":carol -"}));
}

TEST_F(SparqlEvalTest, OptionalTakesOnlyItsOwnGroupsFiltersAsItsCondition) {
  // The nested group's filter cannot see ?a: it fails, and the OPTIONAL never matches.
  EXPECT_EQ(Q("SELECT ?x ?n { ?x :age ?a OPTIONAL { { ?x :name ?n FILTER(?a = 30) } } }"),
            (Lines{":alice -", ":bob -", ":carol -"}));
}

TEST_F(SparqlEvalTest, BnodeOfAStringIsOneLabelPerSolution) {
  Result<QueryResult> r = RunQuery(ds_,
                                   "SELECT ?b1 ?b2 ?b3 { ?x :name ?n BIND(BNODE(?n) AS ?b1) BIND(BNODE(?n) AS ?b2) "
                                   "BIND(BNODE(\"other\") AS ?b3) }");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  std::set<std::string> labels;
  for (const auto& row : r->rows) {
    ASSERT_TRUE(row[0] && row[1] && row[2]);
    EXPECT_EQ(*row[0], *row[1]);
    EXPECT_NE(*row[0], *row[2]);
    labels.insert(row[0]->value());
  }
  EXPECT_EQ(labels.size(), 3u);
}

TEST_F(SparqlEvalTest, FilterErrorsAreFalseAndFiltersCoverTheGroup) {
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a FILTER(?a >= 30) }"), (Lines{":alice", ":carol"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a FILTER(?unbound > 1) }"), Lines{});
  EXPECT_EQ(Q("SELECT ?x { FILTER(?a > 30) ?x :age ?a }"), Lines{":carol"});
  // The filter of the outer group does not see the OPTIONAL's variable bound from outside.
  EXPECT_EQ(Q("SELECT ?x ?n { ?x :age ?a OPTIONAL { ?x :name ?n } FILTER(!BOUND(?n)) }"), Lines{":carol -"});
  // A filter in a nested group does not see the outer group's variables.
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a { ?x :name ?n FILTER(BOUND(?a)) } }"), Lines{});
}

TEST_F(SparqlEvalTest, UnionAndMinus) {
  EXPECT_EQ(Q("SELECT ?x { { ?x :age 25 } UNION { ?x :name \"Dave\" } }"), (Lines{":bob", ":dave"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :name ?n MINUS { ?x :knows ?y } }"), Lines{":dave"});
  // Solutions sharing no variable are never removed.
  EXPECT_EQ(Q("SELECT ?x { ?x :name ?n MINUS { ?a :knows ?b } }"), (Lines{":alice", ":bob", ":dave"}));
}

TEST_F(SparqlEvalTest, BindAndValues) {
  EXPECT_EQ(Q("SELECT ?x ?b { ?x :age ?a BIND(?a + 1 AS ?b) FILTER(?b < 30) }"), Lines{":bob 26"});
  EXPECT_EQ(Q("SELECT ?x ?b { ?x :name ?n BIND(?n + 1 AS ?b) FILTER(?x = :dave) }"), Lines{":dave -"});
  EXPECT_EQ(Q("SELECT ?x ?n { ?x :name ?n VALUES ?x { :bob :carol } }"), Lines{":bob \"Bob\""});
  EXPECT_EQ(Q("SELECT ?x ?n { VALUES (?x ?n) { (:bob UNDEF) (UNDEF \"Dave\") } ?x :name ?n }"),
            (Lines{":bob \"Bob\"", ":dave \"Dave\""}));
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a } VALUES ?a { 30 35 }"), (Lines{":alice", ":carol"}));
}

TEST_F(SparqlEvalTest, GroupsAndAggregates) {
  EXPECT_EQ(Q("SELECT ?x (COUNT(?y) AS ?c) { ?x :knows ?y } GROUP BY ?x"), (Lines{":alice 2", ":bob 1"}));
  EXPECT_EQ(Q("SELECT (COUNT(*) AS ?c) { ?x :knows ?y }"), Lines{"3"});
  EXPECT_EQ(Q("SELECT (COUNT(*) AS ?c) { ?x :nothing ?y }"), Lines{"0"});
  EXPECT_EQ(Q("SELECT ?x (COUNT(*) AS ?c) { ?x :nothing ?y } GROUP BY ?x"), Lines{});
  EXPECT_EQ(Q("SELECT (COUNT(DISTINCT ?x) AS ?c) { ?x :knows ?y }"), Lines{"2"});
  EXPECT_EQ(Q("SELECT (COUNT(DISTINCT *) AS ?c) { ?x :knows ?y . ?z :knows ?y }"), Lines{"5"});
  EXPECT_EQ(Q("SELECT ?x { ?x :knows ?y } GROUP BY ?x HAVING (COUNT(?y) > 1)"), Lines{":alice"});
  EXPECT_EQ(Q("SELECT (MAX(?a) AS ?m) { ?x :age ?a }"), Lines{"35"});
}

TEST_F(SparqlEvalTest, ModifiersOrderProjectDistinctSlice) {
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a } ORDER BY DESC(?a)"), (Lines{":carol", ":alice", ":bob"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a } ORDER BY ?a LIMIT 2"), (Lines{":bob", ":alice"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a } ORDER BY ?a OFFSET 1 LIMIT 1"), Lines{":alice"});
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a } ORDER BY ?a OFFSET 5"), Lines{});
  EXPECT_EQ(Q("SELECT DISTINCT ?x { ?x :knows ?y }"), (Lines{":alice", ":bob"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :knows ?y }"), (Lines{":alice", ":alice", ":bob"}));
  Result<QueryResult> r = RunQuery(ds_, "SELECT * { ?x :age ?a }");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->vars, (std::vector<std::string>{"a", "x"}));
}

TEST_F(SparqlEvalTest, SubqueriesProjectTheirOwnVariables) {
  EXPECT_EQ(Q("SELECT ?x ?c { ?x :name ?n { SELECT ?x (COUNT(?y) AS ?c) { ?x :knows ?y } GROUP BY ?x } }"),
            (Lines{":alice 2", ":bob 1"}));
  // ?y of the subquery is not projected: it does not join with the outer ?y.
  EXPECT_EQ(Q("SELECT ?x ?y { ?x :name ?y { SELECT ?x { ?x :knows ?y } } }"),
            (Lines{":alice \"Alice\"", ":alice \"Alice\"", ":bob \"Bob\""}));
}

TEST_F(SparqlEvalTest, ExistsSubstitutesTheSolution) {
  EXPECT_EQ(Q("SELECT ?x { ?x :name ?n FILTER EXISTS { ?x :knows ?y } }"), (Lines{":alice", ":bob"}));
  EXPECT_EQ(Q("SELECT ?x { ?x :name ?n FILTER NOT EXISTS { ?x :knows ?y } }"), Lines{":dave"});
  EXPECT_EQ(Q("SELECT ?x { ?x :age ?a FILTER EXISTS { ?y :age ?b FILTER(?b > ?a) } }"), (Lines{":alice", ":bob"}));
}

TEST_F(SparqlEvalTest, AskAndServiceAndErrorsOfTheQuery) {
  Result<QueryResult> yes = RunQuery(ds_, "ASK { :alice :knows :bob }");
  ASSERT_TRUE(yes.ok());
  EXPECT_TRUE(yes->boolean);
  Result<QueryResult> no = RunQuery(ds_, "ASK { :bob :knows :alice }");
  ASSERT_TRUE(no.ok());
  EXPECT_FALSE(no->boolean);
  Result<QueryResult> service = RunQuery(ds_, "SELECT * {\n  SERVICE <http://s/> { ?s ?p ?o } }");
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(service.status().message(), "line 2, column 3: SERVICE is not supported");
}

}  // namespace
}  // namespace webindex::sparql
