// FlowControl's accounting: backlog per partition from what was unread at the start, written
// and read, and the input a writer may take.
#include "pipeline/flow_control.h"

#include <gtest/gtest.h>

namespace webindex::pipeline {
namespace {

TEST(FlowControlTest, BacklogCountsWhatWasUnreadAtTheStartAndWhatIsWrittenAndRead) {
  FlowControl flow(1000);
  FlowControl::Topic* t = flow.Watch("t", 2);
  EXPECT_EQ(flow.Watch("t", 2), t);
  EXPECT_EQ(flow.Find("other"), nullptr);
  FlowControl::Resync(t, 0, 3);  // 3 records unread at the start, weighed at the average
  for (int i = 0; i < 4; ++i) FlowControl::Add(t, 0, 100 - FlowControl::kRecordOverhead);
  EXPECT_EQ(t->Backlog(0), 400u + 3 * 100);
  EXPECT_EQ(t->Backlog(1), 0u);
  // The reader commits the 3 old records and 1 new one: the old ones weigh nothing in `added`.
  FlowControl::Take(t, 0, 4, 4 * (100 - FlowControl::kRecordOverhead));
  EXPECT_EQ(t->Backlog(0), 300u);
  EXPECT_EQ(t->MaxBacklog(), 300u);
  // Room: 700 bytes left; 100 bytes per input record over 2 partitions, counted twice: 7 records.
  EXPECT_EQ(flow.Room({{t, 100.0}}, 1000), 7u);
  EXPECT_EQ(flow.Room({{t, 100.0}}, 5), 5u);
  EXPECT_EQ(flow.Room({{t, 0.0}}, 1000), 1000u);  // writes nothing there: no limit from it
  for (int i = 0; i < 7; ++i) FlowControl::Add(t, 0, 100 - FlowControl::kRecordOverhead);
  EXPECT_EQ(flow.Room({{t, 0.0}}, 1000), 0u);  // full: nobody writing it takes more input
}

TEST(FlowControlTest, ResyncReplacesTheCountByWhatTheBrokerSaysIsUnread) {
  FlowControl flow(1000);
  FlowControl::Topic* t = flow.Watch("t", 1);
  // A record the broker rejected (or deleted) was counted as written and is never read.
  FlowControl::Add(t, 0, 900 - FlowControl::kRecordOverhead);
  EXPECT_EQ(flow.Room({{t, 10.0}}, 100), 5u);
  FlowControl::Resync(t, 0, 0);  // the broker: nothing unread
  EXPECT_EQ(t->Backlog(0), 0u);
  EXPECT_EQ(flow.Room({{t, 10.0}}, 100), 50u);
  // Counting goes on from there: 2 records unread at the resync, weighed at the average (900).
  FlowControl::Resync(t, 0, 2);
  EXPECT_EQ(t->Backlog(0), 1800u);
  FlowControl::Take(t, 0, 1, 900 - FlowControl::kRecordOverhead);
  EXPECT_EQ(t->Backlog(0), 900u);
}

TEST(FlowControlTest, WritersShareTheRoomAndOneRecordAlwaysFitsWhileThereIsRoom) {
  FlowControl flow(1000);
  FlowControl::Topic* t = flow.Watch("t", 1);
  FlowControl::AddWriter(t);
  FlowControl::AddWriter(t);
  // 1000 bytes of room, 500 each; 50 bytes per input record counted twice: 5 records.
  EXPECT_EQ(flow.Room({{t, 50.0}}, 100), 5u);
  // One input record that becomes more than the room still goes, alone, while there is room.
  EXPECT_EQ(flow.Room({{t, 5000.0}}, 100), 1u);
}

}  // namespace
}  // namespace webindex::pipeline
