// `webindex query sparql` as a user runs it: statements loaded with `webindex load` and applied
// by `webindex run`, then SELECT with a join (JSON, CSV), CONSTRUCT (N-Triples), ASK, a query
// from a file and from standard input, the plan (--explain), and the errors: syntax (exit 2,
// line and column), a format the form has not (exit 2), no query (exit 2).
#include <gtest/gtest.h>

#include <string>

#include "child_process.h"
#include "gzip_file.h"
#include "pipeline_harness.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

class SparqlCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    harness_ = std::make_unique<PipelineHarness>(2);
    dir_ = harness_->data_dir();
    log_ = dir_ + "/cli.log";
    const std::string file = dir_ + "/people.nq";
    WriteFileBytes(file,
                   "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/bob> .\n"
                   "<http://ex.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://ex.org/carol> .\n"
                   "<http://ex.org/bob> <http://xmlns.com/foaf/0.1/name> \"Bob\" .\n"
                   "<http://ex.org/carol> <http://xmlns.com/foaf/0.1/name> \"Carol\"@en .\n"
                   "<http://ex.org/dave> <http://xmlns.com/foaf/0.1/name> \"Dave\" <http://ex.org/g> .\n");
    std::string out;
    ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", harness_->brokers(), "--format", "nquads", file}, &out,
                         log_),
              0)
        << ReadFileBytes(log_);
    harness_->RunUntilIdle();
    data_ = harness_->config().data_dir;
  }
  int Query(std::vector<std::string> args, std::string* out) {
    args.insert(args.begin(), {WEBINDEX_BINARY, "query", "sparql", "--data-dir", data_});
    return RunCommand(args, out, log_);
  }

  std::unique_ptr<PipelineHarness> harness_;
  std::string dir_, log_, data_;
};

constexpr char kFriends[] =
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\n"
    "SELECT ?friend ?name WHERE { <http://ex.org/alice> foaf:knows ?friend . ?friend foaf:name ?name }\n"
    "ORDER BY ?name";

TEST_F(SparqlCliTest, SelectConstructAskAndThePlan) {
  std::string out;
  ASSERT_EQ(Query({kFriends}, &out), 0) << ReadFileBytes(log_);
  EXPECT_NE(out.find(R"("vars":["friend","name"])"), std::string::npos) << out;
  EXPECT_LT(out.find("\"Bob\""), out.find("\"Carol\"")) << out;
  ASSERT_EQ(Query({kFriends, "--format", "csv"}, &out), 0);
  EXPECT_EQ(out, "friend,name\r\nhttp://ex.org/bob,Bob\r\nhttp://ex.org/carol,Carol\r\n");

  ASSERT_EQ(Query({"CONSTRUCT { ?p <http://ex.org/named> ?n } WHERE { GRAPH ?g { ?p "
                   "<http://xmlns.com/foaf/0.1/name> ?n } }"},
                  &out),
            0)
      << ReadFileBytes(log_);
  EXPECT_EQ(out, "<http://ex.org/dave> <http://ex.org/named> \"Dave\" .\n");
  ASSERT_EQ(Query({"ASK { <http://ex.org/bob> ?p \"Bob\" }"}, &out), 0);
  EXPECT_NE(out.find(R"("boolean":true)"), std::string::npos) << out;

  const std::string file = dir_ + "/friends.rq";
  WriteFileBytes(file, kFriends);
  std::string from_file;
  ASSERT_EQ(Query({"--file", file, "--format", "csv"}, &from_file), 0);
  EXPECT_EQ(from_file, "friend,name\r\nhttp://ex.org/bob,Bob\r\nhttp://ex.org/carol,Carol\r\n");

  ASSERT_EQ(Query({kFriends, "--explain"}, &out), 0) << ReadFileBytes(log_);
  // The bound subject is scanned first, in the order that binds it; the join binds ?friend.
  EXPECT_NE(out.find("SPO"), std::string::npos) << out;
  EXPECT_LT(out.find("alice"), out.find("name")) << out;
}

TEST_F(SparqlCliTest, ErrorsSayWhatAndWhere) {
  std::string out;
  EXPECT_EQ(Query({"SELECT ?x WHERE {\n ?x ?y\n}"}, &out), 2);
  EXPECT_TRUE(out.starts_with("{\"error\":\"SPARQL syntax: line 3, column 1")) << out;
  EXPECT_EQ(Query({"SELECT * { ?s ?p ?o }", "--format", "ntriples"}, &out), 2);
  EXPECT_NE(out.find("json, xml, csv or tsv"), std::string::npos) << out;
  EXPECT_EQ(Query({}, &out), 2);
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "top", "--data-dir", data_, "--explain"}, &out, log_), 2);
}

}  // namespace
}  // namespace webindex::testing
