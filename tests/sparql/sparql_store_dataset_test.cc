// The graph store as a SPARQL dataset, on a real RocksDB store: scans match the graph reader,
// estimates are exact for few matches and within a small factor for many (in memtables and in
// files), the named graphs are listed once each, in order.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/graph_update.h"
#include "graph/index_set.h"
#include "sparql/store_dataset.h"
#include "pipeline_harness.h"

namespace webindex::sparql {
namespace {

using graph::Pattern;
using graph::Statement;
using graph::Term;

Term Iri(const std::string& s) { return Term::Iri("http://a.example/" + s); }

Pattern P(std::optional<Term> s, std::optional<Term> p, std::optional<Term> o,
          graph::GraphSelector g = graph::GraphSelector::Default()) {
  Pattern pattern;
  pattern.subject = std::move(s);
  pattern.predicate = std::move(p);
  pattern.object = std::move(o);
  pattern.graph = std::move(g);
  return pattern;
}

state::StoreOptions Options() {
  state::StoreOptions options;
  options.sync_commits = false;
  return options;
}

class StoreDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-sparql-store");
    auto store = state::Store::Open(dir_, Options());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Add(const std::vector<Statement>& statements, const graph::IndexSet& indexes = {}) {
    graph::GraphUpdate update({}, indexes);
    for (const auto& st : statements) ASSERT_TRUE(update.Add(st).ok());
    state::WriteBatch batch(*store_);
    ASSERT_TRUE(update.Apply(*store_, batch).ok());
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  //! `many` statements s<i> <many> "i", 7 s<i> <few> o<i>, in the default graph, and one
  //! statement in each of three named graphs.
  void Fill(int many) {
    std::vector<Statement> sts;
    for (int i = 0; i < many; ++i) {
      sts.push_back({Iri("s" + std::to_string(i)), Iri("many"), Term::Literal(std::to_string(i)), std::nullopt});
    }
    for (int i = 0; i < 7; ++i) {
      sts.push_back({Iri("s" + std::to_string(i)), Iri("few"), Iri("o" + std::to_string(i)), std::nullopt});
    }
    for (const char* g : {"g2", "g1", "g3"}) sts.push_back({Iri("x"), Iri("few"), Iri("y"), Iri(g)});
    Add(sts);
  }
  uint64_t Count(Dataset& dataset, const Pattern& pattern) {
    uint64_t n = 0;
    EXPECT_TRUE(dataset.Scan(pattern, [&](const Statement&) { return ++n, true; }).ok());
    return n;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

TEST_F(StoreDatasetTest, EstimatesAreExactForFewMatchesAndCloseForMany) {
  constexpr int kMany = 20000;
  Fill(kMany);
  for (bool flushed : {false, true}) {
    SCOPED_TRACE(flushed ? "in files" : "in memtables");
    if (flushed) {
      ASSERT_TRUE(store_->Flush().ok());
    }
    auto snap = store_->GetSnapshot();
    StoreDataset dataset(*store_, snap.get());
    Pattern few = P({}, Iri("few"), {});
    EXPECT_EQ(dataset.Estimate(few), 7u);
    EXPECT_EQ(Count(dataset, few), 7u);
    Pattern one = P(Iri("s3"), Iri("many"), {});
    EXPECT_EQ(dataset.Estimate(one), 1u);
    Pattern none = P(Iri("nobody"), {}, {});
    EXPECT_EQ(dataset.Estimate(none), 0u);
    Pattern many = P({}, Iri("many"), {});
    ASSERT_EQ(Count(dataset, many), static_cast<uint64_t>(kMany));
    const uint64_t estimate = dataset.Estimate(many);
    // Files are sized from the sample's share of their bytes; memtables count their entries by
    // sampling their skip lists, which is rougher (0 to 4x seen), and a count checks a small one.
    EXPECT_GE(estimate, flushed ? kMany / 3 : StoreDataset::kCountedUpTo)
        << "an estimate far below the count makes plans scan it first";
    EXPECT_LE(estimate, flushed ? kMany * 3 : kMany * 8);
    // Every graph: the default graph's 7 and one in each named graph.
    Pattern everywhere = P({}, Iri("few"), {}, graph::GraphSelector::All());
    EXPECT_EQ(dataset.Estimate(everywhere), 10u);
    EXPECT_EQ(Count(dataset, everywhere), 10u);
    Pattern named = P({}, Iri("few"), {}, graph::GraphSelector::Named(Iri("g2")));
    EXPECT_EQ(dataset.Estimate(named), 1u);
  }
}

TEST_F(StoreDatasetTest, NamedGraphsAreListedOnceInOrder) {
  Fill(2000);  // many rows in the default graph, skipped over
  Add({{Iri("z"), Iri("few"), Iri("w"), Iri("g1")}, {Iri("z"), Iri("other"), Iri("w"), Term::Blank("b1")}});
  auto snap = store_->GetSnapshot();
  StoreDataset dataset(*store_, snap.get());
  std::vector<Term> graphs;
  ASSERT_TRUE(dataset.NamedGraphs([&](const Term& g) { return graphs.push_back(g), true; }).ok());
  EXPECT_EQ(graphs, (std::vector<Term>{Iri("g1"), Iri("g2"), Iri("g3"), Term::Blank("b1")}));
  graphs.clear();
  ASSERT_TRUE(dataset.NamedGraphs([&](const Term& g) { return graphs.push_back(g), false; }).ok());
  EXPECT_EQ(graphs.size(), 1u);
}

TEST_F(StoreDatasetTest, ReadsItsSnapshot) {
  Fill(10);
  auto snap = store_->GetSnapshot();
  Add({{Iri("late"), Iri("few"), Iri("o"), std::nullopt}});
  StoreDataset then(*store_, snap.get());
  StoreDataset now(*store_, nullptr);
  Pattern few = P({}, Iri("few"), {});
  EXPECT_EQ(Count(then, few), 7u);
  EXPECT_EQ(then.Estimate(few), 7u);
  EXPECT_EQ(Count(now, few), 8u);
}

TEST_F(StoreDatasetTest, RyasIndexesAreScannedWhenKeptAndRefusedWhenNot) {
  graph::IndexSet both;
  both.temporal = both.freetext = true;
  const Term dt = Term::Iri("http://www.w3.org/2001/XMLSchema#dateTime");
  Add({{Iri("a"), Iri("at"), Term::Literal("2001-01-01T01:01:03-08:00", dt.value()), std::nullopt},
       {Iri("b"), Iri("at"), Term::Literal("1999-01-01T00:00:00Z", dt.value()), std::nullopt},
       {Iri("c"), Iri("label"), Term::Literal("kafka streams and tables"), std::nullopt},
       {Iri("d"), Iri("label"), Term::Literal("graph store"), std::nullopt}},
      both);
  auto snap = store_->GetSnapshot();
  StoreDataset dataset(*store_, snap.get());
  std::vector<Term> subjects;
  auto collect = [&](const Statement& st) { return subjects.push_back(st.subject), true; };
  // Without the indexes recorded in the store's generation: refused, naming the replay.
  graph::TemporalQuery after;
  after.op = graph::TemporalQuery::Op::kAfter;
  after.t1 = 946684800;  // 2000-01-01T00:00:00Z
  const Status no_index = dataset.ScanTemporal(after, collect);
  EXPECT_EQ(no_index.code(), Status::Code::kAborted);
  EXPECT_NE(no_index.message().find("replay --indexes +temporal"), std::string::npos) << no_index.ToString();
  auto search = graph::ParseTextSearch("kafka", "", "");
  ASSERT_TRUE(search.ok());
  EXPECT_EQ(dataset.ScanText(*search, collect).code(), Status::Code::kAborted);

  state::WriteBatch batch(*store_);
  graph::RecordIndexes(both, &batch);
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_TRUE(dataset.ScanTemporal(after, collect).ok());
  EXPECT_EQ(subjects, std::vector<Term>{Iri("a")});
  subjects.clear();
  ASSERT_TRUE(dataset.ScanText(*search, collect).ok());
  EXPECT_EQ(subjects, std::vector<Term>{Iri("c")});
}


TEST_F(StoreDatasetTest, IndexEstimatesCountNoFurtherThanAsked) {
  graph::IndexSet both;
  both.temporal = both.freetext = true;
  std::vector<Statement> sts;
  for (int i = 0; i < 5000; ++i) {
    const std::string day = i < 3 ? "2020-01-02" : "2010-01-02";
    sts.push_back({Iri("s" + std::to_string(i)), Iri("at"),
                   Term::Literal(day + "T00:00:00Z", "http://www.w3.org/2001/XMLSchema#dateTime"), std::nullopt});
  }
  Add(sts, both);
  state::WriteBatch batch(*store_);
  graph::RecordIndexes(both, &batch);
  ASSERT_TRUE(store_->Write(batch).ok());
  auto snap = store_->GetSnapshot();
  StoreDataset dataset(*store_, snap.get());
  graph::TemporalQuery all;
  all.op = graph::TemporalQuery::Op::kAfter;
  all.t1 = 0;
  graph::TemporalQuery recent = all;
  recent.t1 = 1546300800;  // 2019-01-01
  EXPECT_EQ(dataset.EstimateTemporal(all, 10), 10u);  // "10 or more": counting stopped there
  EXPECT_EQ(dataset.EstimateTemporal(all, 2000), 2000u);
  EXPECT_EQ(dataset.EstimateTemporal(all, UINT64_MAX), StoreDataset::kManyIndexMatches);
  EXPECT_EQ(dataset.EstimateTemporal(recent, 2), 2u);
  EXPECT_EQ(dataset.EstimateTemporal(recent, 100), 3u);  // exact once all are counted
  EXPECT_EQ(dataset.EstimateTemporal(recent, 2), 3u);
}

}  // namespace
}  // namespace webindex::sparql
