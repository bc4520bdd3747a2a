// The SPARQL parser against the W3C SPARQL 1.1 and 1.0 syntax tests
// (tests/data/sparql/manifest.txt): positive cases parse and translate into the algebra,
// negative ones are refused with a position; a case listed as a known failure must still
// fail, so the list stays true.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "pipeline_harness.h"
#include "seeds.h"
#include "sparql/algebra.h"
#include "sparql/parser.h"

namespace webindex::sparql {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string file;
  bool positive = true;
  bool known_failure = false;
};

std::vector<Case> Manifest() {
  std::vector<Case> cases;
  for (const auto& line : testing::ReadLines(testing::TestData("sparql") + "/manifest.txt")) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    Case c;
    std::string outcome, mark;
    in >> c.file >> outcome >> mark;
    EXPECT_TRUE(outcome == "positive" || outcome == "negative") << line;
    c.positive = outcome == "positive";
    c.known_failure = mark == "known-failure";
    cases.push_back(c);
  }
  return cases;
}

TEST(SparqlSyntaxTest, W3cSyntaxCases) {
  const auto cases = Manifest();
  ASSERT_EQ(cases.size(), 293u);
  std::map<std::string, std::pair<int, int>> per_folder;  // passed, run
  for (const Case& c : cases) {
    const std::string text = ReadFile(testing::TestData("sparql") + "/syntax/" + c.file);
    ParseOptions options;
    options.base = "http://example.org/base/" + c.file;
    const Result<Query> q = ParseQuery(text, options);
    const bool passed = q.ok() == c.positive;
    const std::string folder = c.file.substr(0, c.file.rfind('/'));
    per_folder[folder].second++;
    if (passed) per_folder[folder].first++;
    if (c.known_failure) {
      EXPECT_FALSE(passed) << c.file << " is listed as a known failure but passes now";
      continue;
    }
    if (c.positive) {
      EXPECT_TRUE(q.ok()) << c.file << ": " << q.status().message() << "\n" << text;
      if (q.ok()) EXPECT_FALSE(ToSExpr(TranslateQuery(*q)).empty()) << c.file;
    } else {
      EXPECT_FALSE(q.ok()) << c.file << " was accepted\n" << text;
      if (!q.ok()) EXPECT_TRUE(q.status().message().starts_with("line ")) << c.file << ": " << q.status().message();
    }
  }
  for (const auto& [folder, counts] : per_folder) {
    std::cout << folder << ": " << counts.first << " / " << counts.second << "\n";
  }
}

// Broken queries made from the W3C ones (spans cut, repeated, bytes of the grammar's punctuation
// put in) never crash the parser (run it under ASan), and every refusal carries a position.
TEST(SparqlSyntaxTest, MutatedQueriesAreRefusedWithAPosition) {
  std::vector<std::string> texts;
  for (const Case& c : Manifest()) texts.push_back(ReadFile(testing::TestData("sparql") + "/syntax/" + c.file));
  static constexpr std::string_view kBytes =
      "{}()[];,.?$<>\"'\\:_@^|!*+-/=# \n\x80\xc3\xff"
      "0aeE";
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2})) {
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 5000; ++i) {
      std::string q = texts[rng() % texts.size()];
      for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0 && !q.empty(); --edits) {
        const size_t at = rng() % q.size();
        const size_t len = std::min<size_t>(1 + rng() % 8, q.size() - at);
        switch (rng() % 3) {
          case 0:
            q.erase(at, len);
            break;
          case 1:
            q.insert(at, q.substr(at, len));
            break;
          default:
            q.insert(at, 1, kBytes[rng() % kBytes.size()]);
            break;
        }
      }
      const Result<Query> r = ParseQuery(q);
      if (!r.ok()) {
        ASSERT_TRUE(r.status().message().starts_with("line "))
            << "seed " << seed << ": " << r.status().message() << "\n"
            << q;
      }
    }
  }
}

}  // namespace
}  // namespace webindex::sparql
