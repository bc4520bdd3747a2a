#include "common/time.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace webindex {
namespace {

Instant At(int64_t seconds, int32_t nanos = 0) { return Instant{seconds, nanos}; }

TEST(TimeTest, Epoch) { EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z"), At(0)); }

TEST(TimeTest, UtcDate) { EXPECT_EQ(ParseRfc3339("2015-07-28T03:06:17Z"), At(1438052777)); }

TEST(TimeTest, Offsets) {
  EXPECT_EQ(ParseRfc3339("2015-07-28T05:06:17+02:00"), At(1438052777));
  EXPECT_EQ(ParseRfc3339("2015-07-27T21:36:17-05:30"), At(1438052777));
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00+00:00"), At(0));
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00-00:00"), At(0));
}

TEST(TimeTest, Fraction) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00.5Z"), At(0, 500000000));
  EXPECT_EQ(ParseRfc3339("2015-07-28T03:06:17.123456789Z"), At(1438052777, 123456789));
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:01.25+00:00"), At(1, 250000000));
}

TEST(TimeTest, LowercaseSeparators) {
  EXPECT_EQ(ParseRfc3339("2015-07-28t03:06:17z"), At(1438052777));
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

TEST(TimeTest, EveryYearKeepsOrder) {
  EXPECT_EQ(ParseRfc3339("0000-01-01T00:00:00Z"), At(-62167219200));
  EXPECT_EQ(ParseRfc3339("9999-12-31T23:59:59.999999999Z"), At(253402300799, 999999999));
  EXPECT_LT(*ParseRfc3339("2262-04-11T23:47:16Z"), *ParseRfc3339("2262-04-11T23:47:17Z"));
  EXPECT_LT(*ParseRfc3339("1600-01-01T00:00:00Z"), *ParseRfc3339("2300-01-01T00:00:00Z"));
  EXPECT_LT(*ParseRfc3339("1969-12-31T23:59:59.5Z"), *ParseRfc3339("1970-01-01T00:00:00Z"));
}

TEST(TimeTest, Invalid) {
  for (const char* text :
       {"2015-07-28T03:06:17", "2015-02-30T00:00:00Z", "2015-13-01T00:00:00Z", "2015-00-01T00:00:00Z",
        "2015-01-00T00:00:00Z", "2015-07-28T24:00:00Z", "2015-07-28T03:60:00Z", "garbage", "", "2015-07-28T03:06:17Zx",
        "2015-07-28T03:06:17+02:00x", "2015-07-28 03:06:17Z", "2015-07-28T03:06:17.Z", "2015-07-28T03:06:17+0200",
        "2015-07-28T03:06:17+2:00", "15-07-28T03:06:17Z", "2015-7-28T03:06:17Z",
        "2015-07-28T03:06:17.1234567891Z"}) {  // finer than the nanoseconds an Instant holds
    EXPECT_FALSE(ParseRfc3339(text).has_value()) << "'" << text << "'";
  }
}

TEST(TimeTest, FormatsMillisecondsAsRfc3339InUtc) {
  EXPECT_EQ(FormatRfc3339Ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Ms(1793491200000), "2026-11-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Ms(1438052777250), "2015-07-28T03:06:17.250Z");
  EXPECT_EQ(FormatRfc3339Ms(-1), "1969-12-31T23:59:59.999Z");
  // Round trip through the parser.
  EXPECT_EQ(ParseRfc3339(FormatRfc3339Ms(1795244400123)), (Instant{1795244400, 123000000}));
}

}  // namespace
}  // namespace webindex
