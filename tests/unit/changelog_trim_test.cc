// SnapshotTrims: a task's changelog may be trimmed to the begin of its newest snapshot whose every
// record was acknowledged, and only past its last trim.
#include "pipeline/changelog_trim.h"

#include <gtest/gtest.h>

#include <map>

namespace webindex::pipeline {
namespace {

using Part = SnapshotTrims::Part;

//! Sends a snapshot of `task` whose records land at offsets [begin, begin + rows + 2), and acks
//! them in order; `failed_row` >= 0 fails that row.
void Deliver(SnapshotTrims& trims, int32_t task, uint64_t epoch, int64_t begin, int rows, int failed_row = -1) {
  const uint64_t id = trims.Begin(task, epoch);
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kBegin), Status::Ok(), begin);
  for (int i = 0; i < rows; ++i) {
    const bool fail = i == failed_row;
    trims.OnDelivered(SnapshotTrims::Tag(id, Part::kRow), fail ? Status::Unavailable("gone") : Status::Ok(),
                      fail ? -1 : begin + 1 + i);
  }
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kEnd), Status::Ok(), begin + 1 + rows);
}

std::map<int32_t, int64_t> Points(const SnapshotTrims& trims) {
  std::map<int32_t, int64_t> out;
  for (const auto& [task, due] : trims.Ready()) out[task] = due.before;
  return out;
}

TEST(SnapshotTrimsTest, ATaskIsTrimmedToItsNewestCompleteSnapshot) {
  SnapshotTrims trims;
  EXPECT_TRUE(trims.Ready().empty());
  Deliver(trims, 0, 1, 10, 3);
  Deliver(trims, 1, 4, 7, 0);
  Deliver(trims, 0, 1, 40, 2);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{0, 40}, {1, 7}}));
  EXPECT_EQ(trims.Ready().at(1).epoch, 4u);
  trims.Trimmed(0, 40);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{1, 7}}));
  trims.Trimmed(1, 7);
  EXPECT_TRUE(trims.Ready().empty()) << "a trim is asked for once";
  Deliver(trims, 0, 1, 90, 1);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{0, 90}}));
}

TEST(SnapshotTrimsTest, ASnapshotNotWhollyAcknowledgedTrimsNothing) {
  SnapshotTrims trims;
  Deliver(trims, 0, 1, 10, 5, /*failed_row=*/2);
  EXPECT_TRUE(trims.Ready().empty()) << "a snapshot with a lost row is not one a restore can begin at";
  // Sent, the end not acknowledged yet.
  const uint64_t id = trims.Begin(0, 1);
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kBegin), Status::Ok(), 30);
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kRow), Status::Ok(), 31);
  EXPECT_TRUE(trims.Ready().empty());
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kEnd), Status::Ok(), 32);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{0, 30}}));
  // The begin record failed: no offset to trim to, whatever follows.
  const uint64_t torn = trims.Begin(0, 1);
  trims.OnDelivered(SnapshotTrims::Tag(torn, Part::kBegin), Status::Unavailable("gone"), -1);
  trims.OnDelivered(SnapshotTrims::Tag(torn, Part::kEnd), Status::Ok(), 60);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{0, 30}}));
}

TEST(SnapshotTrimsTest, AnOlderSnapshotCompletingLastDoesNotMoveTheTrimBack) {
  SnapshotTrims trims;
  const uint64_t older = trims.Begin(2, 1);
  trims.OnDelivered(SnapshotTrims::Tag(older, Part::kBegin), Status::Ok(), 5);
  Deliver(trims, 2, 1, 20, 1);
  trims.OnDelivered(SnapshotTrims::Tag(older, Part::kEnd), Status::Ok(), 6);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{2, 20}}));
}

TEST(SnapshotTrimsTest, ATaskGivenUpForgetsItsSnapshotsEvenThoseStillInFlight) {
  SnapshotTrims trims;
  Deliver(trims, 3, 1, 10, 1);
  const uint64_t id = trims.Begin(3, 1);
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kBegin), Status::Ok(), 20);
  trims.Forget(3);
  EXPECT_TRUE(trims.Ready().empty());
  trims.OnDelivered(SnapshotTrims::Tag(id, Part::kEnd), Status::Ok(), 21);
  EXPECT_TRUE(trims.Ready().empty()) << "a snapshot of an ownership given up was trimmed to";
  // Taken back: its new snapshots count, from no earlier trim.
  Deliver(trims, 3, 2, 50, 0);
  EXPECT_EQ(Points(trims), (std::map<int32_t, int64_t>{{3, 50}}));
}

}  // namespace
}  // namespace webindex::pipeline
