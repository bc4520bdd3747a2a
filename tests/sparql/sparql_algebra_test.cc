// The algebra of parsed queries: the translation examples of the SPARQL 1.1 recommendation
// (section 18.2.3 and the grouping of 18.2.4), and the solution modifiers around them.
#include <gtest/gtest.h>

#include "sparql/algebra.h"
#include "sparql/parser.h"

namespace webindex::sparql {
namespace {

std::string Algebra(const std::string& text) {
  const Result<Query> q = ParseQuery("PREFIX : <http://e/> " + text);
  EXPECT_TRUE(q.ok()) << q.status().message() << "\n" << text;
  return q.ok() ? ToSExpr(TranslateQuery(*q)) : "";
}

TEST(SparqlAlgebraTest, GroupPatterns) {
  EXPECT_EQ(Algebra("SELECT * { ?s ?p ?o }"), "(bgp (triple ?s ?p ?o))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p1 ?v1 OPTIONAL { ?s :p2 ?v2 } }"),
            "(leftjoin (bgp (triple ?s <http://e/p1> ?v1)) (bgp (triple ?s <http://e/p2> ?v2)))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p1 ?v1 OPTIONAL { ?s :p2 ?v2 } OPTIONAL { ?s :p3 ?v3 } }"),
            "(leftjoin (leftjoin (bgp (triple ?s <http://e/p1> ?v1)) (bgp (triple ?s <http://e/p2> ?v2))) "
            "(bgp (triple ?s <http://e/p3> ?v3)))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p1 ?v1 OPTIONAL { ?s :p2 ?v2 FILTER(?v1 < 3) } }"),
            "(leftjoin (bgp (triple ?s <http://e/p1> ?v1)) (bgp (triple ?s <http://e/p2> ?v2)) (< ?v1 3))");
  EXPECT_EQ(Algebra("SELECT * { { ?s :p1 ?v1 } UNION { ?s :p2 ?v2 } }"),
            "(union (bgp (triple ?s <http://e/p1> ?v1)) (bgp (triple ?s <http://e/p2> ?v2)))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p1 ?v1 FILTER (?v1 < 3) OPTIONAL { ?s :p3 ?v3 } }"),
            "(filter (< ?v1 3) (leftjoin (bgp (triple ?s <http://e/p1> ?v1)) (bgp (triple ?s <http://e/p3> ?v3))))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p1 ?v1 GRAPH ?g { ?s :p2 ?v2 } }"),
            "(join (bgp (triple ?s <http://e/p1> ?v1)) (graph ?g (bgp (triple ?s <http://e/p2> ?v2))))");
  // A FILTER between triples does not split the basic graph pattern; filters apply to the group.
  EXPECT_EQ(Algebra("SELECT * { ?s :p ?o FILTER(?o) FILTER(?s) ?s :q ?r }"),
            "(filter (exprlist ?o ?s) (bgp (triple ?s <http://e/p> ?o) (triple ?s <http://e/q> ?r)))");
  EXPECT_EQ(
      Algebra("SELECT * { ?s :p ?o BIND(?o + 1 AS ?n) MINUS { ?s :q ?n } VALUES ?o { 1 } }"),
      "(join (minus (extend ((?n (+ ?o 1))) (bgp (triple ?s <http://e/p> ?o))) (bgp (triple ?s <http://e/q> ?n))) "
      "(table (vars ?o) (row [?o 1])))");
  EXPECT_EQ(Algebra("SELECT * { ?s :p ?o . ?o :q+ ?x . ?x :r ?y }"),
            "(join (join (bgp (triple ?s <http://e/p> ?o)) (path ?o (path+ <http://e/q>) ?x)) "
            "(bgp (triple ?x <http://e/r> ?y)))");
  EXPECT_EQ(Algebra("SELECT * {}"), "(bgp)");
}

TEST(SparqlAlgebraTest, GroupingAndAggregates) {
  EXPECT_EQ(Algebra("SELECT (SUM(?val) AS ?sum) (COUNT(?a) AS ?count) { ?a :value ?val } GROUP BY ?a"),
            "(project (?sum ?count) (extend ((?count ?.1)) (extend ((?sum ?.0)) (group (?a) ((?.0 (sum ?val)) "
            "(?.1 (count ?a))) (bgp (triple ?a <http://e/value> ?val))))))");
  EXPECT_EQ(Algebra("SELECT ?k (AVG(?y) AS ?avg) { ?x :p ?y } GROUP BY (STR(?x) AS ?k) HAVING (AVG(?y) > 10)"),
            "(project (?k ?avg) (extend ((?avg ?.0)) (filter (> ?.1 10) (group ((?k (str ?x))) ((?.0 (avg ?y)) "
            "(?.1 (avg ?y))) (bgp (triple ?x <http://e/p> ?y))))))");
  // The trailing VALUES joins the groups, before the select expressions.
  EXPECT_EQ(
      Algebra("SELECT ?a (COUNT(?b) AS ?n) { ?a :p ?b } GROUP BY ?a VALUES ?a { :x }"),
      "(project (?a ?n) (extend ((?n ?.0)) (join (group (?a) ((?.0 (count ?b))) (bgp (triple ?a <http://e/p> ?b))) "
      "(table (vars ?a) (row [?a <http://e/x>])))))");
  // An aggregate without GROUP BY makes one group of every solution.
  EXPECT_EQ(Algebra("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"),
            "(project (?n) (extend ((?n ?.0)) (group () ((?.0 (count *))) (bgp (triple ?s ?p ?o)))))");
}

TEST(SparqlAlgebraTest, SolutionModifiersAndForms) {
  EXPECT_EQ(Algebra("SELECT DISTINCT ?s { ?s ?p ?o } ORDER BY DESC(?o) ?s LIMIT 10 OFFSET 5"),
            "(slice 5 10 (distinct (project (?s) (order ((desc ?o) ?s) (bgp (triple ?s ?p ?o))))))");
  EXPECT_EQ(Algebra("SELECT REDUCED * { ?s ?p ?o } LIMIT 1"), "(slice _ 1 (reduced (bgp (triple ?s ?p ?o))))");
  EXPECT_EQ(Algebra("SELECT ?s { ?s ?p ?o { SELECT ?o { ?o ?q ?r } } } VALUES ?s { :a }"),
            "(project (?s) (join (join (bgp (triple ?s ?p ?o)) (project (?o) (bgp (triple ?o ?q ?r)))) "
            "(table (vars ?s) (row [?s <http://e/a>]))))");
  EXPECT_EQ(Algebra("ASK { ?s ?p ?o }"), "(bgp (triple ?s ?p ?o))");
  EXPECT_EQ(Algebra("CONSTRUCT { ?s ?p ?o } { ?s ?p ?o } ORDER BY ?s"), "(order (?s) (bgp (triple ?s ?p ?o)))");
}

}  // namespace
}  // namespace webindex::sparql
