// RateMeter: events per second over the last window of samples, none before a second of
// samples or after sampling stopped.
#include <gtest/gtest.h>

#include "pipeline/rate_meter.h"

namespace webindex::pipeline {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RateMeterTest, RateOverTheLastWindow) {
  RateMeter meter(seconds(10), seconds(5));
  const auto t0 = RateMeter::Clock::time_point() + seconds(1000);
  EXPECT_FALSE(meter.Get(t0));
  meter.Sample(t0, 0);
  EXPECT_FALSE(meter.Get(t0));
  meter.Sample(t0 + milliseconds(500), 50);
  EXPECT_FALSE(meter.Get(t0 + milliseconds(500))) << "less than a second of samples";
  meter.Sample(t0 + seconds(2), 200);
  auto r = meter.Get(t0 + seconds(2));
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->per_second, 100);
  EXPECT_DOUBLE_EQ(r->seconds, 2);
  // 100/s for 20 s, then 1000/s for 10 s: the window sees only the last 10 s.
  uint64_t count = 200;
  for (int s = 3; s <= 20; ++s) meter.Sample(t0 + seconds(s), count += 100);
  for (int s = 21; s <= 30; ++s) meter.Sample(t0 + seconds(s), count += 1000);
  r = meter.Get(t0 + seconds(30));
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->per_second, 1000);
  EXPECT_DOUBLE_EQ(r->seconds, 10);
  // Sampling stopped: no rate rather than an old one.
  EXPECT_TRUE(meter.Get(t0 + seconds(35)));
  EXPECT_FALSE(meter.Get(t0 + seconds(36)));
}

}  // namespace
}  // namespace webindex::pipeline
