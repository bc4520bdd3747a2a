// The W3C SPARQL 1.1 / 1.0 query evaluation tests (tests/data/sparql/eval/manifest.txt), one
// gtest each: the query runs over its dataset (a MemoryDataset) and its answer must equal the
// expected result; the answer also goes through the JSON, XML and TSV writers and back unchanged.
// A test listed as a known failure in expected_failures.txt must fail (a fixed one is taken off
// the list). SparqlConformanceSummary prints the pass rate per folder.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "sparql/iri_resolve.h"
#include "sparql/memory_dataset.h"
#include "sparql/parser.h"
#include "test_paths.h"
#include "w3c_suite.h"

namespace webindex::sparql::w3c {
namespace {

std::string EvalDir() { return WEBINDEX_TEST_DATA + "/sparql/eval"; }

const std::vector<TestCase>& Cases() {
  static const std::vector<TestCase> cases = [] {
    auto r = ReadManifest(EvalDir() + "/manifest.txt");
    if (!r.ok()) {
      std::cerr << r.status().ToString() << "\n";
      return std::vector<TestCase>{};
    }
    return *r;
  }();
  return cases;
}

const ExpectedFailures& Failures() {
  static const ExpectedFailures f = [] {
    auto r = ReadExpectedFailures(EvalDir() + "/expected_failures.txt");
    if (!r.ok()) std::cerr << r.status().ToString() << "\n";
    return r.ok() ? *r : ExpectedFailures{};
  }();
  return f;
}

bool OutOfScope(const TestCase& c) { return !c.out_of_scope.empty() || Failures().out_of_scope.count(c.Id()); }

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

//! Loads the test's default graph, its named graphs and the files its FROM / FROM NAMED name.
Status LoadDataset(const TestCase& c, const Query& query, MemoryDataset* ds) {
  int n = 0;
  auto prefix = [&n] {  // each file's blank nodes apart from the others'
    std::string p = std::to_string(n++);
    p.insert(p.begin(), 'f');
    p += '_';
    return p;
  };
  for (const auto& file : c.data) {
    ASSIGN_OR_RETURN(auto st, ReadRdf(c.Dir() + "/" + file, c.BaseIri() + file, prefix(),
                                      std::nullopt));
    for (auto& s : st) ds->Add(std::move(s));
  }
  std::set<std::string> named;
  auto load_named = [&](const std::string& iri, const std::string& file) -> Status {
    if (!named.insert(iri).second) return Status::Ok();
    ASSIGN_OR_RETURN(auto st, ReadRdf(c.Dir() + "/" + file, iri, prefix(),
                                      graph::Term::Iri(iri)));
    for (auto& s : st) ds->Add(std::move(s));
    return Status::Ok();
  };
  for (const auto& [name, file] : c.graphs) RETURN_IF_ERROR(load_named(ResolveIri(c.BaseIri(), name), file));
  for (const auto* list : {&query.from, &query.from_named}) {
    for (const auto& iri : *list) {
      const std::string file = iri.starts_with(c.BaseIri()) ? iri.substr(c.BaseIri().size()) : "";
      if (!file.empty() && std::filesystem::exists(c.Dir() + "/" + file)) RETURN_IF_ERROR(load_named(iri, file));
    }
  }
  return Status::Ok();
}

//! Runs one test: empty when it passes, else why not.
std::string RunCase(const TestCase& c) {
  auto expected = ReadAnswer(c.Dir() + "/" + c.result, c.BaseIri() + c.result);
  if (!expected.ok()) return "expected result: " + expected.status().ToString();
  ParseOptions po;
  po.base = c.BaseIri() + c.query;
  auto query = ParseQuery(ReadText(c.Dir() + "/" + c.query), po);
  if (!query.ok()) return "parse: " + query.status().ToString();
  MemoryDataset ds;
  if (Status s = LoadDataset(c, *query, &ds); !s.ok()) return "data: " + s.ToString();
  ExecuteOptions options;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto result = Execute(*query, ds, options);
  if (!result.ok()) return "execute: " + result.status().ToString();
  Answer actual = FromQueryResult(*result);
  std::vector<std::string> keys;
  for (const auto& o : query->order_by) {
    if (o.expr.kind != Expr::Kind::kVar) {
      keys.clear();
      break;
    }
    keys.push_back(o.expr.name);
  }
  std::string why = Compare(actual, *expected, !query->order_by.empty(), c.lax, keys);
  if (!why.empty()) return why;
  return RoundTrip(*result, actual, false);
}

const std::vector<TestCase>& InScope() {
  static const std::vector<TestCase> in_scope = [] {
    std::vector<TestCase> out;
    for (const auto& c : Cases()) {
      if (!OutOfScope(c)) out.push_back(c);
    }
    return out;
  }();
  return in_scope;
}

//! <folder>__<test> with every other character as '_', made unique by the manifest position.
std::string TestName(const ::testing::TestParamInfo<TestCase>& info) {
  std::string name = info.param.folder + "__" + info.param.name;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  int same = 0;
  for (const auto& c : InScope()) {
    if (&c - &InScope()[0] >= static_cast<long>(info.index)) break;
    std::string other = c.folder + "__" + c.name;
    for (char& ch : other) {
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    same += other == name;
  }
  return same ? name + "_" + std::to_string(same + 1) : name;
}

class SparqlConformanceTest : public ::testing::TestWithParam<TestCase> {};

TEST_P(SparqlConformanceTest, Eval) {
  const TestCase& c = GetParam();
  const std::string why = RunCase(c);
  auto known = Failures().known.find(c.Id());
  if (known != Failures().known.end()) {
    EXPECT_FALSE(why.empty()) << c.Id() << " passes now: remove it from expected_failures.txt";
    if (!why.empty()) std::cout << "known failure (" << known->second << "): " << why << "\n";
  } else {
    EXPECT_TRUE(why.empty()) << c.Id() << ": " << why;
  }
}

INSTANTIATE_TEST_SUITE_P(W3c, SparqlConformanceTest, ::testing::ValuesIn(InScope()), TestName);

TEST(SparqlConformanceSummary, PassRatePerFolder) {
  ASSERT_FALSE(Cases().empty());
  struct Counts {
    int pass = 0, run = 0, known = 0, out = 0;
  };
  std::map<std::string, Counts> folders;
  std::set<std::string> ids;
  int unexpected = 0, fixed = 0;
  for (const auto& c : Cases()) {
    ids.insert(c.Id());
    Counts& n = folders[c.folder];
    if (OutOfScope(c)) {
      ++n.out;
      continue;
    }
    ++n.run;
    const std::string why = RunCase(c);
    const bool pass = why.empty();
    const bool listed = Failures().known.count(c.Id());
    if (!pass && !listed) {  // in the list's format, for the one who adds it
      std::cout << "known-failure " << c.Id() << " " << why.substr(0, why.find('\n')) << "\n";
    }
    n.pass += pass;
    n.known += listed;
    unexpected += !pass && !listed;
    fixed += pass && listed;
  }
  Counts total;
  std::cout << std::left << std::setw(34) << "folder" << "  pass   run   rate  known-failures  out-of-scope\n";
  for (const auto& [folder, n] : folders) {
    std::cout << std::left << std::setw(34) << folder << std::right << std::setw(6) << n.pass << std::setw(6) << n.run
              << std::setw(6) << (n.run ? 100 * n.pass / n.run : 0) << "%" << std::setw(16) << n.known << std::setw(14)
              << n.out << "\n";
    total.pass += n.pass, total.run += n.run, total.known += n.known, total.out += n.out;
  }
  std::cout << std::left << std::setw(34) << "total" << std::right << std::setw(6) << total.pass << std::setw(6)
            << total.run << std::setw(6) << (total.run ? 100 * total.pass / total.run : 0) << "%" << std::setw(16)
            << total.known << std::setw(14) << total.out << "\n";
  EXPECT_EQ(unexpected, 0) << "tests fail that expected_failures.txt does not list";
  EXPECT_EQ(fixed, 0) << "tests pass that expected_failures.txt lists as known failures";
  for (const auto* list : {&Failures().known, &Failures().out_of_scope}) {
    for (const auto& [id, reason] : *list) EXPECT_TRUE(ids.count(id)) << "expected_failures.txt names no test: " << id;
  }
}

}  // namespace
}  // namespace webindex::sparql::w3c
