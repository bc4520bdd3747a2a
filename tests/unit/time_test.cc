#include "common/time.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace webindex {
namespace {

constexpr int64_t kNanos = 1000000000;

TEST(TimeTest, Epoch) { EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z"), 0); }

TEST(TimeTest, UtcDate) { EXPECT_EQ(ParseRfc3339("2015-07-28T03:06:17Z"), int64_t{1438052777} * kNanos); }

TEST(TimeTest, Offsets) {
  EXPECT_EQ(ParseRfc3339("2015-07-28T05:06:17+02:00"), int64_t{1438052777} * kNanos);
  EXPECT_EQ(ParseRfc3339("2015-07-27T21:36:17-05:30"), int64_t{1438052777} * kNanos);
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00+00:00"), 0);
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00-00:00"), 0);
}

TEST(TimeTest, Fraction) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00.5Z"), kNanos / 2);
  EXPECT_EQ(ParseRfc3339("2015-07-28T03:06:17.123456789Z"), int64_t{1438052777} * kNanos + 123456789);
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:01.25+00:00"), kNanos + kNanos / 4);
}

TEST(TimeTest, LowercaseSeparators) {
  EXPECT_EQ(ParseRfc3339("2015-07-28t03:06:17z"), int64_t{1438052777} * kNanos);
  EXPECT_EQ(ParseRfc3339("2015-07-28t03:06:17Z"), ParseRfc3339("2015-07-28T03:06:17z"));
}

TEST(TimeTest, SameInstantDifferentSpelling) {
  EXPECT_EQ(ParseRfc3339("2015-07-28T03:06:17Z"), ParseRfc3339("2015-07-28T03:06:17.000+00:00"));
  EXPECT_LT(*ParseRfc3339("2015-07-28T03:06:17+01:00"), *ParseRfc3339("2015-07-28T03:06:17Z"));
}

TEST(TimeTest, LeapDay) {
  EXPECT_TRUE(ParseRfc3339("2016-02-29T00:00:00Z").has_value());
  EXPECT_TRUE(ParseRfc3339("2000-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2015-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("1900-02-29T00:00:00Z").has_value());
}

TEST(TimeTest, Invalid) {
  for (const char* text :
       {"2015-07-28T03:06:17", "2015-02-30T00:00:00Z", "2015-13-01T00:00:00Z", "2015-00-01T00:00:00Z",
        "2015-01-00T00:00:00Z", "2015-07-28T24:00:00Z", "2015-07-28T03:60:00Z", "garbage", "", "2015-07-28T03:06:17Zx",
        "2015-07-28T03:06:17+02:00x", "2015-07-28 03:06:17Z", "2015-07-28T03:06:17.Z", "2015-07-28T03:06:17+0200",
        "2015-07-28T03:06:17+2:00", "15-07-28T03:06:17Z", "2015-7-28T03:06:17Z"}) {
    EXPECT_FALSE(ParseRfc3339(text).has_value()) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace webindex
