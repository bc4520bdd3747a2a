// rank::ComputePageRank over the graph of the latest revisions (docs/pagerank.md, "Batch"): its
// worked example, the rules one by one, and random histories against an independent
// reference written here. Seeds as in seeds.h; a failure names its seed.
#include "rank/pagerank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "gzip_file.h"
#include "pagerank_reference.h"
#include "pipeline_harness.h"
#include "rank/revision_graph.h"
#include "seeds.h"
#include "wikipedia_gen.h"

namespace webindex::rank {
namespace {

using ingest::Revision;
using ingest::WikipediaReader;
using testing::WikiRevision;

Revision Rev(std::string title, uint64_t rev_id, std::vector<std::string> links, int64_t t = 1000) {
  Revision r;
  r.title = std::move(title);
  r.rev_id = rev_id;
  r.links = std::move(links);
  r.timestamp = Instant{t, 0};
  return r;
}

//! `name score` lines as the command prints them.
std::string Ranking(const std::vector<Revision>& revs, int iterations, unsigned threads = 0,
                    std::optional<Instant> until = std::nullopt) {
  RevisionGraph rg(until);
  for (const auto& r : revs) rg.Add(r);
  const LinkGraph g = rg.Build();
  const auto scores = ComputePageRank(g, {iterations, threads});
  std::string out;
  for (uint32_t u : RankOrder(g, scores)) out += std::string(g.name(u)) + " " + FormatScore(scores[u]) + "\n";
  return out;
}

TEST(PageRankTest, TheSpecsWorkedExample) {
  const std::vector<Revision> revs = {Rev("A", 1, {"B", "C"}), Rev("B", 1, {"C"}), Rev("C", 1, {"A"}),
                                      Rev("D", 1, {"A"})};
  EXPECT_EQ(Ranking(revs, 1), "A 1.85\nC 1.425\nB 0.575\nD 0.15\n");
  EXPECT_EQ(Ranking(revs, 0), "A 1\nB 1\nC 1\nD 1\n");
}

TEST(PageRankTest, OnlyTheGreatestRevIdCountsAndAnEqualOneReplaces) {
  // B's old revision linked to C; its latest links nowhere. A's rev 5 arrives before rev 3.
  const std::vector<Revision> revs = {Rev("B", 2, {}), Rev("A", 5, {"B"}), Rev("B", 1, {"C"}),
                                      Rev("A", 3, {"C", "D"})};
  EXPECT_EQ(Ranking(revs, 1), "B 1\nA 0.15\n");
  EXPECT_EQ(Ranking({Rev("A", 5, {"B"}), Rev("A", 5, {"C"})}, 1), "C 1\nA 0.15\n");
}

TEST(PageRankTest, DuplicatesCountOnceSelfLinksCountAndReferencedTitlesAreNodes) {
  // A -> {A, B} (B twice): C(A) = 2. B has no record: a node without out-links.
  EXPECT_EQ(Ranking({Rev("A", 1, {"A", "B", "B"})}, 1), "A 0.575\nB 0.575\n");
  EXPECT_EQ(Ranking({Rev("A", 1, {"A", "B", "B"})}, 2), "A 0.394375\nB 0.394375\n");
}

TEST(PageRankTest, UntilIsInclusiveAndPicksTheGreatestRevIdBeforeIt) {
  const std::vector<Revision> revs = {Rev("A", 1, {"B"}, 100), Rev("A", 2, {"C"}, 200), Rev("D", 1, {"A"}, 300)};
  EXPECT_EQ(Ranking(revs, 1, 0, Instant{200, 0}), "C 1\nA 0.15\n");
  EXPECT_EQ(Ranking(revs, 1, 0, Instant{199, 0}), "B 1\nA 0.15\n");
  EXPECT_EQ(Ranking(revs, 1, 0, Instant{99, 0}), "");
  EXPECT_EQ(Ranking(revs, 1), "A 1\nC 1\nD 0.15\n");
}

TEST(PageRankTest, TiesAreOrderedByNameBytesAndLimitTakesTheFirst) {
  RevisionGraph rg;
  rg.Add(Rev("b", 1, {}));
  rg.Add(Rev("B", 1, {}));
  rg.Add(Rev("\xc3\xa9", 1, {}));
  rg.Add(Rev("a", 1, {"c"}));
  const LinkGraph g = rg.Build();
  const auto scores = ComputePageRank(g, {3, 1});
  std::vector<std::string> names;
  for (uint32_t u : RankOrder(g, scores)) names.emplace_back(g.name(u));
  EXPECT_EQ(names, (std::vector<std::string>{"c", "B", "a", "b", "\xc3\xa9"}));
  const auto first = RankOrder(g, scores, 2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(g.name(first[1]), "B");
}

//! The test's reference over the latest revisions (text order of the fixed-width timestamps is
//! time order), independent of RevisionGraph.
std::map<std::string, double> Reference(const std::vector<WikiRevision>& revs, const std::string& until,
                                        int iterations) {
  std::map<std::string, std::pair<uint64_t, std::vector<std::string>>> latest;
  for (const auto& r : revs) {
    if (!until.empty() && r.timestamp > until) continue;
    auto it = latest.find(r.title);
    if (it == latest.end() || r.rev_id >= it->second.first) latest[r.title] = {r.rev_id, r.links};
  }
  std::map<std::string, std::vector<std::string>> pages;
  for (const auto& [title, rev] : latest) pages[title] = rev.second;
  return testing::ReferencePageRank(pages, iterations);
}

TEST(PageRankRandomizedTest, FileThroughReaderAndGraphEqualsTheReference) {
  const std::string dir = testing::MakeTempDir("pagerank-random");
  for (uint64_t seed : testing::RandomTestSeeds({1, 2, 3, 4, 5})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun: WEBINDEX_SEEDS=" + std::to_string(seed) + ")");
    std::mt19937_64 rng(seed);
    testing::WikiGenOptions options;
    options.seed = seed;
    options.articles = 20 + rng() % 200;
    options.missing = rng() % 30;
    options.mean_links = 1 + rng() % 8;
    testing::WikiGenerator gen(options);
    const auto revs = gen.All();
    std::string text;
    for (const auto& r : revs) text += testing::FormatWikiRecord(r);
    const std::string path = dir + "/history-" + std::to_string(seed) + ".gz";
    testing::WriteFileBytes(path, testing::GzipMember(text));
    // --until at a revision's own timestamp (inclusive boundary), and none.
    const std::string until = seed % 2 ? revs[rng() % revs.size()].timestamp : "";
    const int iterations = static_cast<int>(rng() % 12);
    SCOPED_TRACE("until '" + until + "', " + std::to_string(iterations) + " iterations");

    RevisionGraph rg(until.empty() ? std::nullopt : ParseRfc3339(until));
    auto reader = WikipediaReader::Open(path);
    ASSERT_TRUE(reader.ok());
    Revision rev;
    for (;;) {
      auto more = (*reader)->Next(&rev);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      rg.Add(rev);
    }
    const LinkGraph g = rg.Build();
    const auto scores = ComputePageRank(g, {iterations, 2});
    const auto expected = Reference(revs, until, iterations);
    ASSERT_EQ(g.nodes(), expected.size());
    for (size_t u = 0; u < g.nodes(); ++u) {
      auto it = expected.find(std::string(g.name(u)));
      ASSERT_NE(it, expected.end()) << g.name(u);
      EXPECT_NEAR(scores[u], it->second, 1e-12 * it->second) << g.name(u);
    }
    // Thread counts never change a bit of the result.
    for (unsigned threads : {1u, 3u}) EXPECT_EQ(ComputePageRank(g, {iterations, threads}), scores);
  }
  std::filesystem::remove_all(dir);
}

TEST(PageRankTest, ManyThreadsOnALargerGraphGiveTheSameBits) {
  testing::WikiGenOptions options;
  options.articles = 20000;
  options.mean_links = 6;
  options.plain_titles = true;
  options.shuffle = false;
  testing::WikiGenerator gen(options);
  RevisionGraph rg;
  std::vector<WikiRevision> article;
  while (gen.NextArticle(&article)) {
    for (const auto& r : article) rg.Add(Rev(r.title, r.rev_id, r.links));
  }
  const LinkGraph g = rg.Build();
  ASSERT_GT(g.edges(), 100000u);
  const auto one = ComputePageRank(g, {10, 1});
  for (unsigned threads : {2u, 4u, 7u}) EXPECT_EQ(ComputePageRank(g, {10, threads}), one) << threads;
}

}  // namespace
}  // namespace webindex::rank
