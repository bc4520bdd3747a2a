// The graph store on a real RocksDB store: set semantics of adds and removes, the four rows,
// the eight patterns over the default graph, named graphs and all graphs, cursors.
// Randomized against an in-memory std::set: WEBINDEX_SEEDS="1,2,3" picks seeds,
// WEBINDEX_RANDOM_RUNS=N adds N fresh ones; every seed is printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "graph/graph_query.h"
#include "graph/graph_stage.h"
#include "graph/graph_update.h"
#include "graph/ntriples.h"
#include "pipeline_harness.h"
#include "query/table_reader.h"
#include "seeds.h"
#include "sink/table.h"

namespace webindex::graph {
namespace {

Term Iri(std::string s) { return Term::Iri("http://a.example/" + s); }

class GraphStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-graph");
    auto store = state::Store::Open(dir_, state::StoreOptions{.sync_commits = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  //! Applies one batch: `ops` are (add?, statement), in order.
  ApplyResult Apply(const std::vector<std::pair<bool, Statement>>& ops) {
    GraphUpdate update;
    for (const auto& [add, st] : ops) EXPECT_TRUE((add ? update.Add(st) : update.Remove(st)).ok());
    state::WriteBatch batch(*store_);
    auto result = update.Apply(*store_, batch);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_TRUE(store_->Write(batch).ok());
    EXPECT_EQ(update.size(), 0u);
    return result.ok() ? std::move(result).value() : ApplyResult{};
  }

  std::vector<Statement> All(const Pattern& pattern) {
    auto snap = store_->GetSnapshot();
    auto page = GraphReader(*store_, snap.get()).Query(pattern, 1u << 30);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_FALSE(page->next.has_value());
    return page->statements;
  }

  //! The graph's rows but its word lists (kTextReversedRows), which keep words once listed.
  size_t KeysInGraphSpace() {
    size_t n = 0;
    const KeySpace space;
    auto it = store_->NewIterator(space.family);
    for (it->Seek(space.prefix); it->Valid() && it->key().starts_with(space.prefix); it->Next()) {
      n += it->key()[space.prefix.size()] != kTextReversedRows;
    }
    return n;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

TEST_F(GraphStoreTest, SetSemanticsAndFourRowsPerStatement) {
  const Statement st{Iri("s"), Iri("p"), Term::Literal("o"), std::nullopt};
  auto r = Apply({{true, st}});
  ASSERT_EQ(r.added.size(), 1u);
  EXPECT_EQ(r.added[0], st);
  EXPECT_EQ(KeysInGraphSpace(), 4u);

  // Adding it again, even spelled "o"^^xsd:string, changes nothing and writes nothing.
  GraphUpdate again;
  ASSERT_TRUE(again.Add({Iri("s"), Iri("p"), Term::Literal("o", std::string(kXsdString)), std::nullopt}).ok());
  ASSERT_TRUE(again.Remove({Iri("s"), Iri("p"), Term::Literal("absent"), std::nullopt}).ok());
  state::WriteBatch batch(*store_);
  auto unchanged = again.Apply(*store_, batch);
  ASSERT_TRUE(unchanged.ok());
  EXPECT_TRUE(unchanged->added.empty());
  EXPECT_TRUE(unchanged->removed.empty());
  EXPECT_EQ(unchanged->unchanged, 2u);
  EXPECT_EQ(batch.Count(), 0u);

  r = Apply({{false, st}});
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(KeysInGraphSpace(), 0u);
}

TEST_F(GraphStoreTest, TheLastOpOfABatchWins) {
  const Statement a{Iri("a"), Iri("p"), Iri("o"), std::nullopt};
  const Statement b{Iri("b"), Iri("p"), Iri("o"), Iri("g")};
  auto r = Apply({{true, a}, {false, a}, {true, a}, {false, b}, {true, b}, {false, b}});
  EXPECT_EQ(r.added, std::vector<Statement>{a});
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(r.unchanged, 1u);
  r = Apply({{false, a}, {true, a}, {false, a}, {true, b}});
  EXPECT_EQ(r.removed, std::vector<Statement>{a});
  EXPECT_EQ(r.added, std::vector<Statement>{b});
  EXPECT_EQ(All({.graph = GraphSelector::All()}), std::vector<Statement>{b});
}

// The graph stage processes a batch while the runner still writes the last one
// (Stage::OverlapsCommits): the second batch reads what the first will have written, in both of
// the stage's ways of working (one thread for a small batch, two lanes for a large one), with
// the derived rows following. Written only after both are processed, the two commits leave the
// store equal to the statements applied, counted once each.
TEST_F(GraphStoreTest, ABatchProcessedBeforeTheLastIsWrittenReadsIt) {
  for (const int n : {3, 700}) {  // statements per batch; 700 of distinct subjects work in two lanes
    SCOPED_TRACE(n);
    auto line = [](std::string s, int i, bool literal) {
      return "<http://a.example/" + s + std::to_string(i) + "> <http://a.example/p> " +
             (literal ? "\"word" + std::to_string(i) + " text\"@en" : "<http://a.example/o>") + " .\n";
    };
    std::string first, second, readd;
    for (int i = 0; i < n; ++i) {
      first += line("x", i, i % 2 == 0) + line("y", i, false);  // x added then removed, y added twice
      second += line("x", i, i % 2 == 0);
      readd += line("y", i, false) + line("z", i, i % 2 == 1);
    }
    pipeline::TopicLayout layout;
    pipeline::Metrics metrics;
    GraphStage stage(layout, -1, IndexSet{.temporal = true, .freetext = true});
    auto record = [&](const std::string& text, const char* op, int64_t offset) {
      InRecord r{"triples", 0, offset, -1, "k", text};
      r.headers.emplace_back("op", op);
      return std::vector<InRecord>{r};
    };
    state::WriteBatch b1(*store_), b2(*store_);
    pipeline::BatchContext c1(*store_, b1, "graph", metrics), c2(*store_, b2, "graph", metrics);
    ASSERT_TRUE(stage.Process(record(first, "add", 0), c1).ok());
    ASSERT_TRUE(stage.Process(record(second, "remove", 1), c2).ok());  // the first is not written yet
    ASSERT_TRUE(store_->Write(b1).ok());
    ASSERT_TRUE(store_->Write(b2).ok());
    state::WriteBatch b3(*store_);
    pipeline::BatchContext c3(*store_, b3, "graph", metrics);
    ASSERT_TRUE(stage.Process(record(readd, "add", 2), c3).ok());
    ASSERT_TRUE(store_->Write(b3).ok());

    EXPECT_EQ(metrics.statements_added.load(), 3u * n);  // x, y and z once each
    EXPECT_EQ(metrics.statements_removed.load(), static_cast<uint64_t>(n));
    const auto all = All({.graph = GraphSelector::All()});
    ASSERT_EQ(all.size(), 2u * n);
    for (const auto& st : all) EXPECT_NE(st.subject.value().find("/x"), 0u) << st.subject.value();
    // Removing what is left leaves no row behind: the removed statements' derived rows went too.
    GraphUpdate rest({}, IndexSet{.temporal = true, .freetext = true});
    for (const auto& st : all) ASSERT_TRUE(rest.Remove(st).ok());
    state::WriteBatch b4(*store_);
    ASSERT_TRUE(rest.Apply(*store_, b4).ok());
    ASSERT_TRUE(store_->Write(b4).ok());
    EXPECT_EQ(KeysInGraphSpace(), 0u);
  }
}

TEST_F(GraphStoreTest, InvalidStatementsAreRefused) {
  GraphUpdate update;
  EXPECT_FALSE(update.Add({Term::Literal("s"), Iri("p"), Iri("o"), std::nullopt}).ok());
  EXPECT_FALSE(update.Remove({Iri("s"), Iri("p"), Iri("o"), Term::Literal("g")}).ok());
  EXPECT_EQ(update.size(), 0u);
}

TEST_F(GraphStoreTest, DefaultAndNamedGraphsAreDistinct) {
  const Statement in_default{Iri("s"), Iri("p"), Iri("o"), std::nullopt};
  Statement in_g = in_default, in_blank = in_default;
  in_g.graph = Iri("g");
  in_blank.graph = Term::Blank("g");
  Apply({{true, in_blank}, {true, in_g}, {true, in_default}});
  EXPECT_EQ(All({.subject = Iri("s")}), std::vector<Statement>{in_default});
  EXPECT_EQ(All({.object = Iri("o"), .graph = GraphSelector::Named(Iri("g"))}), std::vector<Statement>{in_g});
  EXPECT_EQ(All({.predicate = Iri("p"), .graph = GraphSelector::Named(Term::Blank("g"))}),
            std::vector<Statement>{in_blank});
  EXPECT_EQ(All({.graph = GraphSelector::Named(Iri("none"))}), std::vector<Statement>{});
  // All graphs: the default graph first, then named graphs in term order (IRIs before blanks).
  EXPECT_EQ(All({.subject = Iri("s"), .object = Iri("o"), .graph = GraphSelector::All()}),
            (std::vector<Statement>{in_default, in_g, in_blank}));
}

TEST_F(GraphStoreTest, CursorsBelongToTheirPattern) {
  std::vector<std::pair<bool, Statement>> ops;
  for (int i = 0; i < 5; ++i)
    ops.push_back({true, {Iri("s"), Iri("p"), Term::Literal(std::to_string(i)), std::nullopt}});
  Apply(ops);
  GraphReader reader(*store_, nullptr);
  const Pattern sp{.subject = Iri("s"), .predicate = Iri("p")};
  auto first = reader.Query(sp, 2);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->statements.size(), 2u);
  ASSERT_TRUE(first->next.has_value());
  EXPECT_EQ(first->next->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  auto second = reader.Query(sp, 2, *first->next);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->statements[0].object, Term::Literal("2"));
  // Same index, other subject; other index; other graph; garbage.
  EXPECT_EQ(reader.Query({.subject = Iri("t")}, 2, *first->next).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(reader.Query({.predicate = Iri("p")}, 2, *first->next).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(
      reader.Query({.subject = Iri("s"), .graph = GraphSelector::Named(Iri("g"))}, 2, *first->next).status().code(),
      Status::Code::kInvalidArgument);
  EXPECT_TRUE(reader.Query({.subject = Iri("s"), .graph = GraphSelector::All()}, 2, *first->next).ok());
  EXPECT_FALSE(reader.Query(sp, 2, "!!").ok());
  EXPECT_FALSE(reader.Query(sp, 2, "AAAA").ok());
  EXPECT_FALSE(reader.Query(sp, 0).ok());
  // The last page has no cursor: 5 = 2 + 2 + 1.
  auto third = reader.Query(sp, 2, *second->next);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->statements.size(), 1u);
  EXPECT_FALSE(third->next.has_value());
}

TEST_F(GraphStoreTest, GraphRowsStayOutOfTheTableCells) {
  const KeySpace space;
  for (const std::string& row : {std::string("d:a.com"), std::string("p:http://a.com/"), std::string("t:fe:x"),
                                 std::string("\0x", 2), std::string()}) {
    EXPECT_FALSE(sink::EncodeCellKey(row, "cf", "cq").starts_with(space.prefix)) << row;
  }
  // Graph rows sort before the row families, and never pass for a cell.
  const Statement st{Iri("s"), Iri("p"), Term::Literal("o"), Iri("g")};
  for (Index index : kIndexes) {
    const std::string key = RowKey(space, index, st);
    EXPECT_LT(key, sink::RowPrefixKey("d:"));
    std::string row, cf, cq;
    EXPECT_FALSE(sink::DecodeCellKey(key, &row, &cf, &cq));
  }
  Apply({{true, {Iri("s"), Iri("p"), Iri("o"), std::nullopt}},
         {true, {Iri("s"), Iri("p"), Term::Literal("z"), Iri("g")}}});
  state::WriteBatch batch(*store_);
  batch.Put(state::Family::kTable, sink::EncodeCellKey("d:a.com", "domain", "pagecount"), "1");
  batch.Put(state::Family::kTable, sink::EncodeCellKey("t:fe:x", "", ""), "1");
  ASSERT_TRUE(store_->Write(batch).ok());
  // Scans of the table's row families see their cells only, to the end of the family.
  std::vector<std::string> rows;
  for (const char* prefix : {"d:", "p:", "t:"}) {
    ASSERT_TRUE(query::ScanRows(*store_, prefix, [&](const sink::Cell& c) {
                  rows.push_back(c.row);
                  return true;
                }).ok());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"d:a.com", "t:fe:x"}));
  auto top = query::TopUris(*store_, 25);
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  ASSERT_EQ(top->size(), 1u);
  EXPECT_EQ((*top)[0].uri, "x");
  EXPECT_EQ(All({.graph = GraphSelector::All()}).size(), 2u);
}

TEST(GraphPatternTest, ParsePatternFromOptions) {
  auto p = ParsePattern("<http://a.example/s>", "", "\"x\"@en", "");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->subject, Iri("s"));
  EXPECT_FALSE(p->predicate.has_value());
  EXPECT_EQ(p->object, Term::LangLiteral("x", "en"));
  EXPECT_EQ(p->graph.kind, GraphSelector::Kind::kDefault);
  EXPECT_EQ(IndexFor(*p), Index::kSop);
  EXPECT_EQ(ParsePattern("", "", "", "default")->graph.kind, GraphSelector::Kind::kDefault);
  EXPECT_EQ(ParsePattern("", "", "", "all")->graph.kind, GraphSelector::Kind::kAll);
  for (const char* g : {"http://a.example/g", "<http://a.example/g>"}) {
    auto named = ParsePattern("", "", "", g);
    ASSERT_TRUE(named.ok()) << g;
    EXPECT_EQ(named->graph.kind, GraphSelector::Kind::kNamed);
    EXPECT_EQ(named->graph.name, Iri("g"));
  }
  EXPECT_EQ(ParsePattern("", "", "", "_:g")->graph.name, Term::Blank("g"));
  // Errors name the option.
  EXPECT_EQ(ParsePattern("\"lit\"", "", "", "").status().message(), "s: a subject is never a literal");
  EXPECT_EQ(ParsePattern("", "_:b", "", "").status().message(), "p: a predicate is an IRI");
  EXPECT_EQ(ParsePattern("", "\"p\"", "", "").status().message(), "p: a predicate is an IRI");
  // A predicate is always an IRI: bare or in brackets.
  EXPECT_EQ(ParsePattern("", "http://a.example/p", "", "")->predicate, Term::Iri("http://a.example/p"));
  EXPECT_EQ(ParsePattern("", "<http://a.example/p>", "", "")->predicate, Term::Iri("http://a.example/p"));
  EXPECT_FALSE(ParsePattern("", "p", "", "").ok());  // not absolute
  EXPECT_TRUE(ParsePattern("", "", "<rel>", "").status().message().starts_with("o: bad term <rel>"));
  EXPECT_TRUE(ParsePattern("", "", "", "\"g\"").status().message().starts_with("graph: "));
  EXPECT_TRUE(ParsePattern("", "", "", "relative").status().message().starts_with("graph: "));
  EXPECT_EQ(ParsePattern("http://a.example/s", "", "", "").status().code(), Status::Code::kInvalidArgument);
}

// ---- randomized against a std::set ----

//! The universe of terms: shared prefixes, a NUL inside a literal, literals equal but for their
//! datatype or language.
struct Universe {
  std::vector<Term> subjects{Iri(""), Iri("a"), Iri("a/b"), Iri("ab"), Iri("b"), Term::Blank("x"), Term::Blank("y")};
  std::vector<Term> predicates{Iri("p"), Iri("p2"), Iri("q"), Term::Iri("urn:webindex:linksTo")};
  std::vector<Term> objects{Iri("a"),
                            Iri("ab"),
                            Term::Blank("x"),
                            Term::Literal(""),
                            Term::Literal("a"),
                            Term::Literal(std::string("a\0b", 3)),
                            Term::LangLiteral("a", "en"),
                            Term::Literal("a", "http://www.w3.org/2001/XMLSchema#token"),
                            Term::Literal("1", "http://www.w3.org/2001/XMLSchema#integer"),
                            Term::Literal("01", "http://www.w3.org/2001/XMLSchema#integer")};
  std::vector<std::optional<Term>> graphs{std::nullopt, Iri("g1"), Iri("g2"), Term::Blank("g3")};
};

template <typename T>
const T& Pick(const std::vector<T>& v, std::mt19937_64& rng) {
  return v[rng() % v.size()];
}

//! The order the store promises: graph, then the terms in the order of the pattern's index.
std::vector<Statement> Expected(const std::set<Statement>& model, const Pattern& p) {
  std::vector<Statement> out;
  for (const auto& st : model) {
    const bool graph_ok = p.graph.kind == GraphSelector::Kind::kAll ||
                          (p.graph.kind == GraphSelector::Kind::kDefault ? !st.graph : st.graph == p.graph.name);
    if (graph_ok && (!p.subject || st.subject == *p.subject) && (!p.predicate || st.predicate == *p.predicate) &&
        (!p.object || st.object == *p.object)) {
      out.push_back(st);
    }
  }
  // s ? o reads SOP; ? p o and ? p ? read POS; ? ? o reads OSP; the others SPO.
  auto key = [&](const Statement& st) {
    const Term *s = &st.subject, *pr = &st.predicate, *o = &st.object;
    if (p.subject && p.object && !p.predicate) return std::make_tuple(st.graph, *s, *o, *pr);
    if (!p.subject && p.predicate) return std::make_tuple(st.graph, *pr, *o, *s);
    if (!p.subject && !p.predicate && p.object) return std::make_tuple(st.graph, *o, *s, *pr);
    return std::make_tuple(st.graph, *s, *pr, *o);
  };
  std::stable_sort(out.begin(), out.end(), [&](const Statement& a, const Statement& b) { return key(a) < key(b); });
  return out;
}

std::string Lines(const std::vector<Statement>& v) {
  std::string out;
  for (const auto& st : v) out += ToNQuads(st) + "\n";
  return out;
}

void CheckPatterns(state::Store& store, const std::set<Statement>& model, std::mt19937_64& rng) {
  const Universe u;
  auto snap = store.GetSnapshot();
  GraphReader reader(store, snap.get());
  std::vector<GraphSelector> selectors{GraphSelector::Default(), GraphSelector::Named(Iri("g1")),
                                       GraphSelector::Named(Iri("g2")), GraphSelector::Named(Term::Blank("g3")),
                                       GraphSelector::All()};
  for (const auto& selector : selectors) {
    for (int mask = 0; mask < 8; ++mask) {
      // Bound terms from a present statement (matches likely) or from the universe.
      std::optional<Statement> some;
      if (!model.empty() && rng() % 4 != 0) some = *std::next(model.begin(), rng() % model.size());
      Pattern p{.graph = selector};
      if (mask & 4) p.subject = some ? some->subject : Pick(u.subjects, rng);
      if (mask & 2) p.predicate = some ? some->predicate : Pick(u.predicates, rng);
      if (mask & 1) p.object = some ? some->object : Pick(u.objects, rng);
      const auto want = Expected(model, p);
      SCOPED_TRACE("pattern " + std::string(p.subject ? ToNTriples(*p.subject) : "?") + " " +
                   (p.predicate ? ToNTriples(*p.predicate) : "?") + " " + (p.object ? ToNTriples(*p.object) : "?") +
                   " graph kind " + std::to_string(static_cast<int>(selector.kind)) + " " + ToNTriples(selector.name));
      auto one = reader.Query(p, 100000);
      ASSERT_TRUE(one.ok()) << one.status().ToString();
      ASSERT_EQ(Lines(one->statements), Lines(want));
      ASSERT_FALSE(one->next.has_value());
      // Paged with a small limit: the same statements, no empty page, the chain ends.
      const size_t limit = 1 + rng() % 4;
      std::vector<Statement> paged;
      std::string cursor;
      for (int calls = 0;; ++calls) {
        ASSERT_LT(calls, 1000) << "cursor chain does not end";
        auto page = reader.Query(p, limit, cursor);
        ASSERT_TRUE(page.ok()) << page.status().ToString();
        ASSERT_LE(page->statements.size(), limit);
        if (!want.empty()) {
          ASSERT_FALSE(page->statements.empty());
        }
        paged.insert(paged.end(), page->statements.begin(), page->statements.end());
        if (!page->next) break;
        ASSERT_EQ(page->statements.size(), limit);
        cursor = *page->next;
      }
      ASSERT_EQ(Lines(paged), Lines(want)) << "limit " << limit;
    }
  }
}

void RunSeed(state::Store& store, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Universe u;
  std::set<Statement> model;
  std::vector<Statement> recent;
  uint64_t added = 0, removed = 0;
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    GraphUpdate update;
    std::set<Statement> before = model;
    for (size_t n = 1 + rng() % 30; n > 0; --n) {
      Statement st;
      if (!recent.empty() && rng() % 3 == 0) {
        st = Pick(recent, rng);  // repeats, within the batch and across batches
      } else {
        st = {Pick(u.subjects, rng), Pick(u.predicates, rng), Pick(u.objects, rng), Pick(u.graphs, rng)};
        recent.push_back(st);
      }
      if (rng() % 5 < 3) {
        ASSERT_TRUE(update.Add(st).ok());
        model.insert(st);
      } else {
        ASSERT_TRUE(update.Remove(st).ok());
        model.erase(st);
      }
    }
    state::WriteBatch batch(store);
    auto result = update.Apply(store, batch);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_TRUE(store.Write(batch).ok());
    std::vector<Statement> want_added, want_removed;
    std::set_difference(model.begin(), model.end(), before.begin(), before.end(), std::back_inserter(want_added));
    std::set_difference(before.begin(), before.end(), model.begin(), model.end(), std::back_inserter(want_removed));
    ASSERT_EQ(Lines(result->added), Lines(want_added));
    ASSERT_EQ(Lines(result->removed), Lines(want_removed));
    added += want_added.size();
    removed += want_removed.size();
    CheckPatterns(store, model, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::cout << "seed " << seed << ": " << added << " added, " << removed << " removed, " << model.size()
            << " statements at the end" << std::endl;
}

TEST_F(GraphStoreTest, RandomizedAgainstASet) {
  for (uint64_t seed : testing::RandomTestSeeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with WEBINDEX_SEEDS=" + std::to_string(seed) + ")");
    const std::string sub = dir_ + "/seed-" + std::to_string(seed);
    std::filesystem::create_directories(sub);
    auto store = state::Store::Open(sub, state::StoreOptions{.sync_commits = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    RunSeed(**store, seed);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace webindex::graph
