// Property paths (§9.3, §18.4): sequence, alternative, inverse, negated sets with inverse
// members, and the node-set semantics of `*`, `+` and `?` including zero-length paths.
#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

constexpr char kData[] = R"(
<http://e/a> <http://e/next> <http://e/b> .
<http://e/b> <http://e/next> <http://e/c> .
<http://e/c> <http://e/next> <http://e/a> .
<http://e/a> <http://e/other> <http://e/b> .
<http://e/c> <http://e/label> "c" .
)";

class SparqlPathsTest : public ::testing::Test {
 protected:
  void SetUp() override { Load(&ds_, kData); }
  Lines Q(const std::string& text) { return Rows(ds_, text); }
  MemoryDataset ds_;
};

TEST_F(SparqlPathsTest, SequenceAlternativeInverse) {
  EXPECT_EQ(Q("SELECT ?x { :a :next/:next ?x }"), Lines{":c"});
  EXPECT_EQ(Q("SELECT ?x { ?x :next/:label \"c\" }"), Lines{":b"});
  EXPECT_EQ(Q("SELECT ?x { :a :next|:other ?x }"), (Lines{":b", ":b"}));
  EXPECT_EQ(Q("SELECT ?x { :a ^:next ?x }"), Lines{":c"});
  EXPECT_EQ(Q("SELECT ?x { :b ^(:next/:next) ?x }"), Lines{":c"});
}

TEST_F(SparqlPathsTest, NegatedPropertySets) {
  EXPECT_EQ(Q("SELECT ?x { :a !:next ?x }"), Lines{":b"});
  EXPECT_EQ(Q("SELECT ?x { :a !(:next|:other) ?x }"), Lines{});
  EXPECT_EQ(Q("SELECT ?x { :b !^:other ?x }"), Lines{":a"});
  EXPECT_EQ(Q("SELECT ?x { :b !(:other|^:other) ?x }"), (Lines{":a", ":c"}));
}

TEST_F(SparqlPathsTest, ClosuresAreNodeSets) {
  EXPECT_EQ(Q("SELECT ?x { :a :next+ ?x }"), (Lines{":a", ":b", ":c"}));
  EXPECT_EQ(Q("SELECT ?x { :a :next* ?x }"), (Lines{":a", ":b", ":c"}));
  EXPECT_EQ(Q("SELECT ?x { :a (:next|:other)+ ?x }"), (Lines{":a", ":b", ":c"}));
  EXPECT_EQ(Q("SELECT ?x { :a :other+ ?x }"), Lines{":b"});
  EXPECT_EQ(Q("SELECT ?x { ?x :other* :b }"), (Lines{":a", ":b"}));
  EXPECT_EQ(Q("SELECT ?x { :a :next? ?x }"), (Lines{":a", ":b"}));
}

TEST_F(SparqlPathsTest, ZeroLengthPaths) {
  // A constant end matches itself even when absent from the graph.
  EXPECT_EQ(Q("SELECT * { :zz :next* :zz }"), Lines{""});
  EXPECT_EQ(Q("SELECT ?x { :zz :next* ?x }"), Lines{":zz"});
  EXPECT_EQ(Q("SELECT * { :zz :next? :zz }"), Lines{""});
  // An end bound by another pattern is not written in the path: it must be a node of the graph.
  EXPECT_EQ(Q("SELECT ?v { VALUES ?v { :zz } ?v :next? ?v }"), Lines{});
  EXPECT_EQ(Q("SELECT ?v { VALUES ?v { :zz :a } ?v :next* ?v }"), Lines{":a"});
  // Both ends variables: every node of the graph, literals included.
  EXPECT_EQ(Q("SELECT ?x { ?x :other? ?x }"), (Lines{"\"c\"", ":a", ":b", ":c"}));
  EXPECT_EQ(Q("SELECT (COUNT(*) AS ?n) { ?x :other* ?y }"), Lines{"5"});
}

}  // namespace
}  // namespace webindex::sparql
