// The temporal index (docs/graph.md, "Temporal index"): xsd:dateTime parsing against an
// independent day count, and before / after / equals / within on a real RocksDB store against a
// filter over an in-memory set of statements, with adds, removes, named graphs, a predicate
// restriction and cursor paging. WEBINDEX_SEEDS="1,2,3" picks seeds, WEBINDEX_RANDOM_RUNS=N
// adds N fresh ones; every seed is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include <fmt/format.h>

#include "graph/graph_update.h"
#include "graph/temporal_index.h"
#include "pipeline_harness.h"
#include "seeds.h"

namespace webindex::graph {
namespace {

//! Seconds since the epoch of a civil UTC time, by counting whole years and months one at a
//! time (slow and plain; the index uses a closed formula).
int64_t ReferenceSeconds(int64_t year, int month, int day, int hour, int minute, int second) {
  auto leap = [](int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; };
  int64_t days = 0;
  for (int64_t y = 1970; y < year; ++y) days += leap(y) ? 366 : 365;
  for (int64_t y = year; y < 1970; ++y) days -= leap(y) ? 366 : 365;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int m = 1; m < month; ++m) days += kDays[m - 1] + (m == 2 && leap(year) ? 1 : 0);
  days += day - 1;
  return days * 86400 + hour * 3600 + minute * 60 + second;
}

TEST(XsdDateTimeTest, ParsesZonesFractionsAndEdges) {
  EXPECT_EQ(ParseXsdDateTime("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseXsdDateTime("1970-01-01T00:00:00"), 0);  // no zone: UTC
  EXPECT_EQ(ParseXsdDateTime("2015-07-28T05:06:17+02:00"), ParseXsdDateTime("2015-07-28T03:06:17Z"));
  EXPECT_EQ(ParseXsdDateTime("2015-07-27T23:06:17-04:00"), ParseXsdDateTime("2015-07-28T03:06:17Z"));
  EXPECT_EQ(ParseXsdDateTime("2015-07-28T03:06:17.999999Z"), ParseXsdDateTime("2015-07-28T03:06:17Z"));
  // Fractions are dropped toward the earlier second, before the epoch too.
  EXPECT_EQ(ParseXsdDateTime("1969-12-31T23:59:59.5Z"), -1);
  EXPECT_EQ(ParseXsdDateTime("2000-12-31T24:00:00Z"), ParseXsdDateTime("2001-01-01T00:00:00Z"));
  EXPECT_EQ(ParseXsdDateTime("2000-12-31T24:00:00.000Z"), ParseXsdDateTime("2001-01-01T00:00:00Z"));
  EXPECT_EQ(ParseXsdDateTime("2000-02-29T00:00:00Z"), 951782400);
  EXPECT_EQ(ParseXsdDateTime("2001-01-01T00:00:00+14:00"), 978307200 - 14 * 3600);
  EXPECT_EQ(ParseXsdDateTime("0000-01-01T00:00:00Z"), ReferenceSeconds(0, 1, 1, 0, 0, 0));
  EXPECT_EQ(ParseXsdDateTime("-0044-03-15T12:00:00Z"), ReferenceSeconds(-44, 3, 15, 12, 0, 0));
  EXPECT_EQ(ParseXsdDateTime("12345-06-07T08:09:10Z"), ReferenceSeconds(12345, 6, 7, 8, 9, 10));

  for (const char* bad : {"", "2015-07-28", "2015-07-28T03:06Z", "2015-7-28T03:06:17Z", "15-07-28T03:06:17Z",
                          "02015-07-28T03:06:17Z", "2015-13-01T00:00:00Z", "2015-00-01T00:00:00Z",
                          "2015-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2015-04-31T00:00:00Z",
                          "2015-07-28T24:00:01Z", "2015-07-28T24:00:00.5Z", "2015-07-28T23:60:00Z",
                          "2015-07-28T23:59:60Z", "2015-07-28T03:06:17.Z", "2015-07-28T03:06:17+14:01",
                          "2015-07-28T03:06:17+15:00", "2015-07-28T03:06:17+02", "2015-07-28T03:06:17+0200",
                          "2015-07-28T03:06:17ZZ", "2015-07-28 03:06:17Z", "2015-07-28T03:06:17z",
                          " 2015-07-28T03:06:17Z", "123456789012-01-01T00:00:00Z"}) {
    EXPECT_FALSE(ParseXsdDateTime(bad).has_value()) << bad;
  }
}

TEST(XsdDateTimeTest, RandomizedAgainstDayCount) {
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2})) {
    std::cout << "seed " << seed << std::endl;
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    for (int i = 0; i < 20000; ++i) {
      const int64_t year = pick(0, 3) == 0 ? pick(-3000, 12000) : pick(1900, 2100);
      const int month = static_cast<int>(pick(1, 12));
      const int day = static_cast<int>(pick(1, 28));
      const int hour = static_cast<int>(pick(0, 23)), minute = static_cast<int>(pick(0, 59));
      const int second = static_cast<int>(pick(0, 59));
      std::string text = fmt::format("{}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", year < 0 ? "-" : "",
                                     year < 0 ? -year : year, month, day, hour, minute, second);
      if (pick(0, 1)) text += "." + std::string(static_cast<size_t>(pick(1, 9)), static_cast<char>('0' + pick(0, 9)));
      int64_t offset = 0;
      switch (pick(0, 3)) {
        case 0:
          break;  // no zone
        case 1:
          text += 'Z';
          break;
        default: {
          const int64_t oh = pick(0, 13), om = pick(0, 59);
          const bool west = pick(0, 1);
          text += fmt::format("{}{:02}:{:02}", west ? '-' : '+', oh, om);
          offset = (oh * 3600 + om * 60) * (west ? -1 : 1);
        }
      }
      const int64_t expected = ReferenceSeconds(year, month, day, hour, minute, second) - offset;
      ASSERT_EQ(ParseXsdDateTime(text), expected) << text << " (seed " << seed << ")";
      // The UTC form names the same instant.
      ASSERT_EQ(ParseXsdDateTime(FormatXsdDateTime(expected)), expected) << FormatXsdDateTime(expected);
    }
  }
}

TEST(TemporalQueryTest, ParsesOneOperatorInRfc3339) {
  auto q = ParseTemporalQuery("", "", "", "2015-07-01T02:00:00+02:00/2015-08-01T00:00:00Z", "http://e.x/p", "all");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->op, TemporalQuery::Op::kWithin);
  EXPECT_EQ(q->t1, *ParseXsdDateTime("2015-07-01T00:00:00Z"));
  EXPECT_EQ(q->t2, *ParseXsdDateTime("2015-08-01T00:00:00Z"));
  EXPECT_EQ(q->predicate, Term::Iri("http://e.x/p"));
  EXPECT_EQ(q->graph.kind, GraphSelector::Kind::kAll);

  auto before = ParseTemporalQuery("2015-07-28T03:06:17.75Z", "", "", "", "", "");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->op, TemporalQuery::Op::kBefore);
  EXPECT_EQ(before->t1, *ParseXsdDateTime("2015-07-28T03:06:17Z"));
  EXPECT_FALSE(before->predicate.has_value());
  EXPECT_EQ(before->graph.kind, GraphSelector::Kind::kDefault);

  auto message = [](const Result<TemporalQuery>& r) { return r.ok() ? std::string("ok") : r.status().message(); };
  EXPECT_NE(message(ParseTemporalQuery("", "", "", "", "", "")).find("exactly one"), std::string::npos);
  EXPECT_NE(message(ParseTemporalQuery("2015-01-01T00:00:00Z", "2015-01-01T00:00:00Z", "", "", "", ""))
                .find("exactly one"),
            std::string::npos);
  EXPECT_NE(message(ParseTemporalQuery("", "yesterday", "", "", "", "")).find("after: 'yesterday'"),
            std::string::npos);
  EXPECT_NE(message(ParseTemporalQuery("", "", "", "2015-01-01T00:00:00Z", "", "")).find("T1/T2"), std::string::npos);
  EXPECT_NE(message(ParseTemporalQuery("", "", "", "2016-01-01T00:00:00Z/2015-01-01T00:00:00Z", "", ""))
                .find("T1 is after T2"),
            std::string::npos);
  EXPECT_FALSE(ParseTemporalQuery("", "", "2015-01-01T00:00:00Z", "", "\"literal\"", "").ok());
}

class TemporalIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-temporal");
    auto store = state::Store::Open(dir_, state::StoreOptions{.sync_commits = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  ApplyResult Apply(const IndexSet& indexes, const std::vector<std::pair<bool, Statement>>& ops) {
    GraphUpdate update({}, indexes);
    for (const auto& [add, st] : ops) EXPECT_TRUE((add ? update.Add(st) : update.Remove(st)).ok());
    state::WriteBatch batch(*store_);
    auto result = update.Apply(*store_, batch);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_TRUE(store_->Write(batch).ok());
    return result.ok() ? std::move(result).value() : ApplyResult{};
  }

  //! Every match, read in pages of `limit`, each page from the cursor of the one before.
  std::vector<Statement> Paged(const TemporalQuery& q, size_t limit) {
    auto snap = store_->GetSnapshot();
    TemporalReader reader(*store_, snap.get());
    std::vector<Statement> all;
    std::string cursor;
    for (int pages = 0; pages < 100000; ++pages) {
      auto page = reader.Query(q, limit, cursor);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      all.insert(all.end(), page->statements.begin(), page->statements.end());
      if (!page->next) break;
      EXPECT_EQ(page->statements.size(), limit);
      cursor = *page->next;
    }
    return all;
  }

  size_t TemporalRows() {
    size_t n = 0;
    const KeySpace space;
    auto it = store_->NewIterator(space.family);
    for (it->Seek(space.prefix); it->Valid() && it->key().starts_with(space.prefix); it->Next()) {
      const char kind = it->key()[space.prefix.size()];
      n += kind == kTemporalRows || kind == kTemporalByPredicateRows;
    }
    return n;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

Term Date(const std::string& lexical) { return Term::Literal(lexical, std::string(kXsdDateTime)); }
Term Iri(const std::string& s) { return Term::Iri("http://t.example/" + s); }

TEST_F(TemporalIndexTest, OperatorsExcludeTheirEnds) {
  const IndexSet indexes{.temporal = true};
  const Statement a{Iri("a"), Iri("at"), Date("2015-07-28T03:06:17Z"), std::nullopt};
  const Statement b{Iri("b"), Iri("at"), Date("2015-07-28T05:06:18+02:00"), std::nullopt};  // 03:06:18Z
  const Statement c{Iri("c"), Iri("at"), Date("2015-07-28T03:06:19.9"), std::nullopt};
  const Statement text{Iri("d"), Iri("at"), Term::Literal("2015-07-28T03:06:18Z"), std::nullopt};  // a string
  Apply(indexes, {{true, a}, {true, b}, {true, c}, {true, text}});
  EXPECT_EQ(TemporalRows(), 6u);

  auto run = [&](const char* before, const char* after, const char* equals, const char* within) {
    auto q = ParseTemporalQuery(before, after, equals, within, "", "");
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    return q.ok() ? Paged(*q, 10) : std::vector<Statement>{};
  };
  using V = std::vector<Statement>;
  EXPECT_EQ(run("2015-07-28T03:06:18Z", "", "", ""), V{a});
  EXPECT_EQ(run("", "2015-07-28T03:06:18Z", "", ""), V{c});
  EXPECT_EQ(run("", "", "2015-07-28T03:06:18.5Z", ""), V{b});
  EXPECT_EQ(run("", "", "", "2015-07-28T03:06:17Z/2015-07-28T03:06:19Z"), V{b});
  EXPECT_EQ(run("", "", "", "2015-07-28T03:06:16Z/2015-07-28T03:06:20Z"), (V{a, b, c}));
  EXPECT_EQ(run("", "", "", "2015-07-28T03:06:18Z/2015-07-28T03:06:18Z"), V{});

  // Removing a statement removes its rows.
  Apply(indexes, {{false, b}});
  EXPECT_EQ(TemporalRows(), 4u);
  EXPECT_EQ(run("", "", "", "2015-07-28T03:06:16Z/2015-07-28T03:06:20Z"), (V{a, c}));
}

TEST_F(TemporalIndexTest, UnparsedDatesAreStoredCountedAndLeftOut) {
  const IndexSet indexes{.temporal = true};
  const Statement bad{Iri("a"), Iri("at"), Date("2015-02-30T00:00:00Z"), std::nullopt};
  auto r = Apply(indexes, {{true, bad}});
  ASSERT_EQ(r.added.size(), 1u);
  EXPECT_EQ(r.notes.unparsed_dates, 1u);
  EXPECT_EQ(r.notes.last_unparsed, "2015-02-30T00:00:00Z");
  EXPECT_EQ(TemporalRows(), 0u);
  auto again = Apply(indexes, {{true, bad}});  // already there: nothing new to count
  EXPECT_EQ(again.notes.unparsed_dates, 0u);
  auto removed = Apply(indexes, {{false, bad}});
  EXPECT_EQ(removed.removed.size(), 1u);
  EXPECT_EQ(removed.notes.unparsed_dates, 0u);
}

TEST_F(TemporalIndexTest, OffWritesNoRows) {
  Apply({}, {{true, {Iri("a"), Iri("at"), Date("2015-07-28T03:06:17Z"), std::nullopt}}});
  EXPECT_EQ(TemporalRows(), 0u);
}

TEST_F(TemporalIndexTest, BadCursorsAreRefused) {
  const IndexSet indexes{.temporal = true};
  std::vector<std::pair<bool, Statement>> ops;
  for (int i = 0; i < 5; ++i) ops.push_back({true, {Iri(std::to_string(i)), Iri("at"), Date(fmt::format("2015-07-28T03:06:1{}Z", i)), std::nullopt}});
  Apply(indexes, ops);
  auto all = ParseTemporalQuery("", "1970-01-01T00:00:00Z", "", "", "", "");
  auto late = ParseTemporalQuery("", "2015-07-28T03:06:13Z", "", "", "", "");
  ASSERT_TRUE(all.ok() && late.ok());
  TemporalReader reader(*store_, nullptr);
  auto page = reader.Query(*all, 2);
  ASSERT_TRUE(page.ok() && page->next);
  EXPECT_FALSE(reader.Query(*all, 2, "not*base64").ok());
  EXPECT_FALSE(reader.Query(*all, 2, "AAAA").ok());
  // A cursor of one query is refused by another whose range does not hold it.
  auto other = reader.Query(*late, 2, *page->next);
  EXPECT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("cursor"), std::string::npos);
}

TEST_F(TemporalIndexTest, RandomizedAgainstAFilterOverTheStatements) {
  for (const uint64_t seed : testing::RandomTestSeeds({7, 8})) {
    std::cout << "seed " << seed << std::endl;
    TearDown();
    SetUp();
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    // A narrow band of instants, so that equal instants in different spellings and every
    // boundary case come up often.
    const int64_t base = *ParseXsdDateTime("2015-07-28T00:00:00Z");
    auto random_date = [&](int64_t* at) {
      *at = base + pick(-40, 40);
      const int64_t offset_minutes = pick(0, 2) == 0 ? 0 : pick(-14 * 60, 14 * 60);
      const int64_t local = *at + offset_minutes * 60;
      std::string text = FormatXsdDateTime(local);
      text.pop_back();  // the 'Z'
      if (pick(0, 2) == 0) text += "." + std::to_string(pick(0, 999));
      if (offset_minutes == 0) {
        if (pick(0, 1)) text += 'Z';
      } else {
        const int64_t m = std::abs(offset_minutes);
        text += fmt::format("{}{:02}:{:02}", offset_minutes < 0 ? '-' : '+', m / 60, m % 60);
      }
      return text;
    };
    const bool restricted = pick(0, 1);
    IndexSet indexes{.temporal = true};
    if (restricted) indexes.temporal_predicates = {Iri("p0").value(), Iri("p2").value()};
    const std::vector<std::optional<Term>> graphs = {std::nullopt, Iri("g1"), Iri("g2"), Term::Blank("b")};

    std::set<Statement> current;
    for (int round = 0; round < 30; ++round) {
      std::vector<std::pair<bool, Statement>> ops;
      for (int i = 0, n = static_cast<int>(pick(1, 30)); i < n; ++i) {
        if (!current.empty() && pick(0, 3) == 0) {
          auto it = current.begin();
          std::advance(it, pick(0, static_cast<int64_t>(current.size()) - 1));
          ops.push_back({false, *it});
          current.erase(it);
          continue;
        }
        Statement st{Iri("s" + std::to_string(pick(0, 9))), Iri("p" + std::to_string(pick(0, 3))), {},
                     graphs[static_cast<size_t>(pick(0, 3))]};
        int64_t at;
        switch (pick(0, 9)) {
          case 0:
            st.object = Term::Literal(random_date(&at));  // a string, not a date
            break;
          case 1:
            st.object = Date("2015-07-28T25:00:00Z");  // unparsable
            break;
          case 2:
            st.object = Iri("o");
            break;
          default:
            st.object = Date(random_date(&at));
        }
        ops.push_back({true, st});
        current.insert(st);
      }
      Apply(indexes, ops);

      for (int qi = 0; qi < 10; ++qi) {
        TemporalQuery q;
        q.op = static_cast<TemporalQuery::Op>(pick(0, 3));
        q.t1 = base + pick(-45, 45);
        q.t2 = q.op == TemporalQuery::Op::kWithin ? q.t1 + pick(0, 30) : 0;
        if (pick(0, 1)) q.predicate = Iri("p" + std::to_string(pick(0, 3)));
        switch (pick(0, 2)) {
          case 0:
            q.graph = GraphSelector::Default();
            break;
          case 1:
            q.graph = GraphSelector::All();
            break;
          default:
            q.graph = GraphSelector::Named(*graphs[static_cast<size_t>(pick(1, 3))]);
        }
        // The reference: every current statement the query's definition selects, ordered by
        // graph, then instant, then statement.
        std::vector<std::pair<int64_t, Statement>> expected;
        for (const Statement& st : current) {
          if (!st.object.is_literal() || st.object.datatype() != kXsdDateTime) continue;
          const auto at = ParseXsdDateTime(st.object.value());
          if (!at) continue;
          const auto& only = indexes.temporal_predicates;
          if (!only.empty() && std::find(only.begin(), only.end(), st.predicate.value()) == only.end()) continue;
          if (q.predicate && st.predicate != *q.predicate) continue;
          if (q.graph.kind == GraphSelector::Kind::kDefault && st.graph) continue;
          if (q.graph.kind == GraphSelector::Kind::kNamed && st.graph != q.graph.name) continue;
          bool in = false;
          switch (q.op) {
            case TemporalQuery::Op::kBefore:
              in = *at < q.t1;
              break;
            case TemporalQuery::Op::kAfter:
              in = *at > q.t1;
              break;
            case TemporalQuery::Op::kEquals:
              in = *at == q.t1;
              break;
            case TemporalQuery::Op::kWithin:
              in = q.t1 < *at && *at < q.t2;
              break;
          }
          if (in) expected.emplace_back(*at, st);
        }
        std::sort(expected.begin(), expected.end(), [](const auto& x, const auto& y) {
          const Statement gx{{}, {}, {}, x.second.graph}, gy{{}, {}, {}, y.second.graph};
          if (auto c = gx <=> gy; c != 0) return c < 0;
          if (x.first != y.first) return x.first < y.first;
          return x.second < y.second;
        });
        std::vector<Statement> want;
        for (auto& [at, st] : expected) want.push_back(st);
        const size_t limit = static_cast<size_t>(pick(1, 7));
        ASSERT_EQ(Paged(q, limit), want) << "seed " << seed << " round " << round << " query " << qi << " op "
                                         << static_cast<int>(q.op) << " limit " << limit;
      }
    }
  }
}

}  // namespace
}  // namespace webindex::graph
