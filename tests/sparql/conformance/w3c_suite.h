// The W3C SPARQL query evaluation tests as the harness sees them: the cases of
// tests/data/sparql/eval/manifest.txt, their data read with serd, the expected results read from
// SRX, SRJ, TSV, CSV and Turtle, and the comparison of a QueryResult with them (solutions as a
// multiset or a list, blank nodes up to a bijection; graphs up to isomorphism). Plain functions.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/term.h"
#include "sparql/execute.h"

namespace webindex::sparql::w3c {

//! The base IRI of the suite's files: a file is <kBase><folder>/<name>.
inline constexpr std::string_view kBase = "https://w3c.github.io/rdf-tests/sparql/";

struct TestCase {
  std::string folder;  //!< e.g. sparql11/aggregates
  std::string name;    //!< the test's IRI fragment, e.g. agg01
  std::string out_of_scope;  //!< non-empty: why the harness does not run it
  std::string query, result;
  std::vector<std::string> data;
  std::vector<std::pair<std::string, std::string>> graphs;  //!< (name relative to folder, file)
  bool lax = false;  //!< REDUCED: multiplicities may differ

  std::string Id() const { return folder + "/" + name; }
  std::string Dir() const;        //!< the folder on disk
  std::string BaseIri() const { return std::string(kBase) + folder + "/"; }
};

//! gtest prints a case as its id.
inline void PrintTo(const TestCase& c, std::ostream* os) { *os << c.Id(); }

//! The cases of manifest.txt in its order.
Result<std::vector<TestCase>> ReadManifest(const std::string& path);

//! <folder>/<test> -> reason, for each category of expected_failures.txt ("known-failure",
//! "out-of-scope").
struct ExpectedFailures {
  std::map<std::string, std::string> known, out_of_scope;
};
Result<ExpectedFailures> ReadExpectedFailures(const std::string& path);

//! Reads a Turtle, TriG or N-Triples file (by extension; .rdf from its .nt copy) with `base`.
//! Blank node labels get `bnode_prefix` so two files never share one. `graph` set: the
//! statements go into that graph (TriG's own graphs stay theirs).
Result<std::vector<graph::Statement>> ReadRdf(const std::string& path, const std::string& base,
                                              const std::string& bnode_prefix, const std::optional<graph::Term>& graph);

//! An expected (or actual) answer in one shape for comparison.
struct Answer {
  enum class Kind { kRows, kBoolean, kGraph } kind = Kind::kRows;
  std::vector<std::string> vars;
  //! Rows: variable -> term. From CSV, every term is a literal holding the CSV text (csv = true).
  std::vector<std::map<std::string, graph::Term>> rows;
  bool csv = false;
  bool boolean = false;
  std::vector<graph::Statement> graph;
};

//! Reads an expected result by extension: .srx .srj .tsv .csv, or RDF (.ttl, .rdf): an
//! rs:ResultSet or else a graph. Relative IRIs resolve against `base`.
Result<Answer> ReadAnswer(const std::string& path, const std::string& base);
//! Parses result text of one format (srx, srj, tsv, csv).
Result<Answer> ParseAnswer(std::string_view text, std::string_view ext, const std::string& base);
Answer FromQueryResult(const QueryResult& result);
//! An Answer as a QueryResult (rows in order of `vars`), for writing it out again.
QueryResult ToQueryResult(const Answer& answer);

//! Empty when `actual` matches `expected`, else what differs. `ordered`: rows compared as lists,
//! except that runs of expected rows equal on all of `order_keys` (ORDER BY's conditions when
//! they are all variables) may come in any order.
std::string Compare(const Answer& actual, const Answer& expected, bool ordered, bool lax,
                    const std::vector<std::string>& order_keys = {});

//! `result` written as JSON, XML and TSV (SELECT; ASK: JSON and XML; `csv`: CSV) and read back
//! must equal `answer`: empty when it does, else what changed.
std::string RoundTrip(const QueryResult& result, const Answer& answer, bool csv);

}  // namespace webindex::sparql::w3c
