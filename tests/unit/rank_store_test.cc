// rank/rank_store.h: PageRank results in the store — one whole result visible at a time, pages
// of the ranking with cursors, lookups by URL, replacement by a newer result.
#include "rank/rank_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline_harness.h"
#include "rank/pagerank.h"
#include "rank/table_graph.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

class RankStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("rank-store-test");
    auto store = state::Store::Open(dir_ + "/db", {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  //! A graph of `n` pages where page i links to pages 0..i-1 (so lower pages rank higher).
  static LinkGraph Graph(int n, const std::string& prefix = "http://a.com/") {
    LinkGraphBuilder b;
    for (int i = 0; i < n; ++i) b.Intern(prefix + std::to_string(i));
    for (int i = 0; i < n; ++i) {
      std::vector<uint32_t> out;
      for (int j = 0; j < i; ++j) out.push_back(static_cast<uint32_t>(j));
      b.SetOutlinks(static_cast<uint32_t>(i), out);
    }
    return b.Build();
  }
  //! Every entry of the current ranking, `limit` at a time.
  std::vector<RankedPage> All(size_t limit) {
    std::vector<RankedPage> all;
    std::string cursor;
    do {
      auto page = RankingPage(*store_, limit, cursor);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      all.insert(all.end(), page->pages.begin(), page->pages.end());
      EXPECT_LE(page->pages.size(), limit);
      cursor = page->next;
    } while (!cursor.empty());
    return all;
  }
  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

TEST_F(RankStoreTest, NothingStoredIsNotFound) {
  auto current = CurrentRankResult(*store_);
  ASSERT_TRUE(current.ok());
  EXPECT_FALSE(current->has_value());
  EXPECT_EQ(RankingPage(*store_, 10, "").status().code(), Status::Code::kNotFound);
  auto score = ScoreOf(*store_, "http://a.com/0");
  ASSERT_TRUE(score.ok());
  EXPECT_FALSE(score->has_value());
}

TEST_F(RankStoreTest, PagesOfTheRankingFollowRankOrderAndLookupsFindEveryNode) {
  const LinkGraph g = Graph(25);
  const auto scores = ComputePageRank(g, {10, 1});
  RankResultInfo info;
  info.computed_at_ms = 1700000000000;
  info.iterations = 10;
  info.exports_topic = "webindex.exports";
  info.positions = {5, -1, 12};
  auto stored = StoreRankResult(*store_, g, scores, info, /*batch_rows=*/7);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->id, 1u);
  EXPECT_EQ(stored->nodes, 25u);
  EXPECT_EQ(stored->edges, 300u);
  const auto order = RankOrder(g, scores);
  for (size_t limit : {1, 4, 25, 100}) {
    const auto all = All(limit);
    ASSERT_EQ(all.size(), order.size()) << limit;
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(all[i].url, g.name(order[i]));
      EXPECT_EQ(all[i].score, scores[order[i]]);
    }
  }
  auto current = CurrentRankResult(*store_);
  ASSERT_TRUE(current.ok() && current->has_value());
  EXPECT_EQ((*current)->positions, (std::vector<int64_t>{5, -1, 12}));
  EXPECT_EQ((*current)->exports_topic, "webindex.exports");
  EXPECT_EQ((*current)->computed_at_ms, 1700000000000);
  for (size_t u = 0; u < g.nodes(); ++u) {
    auto score = ScoreOf(*store_, std::string(g.name(u)));
    ASSERT_TRUE(score.ok() && score->has_value()) << g.name(u);
    EXPECT_EQ((*score)->first, scores[u]);
  }
  auto missing = ScoreOf(*store_, "http://a.com/99");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  EXPECT_EQ(RankingPage(*store_, 5, "not-a-cursor!").status().code(), Status::Code::kInvalidArgument);
}

TEST_F(RankStoreTest, ANewerResultReplacesTheOldOneWhole) {
  const LinkGraph first = Graph(30);
  ASSERT_TRUE(StoreRankResult(*store_, first, ComputePageRank(first, {3, 1}), {}).ok());
  auto page = RankingPage(*store_, 10, "");
  ASSERT_TRUE(page.ok());
  const std::string old_cursor = page->next;
  const LinkGraph second = Graph(12, "http://b.com/");
  auto stored = StoreRankResult(*store_, second, ComputePageRank(second, {3, 1}), {});
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->id, 2u);
  const auto all = All(5);
  ASSERT_EQ(all.size(), 12u);
  for (const auto& p : all) EXPECT_EQ(p.url.rfind("http://b.com/", 0), 0u) << p.url;
  auto lost = ScoreOf(*store_, "http://a.com/1");
  ASSERT_TRUE(lost.ok());
  EXPECT_FALSE(lost->has_value());
  EXPECT_EQ(RankingPage(*store_, 10, old_cursor).status().code(), Status::Code::kAborted);
  // Nothing of the first result is left in the store.
  auto it = store_->NewIterator(state::Family::kMeta);
  size_t rows = 0;
  for (it->Seek("pagerank/"); it->Valid() && it->key().starts_with("pagerank/"); it->Next()) ++rows;
  EXPECT_EQ(rows, 1u + 2 * 12);
}

// A partitioned table's computing member numbers its results after the highest id another
// member gave out (a floor in info.id); rows a stopped process left under skipped ids go too.
TEST_F(RankStoreTest, AFloorNumbersTheNextResultAndLeftoversBelowItGo) {
  const LinkGraph first = Graph(30);
  ASSERT_TRUE(StoreRankResult(*store_, first, ComputePageRank(first, {3, 1}), {}).ok());
  std::string leftover = "pagerank/r/";
  for (int shift = 56; shift >= 0; shift -= 8) leftover.push_back(static_cast<char>((uint64_t{3} >> shift) & 0xff));
  leftover += "/u/http://c.com/";
  state::WriteBatch wb(*store_);
  wb.Put(state::Family::kMeta, leftover, "x");
  ASSERT_TRUE(store_->Write(wb).ok());
  const LinkGraph second = Graph(12, "http://b.com/");
  RankResultInfo floor;
  floor.id = 5;
  auto stored = StoreRankResult(*store_, second, ComputePageRank(second, {3, 1}), floor);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->id, 5u);
  auto it = store_->NewIterator(state::Family::kMeta);
  size_t rows = 0;
  for (it->Seek("pagerank/"); it->Valid() && it->key().starts_with("pagerank/"); it->Next()) ++rows;
  EXPECT_EQ(rows, 1u + 2 * 12) << "the leftover of result 3 stayed";
  floor.id = 2;  // below the store's own count: that one goes on
  stored = StoreRankResult(*store_, second, ComputePageRank(second, {3, 1}), floor);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->id, 6u);
}

TEST_F(RankStoreTest, StoringACancelledResultKeepsThePreviousOneWholeAndLeavesNothingBehind) {
  const LinkGraph first = Graph(30);
  ASSERT_TRUE(StoreRankResult(*store_, first, ComputePageRank(first, {3, 1}), {}).ok());
  const LinkGraph second = Graph(40, "http://b.com/");
  std::atomic<bool> cancel{true};
  auto cancelled = StoreRankResult(*store_, second, ComputePageRank(second, {3, 1}), {}, /*batch_rows=*/7, &cancel);
  EXPECT_EQ(cancelled.status().code(), Status::Code::kAborted) << cancelled.status().ToString();
  auto current = CurrentRankResult(*store_);
  ASSERT_TRUE(current.ok() && current->has_value());
  EXPECT_EQ((*current)->id, 1u);
  EXPECT_EQ(All(100).size(), 30u);

  cancel = false;
  auto stored = StoreRankResult(*store_, second, ComputePageRank(second, {3, 1}), {}, /*batch_rows=*/7, &cancel);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(All(100).size(), 40u);
  auto it = store_->NewIterator(state::Family::kMeta);
  size_t rows = 0;
  for (it->Seek("pagerank/"); it->Valid() && it->key().starts_with("pagerank/"); it->Next()) ++rows;
  EXPECT_EQ(rows, 1u + 2 * 40);
}

TEST_F(RankStoreTest, ReadingTheTableGraphStopsWhenCancelled) {
  // 3,000 pages, each linked from the previous one: more cells than one cancellation check covers.
  state::WriteBatch wb(*store_);
  auto uri = [](int i) { return "com.a>>o>/p" + std::to_string(i); };
  for (int i = 0; i < 3000; ++i) {
    const std::string row = sink::PageRow(uri(i));
    wb.Put(state::Family::kTable, sink::EncodeCellKey(row, "page", "cur"), "{}");
    if (i > 0) wb.Put(state::Family::kTable, sink::EncodeCellKey(row, "inlinks", uri(i - 1)), "next");
  }
  ASSERT_TRUE(store_->Write(wb).ok());
  std::atomic<bool> cancel{false};
  auto whole = ReadTableGraph(*store_, nullptr, nullptr, &cancel);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->nodes(), 3000u);
  EXPECT_EQ(whole->edges(), 2999u);
  cancel = true;
  EXPECT_EQ(ReadTableGraph(*store_, nullptr, nullptr, &cancel).status().code(), Status::Code::kAborted);
}

}  // namespace
}  // namespace webindex::rank

namespace webindex::rank {
namespace {

//! The table graph read in key ranges on several threads equals the one read by one thread,
//! also when a range border cuts a row (a page's inlinks cells in two files).
TEST(TableGraphReadersTest, KeyRangesOnSeveralThreadsGiveTheGraphOfOneReader) {
  const std::string dir = testing::MakeTempDir("table-graph-readers");
  state::StoreOptions options;
  options.auto_compactions = false;  // keep the files the flushes below make
  auto opened = state::Store::Open(dir + "/db", options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto& store = **opened;
  const int kPages = 2000;
  auto uri = [](int i) { return "com.site" + std::to_string(i % 7) + ">>o>/p" + std::to_string(i); };
  const std::string hub = "com.site3>>o>/hub";  // every page links to it; its row is mid-table
  // Page i links to pages i+1 .. i+5 and to the hub; 50 linked-to URIs without a page row.
  std::vector<std::string> keys;
  for (int i = 0; i < kPages; ++i) {
    keys.push_back(sink::EncodeCellKey(sink::PageRow(uri(i)), "page", "cur"));
    for (int j = std::max(0, i - 5); j < i; ++j) {
      keys.push_back(sink::EncodeCellKey(sink::PageRow(uri(i)), "inlinks", uri(j)));
    }
    keys.push_back(sink::EncodeCellKey(sink::PageRow(hub), "inlinks", uri(i)));
  }
  keys.push_back(sink::EncodeCellKey(sink::PageRow(hub), "page", "incount"));
  for (int i = 0; i < 50; ++i) {
    keys.push_back(sink::EncodeCellKey(sink::PageRow("org.gone>>o>/" + std::to_string(i)), "page", "incount"));
  }
  std::sort(keys.begin(), keys.end());
  // Four files: flushed at a quarter, in the middle of the hub's row, and at three quarters
  // (readers split by bytes, not at files: the layout must not matter).
  const std::string hub_row = sink::RowPrefixKey(sink::PageRow(hub)) + std::string("\0\x01", 2);
  const size_t hub_begin =
      std::find_if(keys.begin(), keys.end(), [&](const std::string& k) { return k.starts_with(hub_row); }) - keys.begin();
  const size_t mid_hub = hub_begin + kPages / 2;
  ASSERT_TRUE(keys[mid_hub].starts_with(hub_row));
  const std::vector<size_t> flush_after = {keys.size() / 4, mid_hub, keys.size() * 3 / 4};
  ASSERT_TRUE(std::is_sorted(flush_after.begin(), flush_after.end()));
  size_t next_flush = 0;
  auto wb = std::make_unique<state::WriteBatch>(store);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (next_flush < flush_after.size() && k == flush_after[next_flush]) {
      ASSERT_TRUE(store.Write(*wb).ok());
      ASSERT_TRUE(store.Flush().ok());
      wb = std::make_unique<state::WriteBatch>(store);
      ++next_flush;
    }
    // The hub's anchors are long: its row holds most of the table's bytes, so the middle is in it.
    wb->Put(state::Family::kTable, keys[k], keys[k].starts_with(hub_row) ? std::string(300, 'a') : "anchor");
  }
  ASSERT_TRUE(store.Write(*wb).ok());
  ASSERT_TRUE(store.Flush().ok());
  // Two readers part inside the hub's row.
  const auto halves = store.SplitKeys(state::Family::kTable, sink::RowPrefixKey("p:"), sink::RowPrefixKey("p;"), 2);
  ASSERT_EQ(halves.size(), 1u);
  EXPECT_GT(halves[0], keys[hub_begin]);
  EXPECT_TRUE(halves[0].starts_with(hub_row)) << "not in the hub's row";

  TableGraphStats one_stats, many_stats;
  auto one = ReadTableGraph(store, nullptr, &one_stats, nullptr, 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one_stats.readers, 1);
  EXPECT_EQ(one->nodes(), static_cast<size_t>(kPages + 1 + 50));
  EXPECT_EQ(one->edges(), static_cast<uint64_t>(kPages + 5 * (kPages - 5) + 10));
  for (int readers : {2, 3, 4}) {
    auto many = ReadTableGraph(store, nullptr, &many_stats, nullptr, readers);
    ASSERT_TRUE(many.ok()) << many.status().ToString();
    EXPECT_EQ(many_stats.readers, readers);
    EXPECT_EQ(many_stats.cells, one_stats.cells);
    EXPECT_EQ(many->name_bytes, one->name_bytes) << readers;
    EXPECT_EQ(many->name_end, one->name_end) << readers;
    EXPECT_EQ(many->in_begin, one->in_begin) << readers;
    EXPECT_EQ(many->in_sources, one->in_sources) << readers;
    EXPECT_EQ(many->out_degree, one->out_degree) << readers;
  }
  opened->reset();
  std::filesystem::remove_all(dir);
}

//! A small table: a links to b and c, b links to c; d exists only as a linked-to row of
//! its own (incount), e's row has a cell of another family only (no node).
class TableGraphHashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("table-graph-hash");
    auto opened = state::Store::Open(dir_ + "/db", {});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
    Put("com.a>>o>/", "page", "cur");
    Put("com.b>>o>/", "page", "cur");
    Put("com.b>>o>/", "inlinks", "com.a>>o>/");
    Put("com.c>>o>/", "inlinks", "com.a>>o>/");
    Put("com.c>>o>/", "inlinks", "com.b>>o>/");
    Put("com.d>>o>/", "page", "incount");
    Put("com.e>>o>/", "other", "x");
  }
  void TearDown() override {
    table_graph_hash_for_testing = nullptr;
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Put(const std::string& uri, const std::string& cf, const std::string& cq) {
    state::WriteBatch wb(*store_);
    wb.Put(state::Family::kTable, sink::EncodeCellKey(sink::PageRow(uri), cf, cq), "");
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  static std::vector<std::string> Names(const LinkGraph& g) {
    std::vector<std::string> names;
    for (uint32_t u = 0; u < g.nodes(); ++u) names.emplace_back(g.name(u));
    return names;
  }
  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

TEST_F(TableGraphHashTest, NodesInUriOrderEdgesByTargetThenSource) {
  TableGraphStats stats;
  auto g = ReadTableGraph(*store_, nullptr, &stats, nullptr, 1);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(stats.attempts, 1);
  EXPECT_EQ(Names(*g), (std::vector<std::string>{"http://a.com/", "http://b.com/", "http://c.com/", "http://d.com/"}));
  EXPECT_EQ(g->in_begin, (std::vector<uint64_t>{0, 0, 1, 3, 3}));
  EXPECT_EQ(g->in_sources, (std::vector<uint32_t>{0, 0, 1}));
  EXPECT_EQ(g->out_degree, (std::vector<uint32_t>{2, 1, 0, 0}));
}

// Sources are resolved by a hash of their URI: node URIs that share a hash (by chance, or made
// to collide on purpose by whoever writes the pages) are read again and told apart by the URIs
// themselves, so the graph is the same.
TEST_F(TableGraphHashTest, URIsThatShareAHashAreToldApartByASecondRead) {
  auto expected = ReadTableGraph(*store_, nullptr, nullptr, nullptr, 1);
  ASSERT_TRUE(expected.ok());
  // Every URI alike; then only b's and c's (a and d are resolved by hash, b and c by URI).
  for (auto hash : {+[](std::string_view) -> uint64_t { return 42; },
                    +[](std::string_view uri) -> uint64_t {
                      return uri == "com.b>>o>/" || uri == "com.c>>o>/" ? 7 : std::hash<std::string_view>()(uri);
                    }}) {
    table_graph_hash_for_testing = hash;
    for (int readers : {1, 2}) {
      TableGraphStats stats;
      auto g = ReadTableGraph(*store_, nullptr, &stats, nullptr, readers);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      EXPECT_EQ(stats.attempts, 2);
      EXPECT_EQ(Names(*g), Names(*expected));
      EXPECT_EQ(g->in_begin, expected->in_begin);
      EXPECT_EQ(g->in_sources, expected->in_sources);
      EXPECT_EQ(g->out_degree, expected->out_degree);
    }
  }
  // A source without a row is found out also when its hash is ambiguous.
  Put("com.c>>o>/", "inlinks", "com.zz>>o>/");
  table_graph_hash_for_testing = [](std::string_view) -> uint64_t { return 42; };
  auto g = ReadTableGraph(*store_, nullptr, nullptr, nullptr, 1);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kCorruption) << g.status().ToString();
}

TEST_F(TableGraphHashTest, AnInlinksCellFromAUriWithoutARowIsCorruptionNamingItsRow) {
  Put("com.c>>o>/", "inlinks", "com.zz>>o>/");
  auto g = ReadTableGraph(*store_, nullptr, nullptr, nullptr, 1);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kCorruption);
  EXPECT_NE(g.status().message().find("http://c.com/"), std::string::npos) << g.status().ToString();
}

}  // namespace
}  // namespace webindex::rank
