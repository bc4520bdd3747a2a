// CONSTRUCT (templates per solution, fresh blank nodes, invalid triples skipped, each statement
// once), DESCRIBE (statements of the resource, following blank-node objects) and the limits:
// deadline, cancellation, max_rows.
#include <set>

#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

constexpr char kData[] = R"(
<http://e/a> <http://e/p> <http://e/b> .
<http://e/a> <http://e/p> "lit" .
<http://e/a> <http://e/q> _:n .
_:n <http://e/r> "inside" .
<http://e/b> <http://e/p> <http://e/c> .
)";

class SparqlFormsTest : public ::testing::Test {
 protected:
  void SetUp() override { Load(&ds_, kData); }
  std::vector<std::string> Statements(const std::string& text) {
    Result<QueryResult> r = RunQuery(ds_, text);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const graph::Statement& s : r->statements) out.push_back(graph::ToNTriples(s));
    std::sort(out.begin(), out.end());
    return out;
  }
  MemoryDataset ds_;
};

TEST_F(SparqlFormsTest, ConstructInstantiatesTheTemplate) {
  // A literal subject is skipped; the IRI objects are kept.
  EXPECT_EQ(Statements("CONSTRUCT { ?o :from ?s } WHERE { ?s :p ?o }"),
            (Lines{"<http://e/b> <http://e/from> <http://e/a> .", "<http://e/c> <http://e/from> <http://e/b> ."}));
  // Unbound positions skip the triple; duplicates appear once.
  EXPECT_EQ(Statements("CONSTRUCT { :x :y ?nothing . :x :y :z } WHERE { ?s :p ?o }"),
            Lines{"<http://e/x> <http://e/y> <http://e/z> ."});
  EXPECT_EQ(Statements("CONSTRUCT WHERE { ?s :q ?o }"), Lines{"<http://e/a> <http://e/q> _:n ."});
}

TEST_F(SparqlFormsTest, ConstructMakesFreshBlankNodesPerSolution) {
  Result<QueryResult> r = RunQuery(ds_, "CONSTRUCT { _:x :of ?o } WHERE { ?s :p ?o }");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->statements.size(), 3u);
  std::set<std::string> blanks;
  for (const auto& s : r->statements) blanks.insert(s.subject.value());
  EXPECT_EQ(blanks.size(), 3u);
}

TEST_F(SparqlFormsTest, DescribeFollowsBlankNodes) {
  EXPECT_EQ(Statements("DESCRIBE :a"),
            (Lines{"<http://e/a> <http://e/p> \"lit\" .", "<http://e/a> <http://e/p> <http://e/b> .",
                   "<http://e/a> <http://e/q> _:n .", "_:n <http://e/r> \"inside\" ."}));
  EXPECT_EQ(Statements("DESCRIBE ?x { :a :p ?x }"), Lines{"<http://e/b> <http://e/p> <http://e/c> ."});
}

TEST_F(SparqlFormsTest, MaxRowsDeadlineAndCancel) {
  ExecuteOptions options;
  options.max_rows = 2;
  Result<QueryResult> r = RunQuery(ds_, "SELECT * { ?s ?p ?o }", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kAborted);
  options.max_rows = 5;
  EXPECT_TRUE(RunQuery(ds_, "SELECT * { ?s ?p ?o }", options).ok());
  options.max_rows = 1;
  EXPECT_FALSE(RunQuery(ds_, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", options).ok());

  MemoryDataset big;
  for (int i = 0; i < 2000; ++i) {
    big.Add({graph::Term::Iri("http://e/s" + std::to_string(i)), graph::Term::Iri("http://e/p"),
             graph::Term::Iri("http://e/o"), std::nullopt});
  }
  ExecuteOptions late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  Result<QueryResult> timed = RunQuery(big, "SELECT * { ?s :p ?o . ?t :p ?o }", late);
  ASSERT_FALSE(timed.ok());
  EXPECT_EQ(timed.status().message(), "the query ran longer than its timeout");
  // A scan whose rows a FILTER rejects still checks the deadline.
  Result<QueryResult> filtered = RunQuery(big, "SELECT * { ?s :p ?o FILTER(?o = 1) }", late);
  ASSERT_FALSE(filtered.ok());
  EXPECT_EQ(filtered.status().code(), Status::Code::kAborted);
  std::atomic<bool> cancelled{true};
  ExecuteOptions cancel;
  cancel.cancelled = &cancelled;
  Result<QueryResult> stopped = RunQuery(big, "SELECT * { ?s :p ?o . ?t :p ?o }", cancel);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), "cancelled");
}

}  // namespace
}  // namespace webindex::sparql
