// Who serves a shard of a partitioned table (app/table_members.h): the member advertising it in
// the newest group generation, then the newest word; stale words, other groups' and this
// member's own do not count; records round-trip and malformed ones are refused.
#include <gtest/gtest.h>

#include "app/table_members.h"

namespace webindex::app {
namespace {

TableMemberRecord Word(std::string member, std::set<int32_t> shards, int32_t generation, int64_t at_ms,
                       std::string group = "crawl.table") {
  return {std::move(group), member, member + ":8080", std::move(shards), generation, at_ms};
}

TEST(TableMembersTest, AShardIsAskedFromTheMemberServingItInTheNewestGeneration) {
  const int64_t now = 100000;
  std::vector<TableMemberRecord> words = {
      Word("a", {0, 1}, 5, now - 1000),
      Word("b", {1, 2}, 7, now - 2000),   // took shard 1 over from a in a later generation
      Word("c", {3}, 9, now - 40000),     // stale: killed long ago
      Word("d", {3}, 9, now, "other.table"),
      Word("self", {0, 3}, 9, now),
  };
  auto owner = [&](int32_t shard) {
    const TableMemberRecord* r = OwnerOf(words, "crawl.table", "self", shard, now, 30000);
    return r ? r->member : std::string("-");
  };
  EXPECT_EQ(owner(0), "a");
  EXPECT_EQ(owner(1), "b");
  EXPECT_EQ(owner(2), "b");
  EXPECT_EQ(owner(3), "-");
  words.push_back(Word("e", {0}, 5, now - 10));  // same generation as a, newer word
  EXPECT_EQ(owner(0), "e");
}

TEST(TableMembersTest, RecordsRoundTripAndMalformedOnesAreRefused) {
  TableMemberRecord r = Word("m\"1", {0, 7, 12}, 3, 1234567);
  r.pagerank_result = 41;
  auto back = DecodeTableMemberRecord(EncodeTableMemberRecord(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  for (const char* bad : {"", "[]", R"({"member":"a"})", R"({"member":"a","shards":[-1]})",
                          R"({"member":"a","shards":"0"})", R"({"member":1,"shards":[]})",
                          R"({"member":"a","shards":[],"pagerank_result":-1})"}) {
    EXPECT_FALSE(DecodeTableMemberRecord(bad).ok()) << bad;
  }
  auto later = DecodeTableMemberRecord(R"({"member":"a","shards":[],"generation":2,"at_ms":5,"zone":"x"})");
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->shards.empty());
  EXPECT_EQ(later->pagerank_result, 0u) << "a word of an earlier version names no PageRank result";
}

}  // namespace
}  // namespace webindex::app
