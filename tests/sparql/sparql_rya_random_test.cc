// Randomized: Rya's FILTER functions answered by index reads agree with the same FILTERs
// evaluated on every row. Random date-times (zones, fractions, a few malformed), literals of a
// small vocabulary (plain, language-tagged, other datatypes), named graphs; random tempo: and
// fts: filters in BGPs of one to three patterns, under GRAPH and FROM too. Five ways answer:
// statements in memory without indexes (every FILTER per row: the reference), in memory with
// indexes and random estimates (index reads in every position of the plan), and RocksDB stores
// keeping both indexes (temporal for two of the three predicates), with random estimates too:
// one with free-text postings by predicate, one without them (a generation set up before they
// existed). The stores had a third of their statements added and removed again. Prints the
// seed and query on a mismatch.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>

#include "graph/graph_update.h"
#include "graph/index_set.h"
#include "pipeline_harness.h"
#include "seeds.h"
#include "sparql/store_dataset.h"
#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

//! A dataset that keeps no index: every Rya FILTER runs on each row's value.
class NoIndexDataset : public ForwardingDataset {
 public:
  using ForwardingDataset::ForwardingDataset;
  Status ScanTemporal(const graph::TemporalQuery&, const Visitor&) override {
    return Status::Internal("a plan read the temporal index of a dataset without one");
  }
  Status ScanText(const graph::TextSearch&, const Visitor&) override {
    return Status::Internal("a plan read the free-text index of a dataset without one");
  }
  graph::IndexSet Indexes() override { return {}; }
  uint64_t EstimateTemporal(const graph::TemporalQuery&, uint64_t) override { return UINT64_MAX; }
  uint64_t EstimateText(const graph::TextSearch&, uint64_t) override { return UINT64_MAX; }
};

//! Estimates at random, the index reads' included: plans read the indexes at any step.
class RandomEstimates : public ForwardingDataset {
 public:
  RandomEstimates(Dataset& inner, uint64_t seed) : ForwardingDataset(inner), rng_(seed) {}
  uint64_t Estimate(const graph::Pattern&) override { return rng_() % 100; }
  Status ScanTemporal(const graph::TemporalQuery& q, const Visitor& fn) override {
    ++index_reads;
    return inner_.ScanTemporal(q, fn);
  }
  Status ScanText(const graph::TextSearch& s, const Visitor& fn) override {
    ++index_reads;
    return inner_.ScanText(s, fn);
  }
  uint64_t EstimateTemporal(const graph::TemporalQuery&, uint64_t) override { return rng_() % 100; }
  uint64_t EstimateText(const graph::TextSearch&, uint64_t) override { return rng_() % 100; }
  int index_reads = 0;

 private:
  std::mt19937_64 rng_;
};

const char* const kWords[] = {"kafka", "stream", "streams", "table", "graph", "the", "café", "Ünïcode", "x1"};

std::string Pick(std::mt19937_64& rng, const std::vector<std::string>& from) { return from[rng() % from.size()]; }

std::string RandomInstant(std::mt19937_64& rng) {
  const int year = 1998 + static_cast<int>(rng() % 6);
  std::string t = std::to_string(year) + "-0" + std::to_string(1 + rng() % 9) + "-1" + std::to_string(rng() % 9) +
                  "T0" + std::to_string(rng() % 10) + ":00:0" + std::to_string(rng() % 3);
  if (rng() % 3 == 0) t += "." + std::to_string(rng() % 1000);
  const int zone = static_cast<int>(rng() % 4);
  return t + (zone == 0 ? "Z" : zone == 1 ? "+05:30" : zone == 2 ? "-08:00" : "");
}

graph::Term RandomObject(std::mt19937_64& rng, int nodes) {
  switch (rng() % 6) {
    case 0:
      return graph::Term::Iri("http://e/n" + std::to_string(rng() % nodes));
    case 1:
    case 2:
      return graph::Term::Literal(rng() % 20 ? RandomInstant(rng) : "2001-13-01T00:00:00Z",
                                  std::string(graph::kXsdDateTime));
    case 3: {
      std::string text;
      for (int w = 1 + static_cast<int>(rng() % 3); w > 0; --w) text += std::string(kWords[rng() % 9]) + " ";
      return rng() % 3 ? graph::Term::Literal(text) : graph::Term::LangLiteral(text, "en");
    }
    case 4:
      return graph::Term::Literal(std::string(kWords[rng() % 9]), "http://e/word");  // not indexed
    default:
      return graph::Term::Literal(RandomInstant(rng));  // a plain string that looks like a date
  }
}

std::string RandomFilter(std::mt19937_64& rng, const std::string& var) {
  const std::string a = RandomInstant(rng), b = RandomInstant(rng);
  const std::string interval = "\"[" + std::min(a, b) + "," + std::max(a, b) + "]\"";
  switch (rng() % 7) {
    case 0:
      return "tempo:after(" + var + ", \"" + a + "\")";
    case 1:
      return "tempo:before(" + var + ", " + (rng() % 2 ? "\"" + a + "\"" : interval) + ")";
    case 2:
      return "tempo:within(" + var + ", " + interval + ")";
    case 3:
      return "tempo:equals(" + var + ", \"" + a + "\")";
    case 4:
      return "fts:text(" + var + ", \"" + kWords[rng() % 9] + "\")";
    case 5:
      return "fts:text(" + var + ", \"" +
             Pick(rng, {"stream*", "ka*", "kafka OR table", "graph AND NOT table", "*eams", "*afka x1"}) + "\")";
    default:
      return "tempo:after(" + var + ", \"" + a + "\") && " + var + " != \"x\"";
  }
}

TEST(SparqlRyaRandomTest, IndexReadsAgreeWithFiltersOnEveryRow) {
  for (uint64_t seed : testing::RandomTestSeeds({11, 12, 13})) {
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    const int nodes = 10;
    MemoryDataset memory;
    graph::IndexSet indexes{.temporal = true, .temporal_predicates = {"http://e/p0", "http://e/p1"}, .freetext = true};
    memory.SetIndexes(indexes);
    std::vector<graph::Statement> all, gone;
    for (int i = 0; i < 150; ++i) {
      std::optional<graph::Term> g;
      if (rng() % 4 == 0) g = graph::Term::Iri("http://e/g" + std::to_string(rng() % 2));
      graph::Statement st{graph::Term::Iri("http://e/n" + std::to_string(rng() % nodes)),
                          graph::Term::Iri("http://e/p" + std::to_string(rng() % 3)), RandomObject(rng, nodes), g};
      (rng() % 3 ? all : gone).push_back(std::move(st));
    }
    for (const auto& st : all) {
      if (std::find(gone.begin(), gone.end(), st) == gone.end()) memory.Add(st);
    }
    // Two stores: postings by predicate, and a generation set up before them (none written or
    // recorded). Each adds every statement, then removes `gone`.
    std::vector<std::string> dirs;
    std::vector<std::unique_ptr<state::Store>> stores;
    for (const bool by_predicate : {true, false}) {
      dirs.push_back(testing::MakeTempDir("webindex-sparql-rya-random"));
      state::StoreOptions options;
      options.sync_commits = false;
      auto store = state::Store::Open(dirs.back(), options);
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      graph::IndexSet kept = indexes;
      kept.freetext_by_predicate = by_predicate;
      auto apply = [&](bool add, const std::vector<const std::vector<graph::Statement>*>& lists) {
        graph::GraphUpdate update({}, kept);
        for (const auto* list : lists) {
          for (const auto& st : *list) ASSERT_TRUE((add ? update.Add(st) : update.Remove(st)).ok());
        }
        state::WriteBatch batch(**store);
        ASSERT_TRUE(update.Apply(**store, batch).ok());
        if (add && by_predicate) {
          graph::RecordIndexes(kept, &batch);
        } else if (add) {  // what versions before the postings by predicate recorded
          batch.Put(state::Family::kMeta, graph::kTemporalKey, "1");
          batch.Put(state::Family::kMeta, graph::kFreeTextKey, "1");
          batch.Put(state::Family::kMeta, graph::kTemporalPredicatesKey, "http://e/p0\nhttp://e/p1");
        }
        ASSERT_TRUE((*store)->Write(batch).ok());
      };
      apply(true, {&all, &gone});
      apply(false, {&gone});
      stores.push_back(std::move(store).value());
    }
    {
      auto snapshot = stores[0]->GetSnapshot();
      auto old_snapshot = stores[1]->GetSnapshot();
      StoreDataset stored(*stores[0], snapshot.get());
      StoreDataset old_stored(*stores[1], old_snapshot.get());
      ASSERT_TRUE(stored.Indexes().freetext_by_predicate);
      ASSERT_FALSE(old_stored.Indexes().freetext_by_predicate);
      NoIndexDataset reference(memory);
      int index_reads = 0;
      for (int q = 0; q < 120; ++q) {
        const std::vector<std::string> vars = {"?s", "?o", "?x"};
        std::string where;
        for (int n = 1 + static_cast<int>(rng() % 3), i = 0; i < n; ++i) {
          const std::string s = rng() % 4 ? Pick(rng, vars) : ":n" + std::to_string(rng() % nodes);
          const std::string p = rng() % 4 ? ":p" + std::to_string(rng() % 3) : "?p";
          where += s + " " + p + " " + (i == 0 ? "?o" : rng() % 2 ? "?x" : Pick(rng, vars)) + " . ";
        }
        where += "FILTER(" + RandomFilter(rng, rng() % 3 ? "?o" : "?x") + ")";
        if (rng() % 4 == 0) where += " FILTER(" + RandomFilter(rng, "?o") + ")";
        std::string text = "PREFIX tempo: <tag:rya-rdf.org,2015:temporal#> PREFIX fts: <http://rdf.useekm.com/fts#> ";
        switch (rng() % 4) {
          case 0:
            text += "SELECT * FROM :g0 FROM :g1 { " + where + " }";
            break;
          case 1:
            text += "SELECT * { GRAPH ?g { " + where + " } }";
            break;
          default:
            text += "SELECT * { " + where + " }";
        }
        const Lines expected = Rows(reference, text);
        EXPECT_EQ(Rows(memory, text), expected) << "seed " << seed << ": " << text;
        RandomEstimates shuffled(memory, seed * 1000 + q);
        EXPECT_EQ(Rows(shuffled, text), expected) << "seed " << seed << " (random estimates): " << text;
        index_reads += shuffled.index_reads;
        EXPECT_EQ(Rows(stored, text), expected) << "seed " << seed << " (store): " << text;
        for (StoreDataset* store : {&stored, &old_stored}) {
          RandomEstimates shuffled_store(*store, seed * 1000 + q);
          EXPECT_EQ(Rows(shuffled_store, text), expected)
              << "seed " << seed << " (store" << (store == &old_stored ? " without postings by predicate" : "")
              << ", random estimates): " << text;
          index_reads += shuffled_store.index_reads;
        }
      }
      EXPECT_GT(index_reads, 10) << "seed " << seed << ": the plans hardly read the indexes";
    }
    stores.clear();
    for (const auto& dir : dirs) std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace webindex::sparql
