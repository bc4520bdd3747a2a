// NextEpoch: a claim's epoch carries its claimer's group generation, so that a claim of a later
// generation outranks every claim of an earlier one (docs/scale-out.md §5).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "pipeline/fence.h"

namespace webindex::pipeline {
namespace {

constexpr uint64_t Gen(uint64_t generation) { return generation << 32; }

TEST(ClaimEpochTest, WithoutAGroupTheNextEpochIsOneMore) {
  EXPECT_EQ(NextEpoch(0, -1), std::optional<uint64_t>(1));
  EXPECT_EQ(NextEpoch(7, 0), std::optional<uint64_t>(8));
  EXPECT_EQ(NextEpoch(Gen(9) + 2, -1), std::optional<uint64_t>(Gen(9) + 3));
}

TEST(ClaimEpochTest, AClaimOfALaterGenerationOutranksEveryClaimOfAnEarlierOne) {
  EXPECT_EQ(NextEpoch(0, 5), std::optional<uint64_t>(Gen(5)));
  EXPECT_EQ(NextEpoch(3, 5), std::optional<uint64_t>(Gen(5))) << "epochs claimed outside a group";
  EXPECT_EQ(NextEpoch(Gen(4) + 17, 5), std::optional<uint64_t>(Gen(5)));
  EXPECT_EQ(NextEpoch(Gen(5), 5), std::optional<uint64_t>(Gen(5) + 1)) << "a claim again in one generation";
  EXPECT_EQ(NextEpoch(Gen(5) + 1, 6), std::optional<uint64_t>(Gen(6)));
  EXPECT_GT(*NextEpoch(Gen(5) + 1000, 6), *NextEpoch(Gen(4), 5));
}

// Logs name epochs as a person can follow them, not as 64-bit numbers (12884901888).
TEST(ClaimEpochTest, EpochsAreDescribedWithTheirGroupGeneration) {
  EXPECT_EQ(DescribeEpoch(0), "0");
  EXPECT_EQ(DescribeEpoch(7), "7");
  EXPECT_EQ(DescribeEpoch(Gen(3)), "0 of group generation 3");
  EXPECT_EQ(DescribeEpoch(Gen(2) + 5), "5 of group generation 2");
}

TEST(ClaimEpochTest, AClaimerOfAnEarlierGenerationGetsNoEpoch) {
  EXPECT_EQ(NextEpoch(Gen(6), 5), std::nullopt);
  EXPECT_EQ(NextEpoch(Gen(6) + 3, 1), std::nullopt);
}

}  // namespace
}  // namespace webindex::pipeline
