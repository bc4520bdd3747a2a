// The generations of a consumer group (app/group_generations.h): the control records' encoding
// and how a member folds them into the current generation, the build in force and whether a
// runner may trim its changelog.
#include "app/group_generations.h"

#include <gtest/gtest.h>

namespace webindex::app {
namespace {

using State = GroupGeneration::State;

GroupGeneration Record(uint64_t gen, State state, int64_t from_ms = -1) {
  GroupGeneration g;
  g.generation = gen;
  g.state = state;
  g.from_ms = from_ms;
  return g;
}

TEST(GroupGenerationsTest, RecordsRoundTripAndBadOnesAreRefusedWithTheReason) {
  GroupGeneration g = Record(7, State::kBuilding, 1795000000000);
  g.indexes = "+temporal,-freetext";
  g.switch_lag = 0;
  g.at_ms = 1796000000123;
  const std::string json = EncodeGroupGeneration(g);
  EXPECT_EQ(json,
            R"({"generation":7,"state":"building","from_ms":1795000000000,"indexes":"+temporal,-freetext",)"
            R"("switch_lag":0,"at_ms":1796000000123})");
  auto back = DecodeGroupGeneration(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, g);
  // Keys a later version adds are passed over.
  auto later = DecodeGroupGeneration(R"({"state":"switched","generation":3,"owner":"x"})");
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->generation, 3u);
  EXPECT_EQ(later->state, State::kSwitched);
  for (const char* bad : {"", "[]", R"({"generation":3})", R"({"generation":0,"state":"switched"})",
                          R"({"generation":3,"state":"done"})", R"({"generation":"3","state":"switched"})"}) {
    auto r = DecodeGroupGeneration(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("group generation record"), std::string::npos);
    }
  }
}

TEST(GroupGenerationsTest, ABuildRunsUntilItIsSwitchedToOrAborted) {
  constexpr int64_t kNow = 1796000000000;
  GroupGenerations g;
  EXPECT_EQ(g.current, 1u);
  EXPECT_FALSE(g.building);
  EXPECT_TRUE(g.TrimsAllowed(1, kNow));

  g.Apply(Record(2, State::kBuilding, 100));
  ASSERT_TRUE(g.building);
  EXPECT_EQ(g.building->generation, 2u);
  EXPECT_EQ(g.current, 1u);
  // Nobody trims while two generations share the changelogs.
  EXPECT_FALSE(g.TrimsAllowed(1, kNow));
  EXPECT_FALSE(g.TrimsAllowed(2, kNow));

  g.Apply(Record(2, State::kAborted));
  EXPECT_FALSE(g.building);
  EXPECT_EQ(g.highest, 2u) << "the next build takes 3: the changelogs may hold records of the aborted 2";
  EXPECT_TRUE(g.TrimsAllowed(1, kNow));
  EXPECT_FALSE(g.TrimsAllowed(2, kNow)) << "an aborted generation's runners (still stopping) never trim";

  g.Apply(Record(3, State::kBuilding, 200));
  g.Apply(Record(2, State::kAborted));  // a late abort of an older build changes nothing
  ASSERT_TRUE(g.building);
  EXPECT_EQ(g.building->generation, 3u);
  GroupGeneration switched = Record(3, State::kSwitched, 200);
  switched.at_ms = kNow;
  g.Apply(switched);
  EXPECT_FALSE(g.building);
  EXPECT_EQ(g.current, 3u);
  ASSERT_TRUE(g.current_record);
  EXPECT_EQ(g.current_record->from_ms, 200);
  EXPECT_FALSE(g.TrimsAllowed(1, kNow)) << "the retiring generation's records may be before the new one's";
  // Members stop the retired generation's stages when they read the switch; until all surely
  // have, one could still restore a task of it from the changelog.
  EXPECT_FALSE(g.TrimsAllowed(3, kNow + 1000));
  EXPECT_FALSE(g.TrimsAllowed(3, kNow + GroupGenerations::kRetireGraceMs - 1));
  EXPECT_TRUE(g.TrimsAllowed(3, kNow + GroupGenerations::kRetireGraceMs));

  // Records of the past never move the group back.
  g.Apply(Record(2, State::kSwitched));
  EXPECT_EQ(g.current, 3u);
  g.Apply(Record(3, State::kBuilding));
  EXPECT_FALSE(g.building) << "a build of the current generation";
}

// Compaction keeps the last record of each key: the current generation and the last build are
// kept apart, so no number of builds and aborts after a switch can push the switch out.
TEST(GroupGenerationsTest, SwitchesAndBuildsAreKeptUnderKeysOfTheirOwn) {
  EXPECT_EQ(GenerationKey("crawl", State::kSwitched), "current:crawl");
  EXPECT_EQ(GenerationKey("crawl", State::kBuilding), "build:crawl");
  EXPECT_EQ(GenerationKey("crawl", State::kAborted), "build:crawl");
  // What compaction leaves of "switched 3, building 4, aborted 4, building 5, aborted 5", in log
  // order: the switch and the last abort.
  GroupGenerations g;
  g.Apply(Record(3, State::kSwitched));
  g.Apply(Record(5, State::kAborted));
  EXPECT_EQ(g.current, 3u);
  EXPECT_FALSE(g.building);
}

TEST(GroupGenerationsTest, EachGenerationsStagesFormGroupsOfTheirOwn) {
  EXPECT_EQ(GroupGenerations::GroupIdOf("crawl", 1, "page"), "crawl.page") << "as before generations";
  EXPECT_EQ(GroupGenerations::GroupIdOf("crawl", 2, "uri"), "crawl.g2.uri");
  EXPECT_EQ(GroupGenerations::GroupIdOf("crawl", 12, "domain"), "crawl.g12.domain");
}

}  // namespace
}  // namespace webindex::app
