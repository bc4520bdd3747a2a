// GraphCells and BuildLinkGraph (rank/graph_cells.h), the live graph's cells decoded for every
// reader: rows with a page or inlinks cell are nodes in key order, named by URL; runs appended
// across a row cut in two continue its node; an inlinks cell naming a source without a row is
// Corruption, or, for a read that did not see one state, an edge left out and counted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rank/graph_cells.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

std::string Key(const std::string& uri, const std::string& cf, const std::string& cq) {
  return sink::EncodeCellKey("p:" + uri, cf, cq);
}

//! a -> b, a -> c, b -> c; c has a page too; d is a row with neither a page nor an inlinks cell (no node).
std::vector<std::string> Cells() {
  return {Key("com.a>>o>/", "page", "cur"),
          Key("com.b>>o>/", "inlinks", "com.a>>o>/"),
          Key("com.b>>o>/", "page", "cur"),
          Key("com.c>>o>/", "inlinks", "com.a>>o>/"),
          Key("com.c>>o>/", "inlinks", "com.b>>o>/"),
          Key("com.c>>o>/", "page", "cur"),
          Key("com.d>>o>/", "x", "y")};
}

TEST(GraphCellsTest, NodesInKeyOrderAndEdgesByTarget) {
  for (size_t cut = 0; cut <= Cells().size(); ++cut) {  // two runs, cut anywhere, appended
    GraphCells first(nullptr), second(nullptr);
    const auto cells = Cells();
    for (size_t i = 0; i < cells.size(); ++i) ASSERT_TRUE((i < cut ? first : second).Add(cells[i]));
    ASSERT_FALSE(first.Add(sink::EncodeCellKey("t:x", "a", "b")));  // past the p: rows
    ASSERT_TRUE(first.status().ok());
    ASSERT_TRUE(first.Finish());
    ASSERT_TRUE(second.Finish());
    first.Append(second);
    UriHashSet collided;
    auto g = BuildLinkGraph(first, &collided);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_EQ(g->nodes(), 3u) << "cut " << cut;
    EXPECT_EQ(g->name(0), "http://a.com/");
    EXPECT_EQ(g->name(2), "http://c.com/");
    EXPECT_EQ(g->in_begin, (std::vector<uint64_t>{0, 0, 1, 3})) << "cut " << cut;
    EXPECT_EQ(g->in_sources, (std::vector<uint32_t>{0, 0, 1}));
    EXPECT_EQ(g->out_degree, (std::vector<uint32_t>{2, 1, 0}));
  }
}

TEST(GraphCellsTest, ASourceWithoutARowIsCorruptionOrLeftOut) {
  auto cells = Cells();
  cells.insert(cells.begin() + 1, Key("com.b>>o>/", "inlinks", "com.aa>>o>/"));  // no row p:com.aa>>o>/
  for (bool drop : {false, true}) {
    GraphCells run(nullptr);
    for (const auto& c : cells) ASSERT_TRUE(run.Add(c));
    ASSERT_TRUE(run.Finish());
    UriHashSet collided;
    uint64_t dropped = 0;
    auto g = BuildLinkGraph(run, &collided, drop, &dropped);
    if (!drop) {
      EXPECT_EQ(g.status().code(), Status::Code::kCorruption) << g.status().ToString();
      EXPECT_NE(g.status().message().find("'http://b.com/' names a source that is no page"), std::string::npos)
          << g.status().message();
      continue;
    }
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(dropped, 1u);
    EXPECT_EQ(g->in_begin, (std::vector<uint64_t>{0, 0, 1, 3}));
    EXPECT_EQ(g->in_sources, (std::vector<uint32_t>{0, 0, 1}));
    EXPECT_EQ(g->out_degree, (std::vector<uint32_t>{2, 1, 0}));
  }
}

TEST(GraphCellsTest, AKeyThatDoesNotDecodeIsCorruption) {
  GraphCells run(nullptr);
  ASSERT_TRUE(run.Add(Key("com.a>>o>/", "page", "cur")));
  EXPECT_FALSE(run.Add(std::string("\x01\x02", 2)));
  EXPECT_EQ(run.status().code(), Status::Code::kCorruption) << run.status().ToString();
}

}  // namespace
}  // namespace webindex::rank
