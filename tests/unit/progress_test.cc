// common/progress.h: the status line's numbers, and how often it is refreshed.
#include "common/progress.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace webindex {
namespace {

TEST(ProgressTest, FormatDuration) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(9.4), "0:09");
  EXPECT_EQ(FormatDuration(61), "1:01");
  EXPECT_EQ(FormatDuration(3600 + 2 * 60 + 3), "1:02:03");
  EXPECT_EQ(FormatDuration(-5), "0:00");
}

TEST(ProgressTest, LineWithKnownTotalHasPercentAndEta) {
  Progress::Options options;
  options.total_bytes = 40'000'000;
  options.terminal = false;
  Progress p(options);
  // 10 MB of 40 MB in 5 s: 2 MB/s, 30 MB left -> 15 s.
  EXPECT_EQ(p.Line(2000, 10'000'000, 5.0), "2000 records, 10.0 MB read, 400 records/s, 2.0 MB/s, 25%, ETA 0:15");
  EXPECT_EQ(p.Line(0, 0, 0.0), "0 records, 0.0 MB read, 0 records/s, 0.0 MB/s, 0%");
  EXPECT_EQ(p.Line(9, 50'000'000, 10.0), "9 records, 50.0 MB read, 1 records/s, 5.0 MB/s, 100%, ETA 0:00");
}

TEST(ProgressTest, LineWithUnknownTotalHasNoEta) {
  Progress::Options options;
  options.unit = "lines";
  options.terminal = false;
  Progress p(options);
  EXPECT_EQ(p.Line(300, 1'500'000, 3.0), "300 lines, 1.5 MB read, 100 lines/s, 0.5 MB/s");
}

TEST(ProgressTest, UpdatesAreThrottledToTheInterval) {
  std::vector<std::string> lines;
  Progress::Options options;
  options.terminal = true;
  options.terminal_interval = std::chrono::milliseconds(50);
  options.sink = [&](const std::string& line) { lines.push_back(line); };
  Progress p(options);
  EXPECT_TRUE(p.terminal());
  for (int i = 0; i < 1000; ++i) p.Update(i, i);  // well within the first interval
  EXPECT_TRUE(lines.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  p.Update(1000, 1000);
  p.Update(1001, 1001);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("1000 records, 0.0 MB read")) << lines[0];
  p.Finish();
  p.Finish();  // idempotent
}

TEST(ProgressTest, LogModeUsesTheLongerInterval) {
  std::vector<std::string> lines;
  Progress::Options options;
  options.terminal = false;
  options.terminal_interval = std::chrono::milliseconds(1);
  options.log_interval = std::chrono::milliseconds(10000);
  options.sink = [&](const std::string& line) { lines.push_back(line); };
  Progress p(options);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  p.Update(1, 1);
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace webindex
