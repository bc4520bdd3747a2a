// Randomized: BGPs over a random graph against a reference that joins full scans of each
// pattern, and OPTIONAL / FILTER queries under scrambled estimates (other join orders) against
// the planned order. Prints the seed and query on a mismatch.
#include <array>
#include <iostream>
#include <map>
#include <random>

#include "seeds.h"
#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

//! Estimates at random: the planner picks arbitrary orders, which must not change the answer.
class ScrambledDataset : public ForwardingDataset {
 public:
  ScrambledDataset(Dataset& inner, uint64_t seed) : ForwardingDataset(inner), rng_(seed) {}
  uint64_t Estimate(const graph::Pattern&) override { return rng_() % 1000; }
  uint64_t EstimateTemporal(const graph::TemporalQuery&, uint64_t) override { return rng_() % 1000; }
  uint64_t EstimateText(const graph::TextSearch&, uint64_t) override { return rng_() % 1000; }

 private:
  std::mt19937_64 rng_;
};

using Row = std::map<std::string, std::string>;

std::string Node(std::mt19937_64& rng, int nodes) { return ":n" + std::to_string(rng() % nodes); }

//! The reference: every pattern matched against all statements, joined left to right.
Lines Reference(const std::vector<graph::Statement>& all, const std::vector<std::array<std::string, 3>>& patterns,
                const std::vector<std::string>& vars) {
  std::vector<Row> rows{Row{}};
  for (const auto& pat : patterns) {
    std::vector<Row> next;
    for (const Row& r : rows) {
      for (const graph::Statement& st : all) {
        Row n = r;
        bool ok = true;
        const graph::Term* values[3] = {&st.subject, &st.predicate, &st.object};
        for (int k = 0; k < 3 && ok; ++k) {
          std::string v = ":" + values[k]->value().substr(9);
          if (pat[k][0] == '?') {
            auto [it, added] = n.emplace(pat[k], v);
            ok = added || it->second == v;
          } else {
            ok = pat[k] == v;
          }
        }
        if (ok) next.push_back(std::move(n));
      }
    }
    rows = std::move(next);
  }
  Lines out;
  for (const Row& r : rows) {
    std::string line;
    for (size_t i = 0; i < vars.size(); ++i) line += (i ? " " : "") + (r.count(vars[i]) ? r.at(vars[i]) : "-");
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SparqlRandomTest, PlansAgreeWithTheReference) {
  for (uint64_t seed : testing::RandomTestSeeds({1, 2, 3, 4})) {
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    MemoryDataset ds;
    const int nodes = 12;
    std::vector<graph::Statement> all;
    for (int i = 0; i < 60; ++i) {
      graph::Statement st{graph::Term::Iri("http://e/n" + std::to_string(rng() % nodes)),
                          graph::Term::Iri("http://e/p" + std::to_string(rng() % 3)),
                          graph::Term::Iri("http://e/n" + std::to_string(rng() % nodes)), std::nullopt};
      if (std::find(all.begin(), all.end(), st) == all.end()) all.push_back(st);
      ds.Add(st);
    }
    const std::vector<std::string> vars = {"?a", "?b", "?c", "?d"};
    for (int q = 0; q < 40; ++q) {
      std::vector<std::array<std::string, 3>> patterns;
      int n = 2 + static_cast<int>(rng() % 3);
      std::string text = "SELECT ?a ?b ?c ?d {";
      for (int i = 0; i < n; ++i) {
        std::array<std::string, 3> p = {rng() % 4 ? vars[rng() % 4] : Node(rng, nodes),
                                        rng() % 4 ? ":p" + std::to_string(rng() % 3) : "?d",
                                        rng() % 3 ? vars[rng() % 3] : Node(rng, nodes)};
        patterns.push_back(p);
        text += " " + p[0] + " " + p[1] + " " + p[2] + " .";
      }
      Lines expected = Reference(all, patterns, vars);
      EXPECT_EQ(Rows(ds, text + " }"), expected) << "seed " << seed << ": " << text;
      ScrambledDataset scrambled(ds, seed + q);
      EXPECT_EQ(Rows(scrambled, text + " }"), expected) << "seed " << seed << ": " << text;
      std::string extra = " OPTIONAL { ?a :p" + std::to_string(rng() % 3) + " ?c } FILTER(?a != " + Node(rng, nodes) +
                          ") OPTIONAL { ?c :p0 ?e FILTER(?e != ?b) } }";
      EXPECT_EQ(Rows(scrambled, text + extra), Rows(ds, text + extra)) << "seed " << seed << ": " << text + extra;
    }
  }
}

}  // namespace
}  // namespace webindex::sparql
