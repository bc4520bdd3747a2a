// common/progress.h: the status line's numbers, how often it is refreshed, and that log lines
// never share its terminal line.
#include "common/progress.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/log.h"

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

TEST(ProgressTest, LineWithARecordTotalAndALabel) {
  Progress::Options options;
  options.total_records = 1000;
  options.label = "bulk graph build, read";
  options.terminal = false;
  Progress p(options);
  // 250 of 1,000 records in 5 s: 50 records/s, 750 left -> 15 s.
  EXPECT_EQ(p.Line(250, 2'000'000, 5.0),
            "bulk graph build, read: 250 records, 2.0 MB read, 50 records/s, 0.4 MB/s, 25%, ETA 0:15");
}

TEST(ProgressTest, ANoteEndsTheLineAndIsAskedOnlyWhenALineIsMade) {
  std::vector<std::string> lines;
  Progress::Options options;
  options.terminal = false;
  options.log_interval = std::chrono::milliseconds(50);
  options.sink = [&](const std::string& line) { lines.push_back(line); };
  Progress p(options);
  int asked = 0;
  auto note = [&] { return ++asked, std::string("sort runs on disk 1.5 MB"); };
  p.Update(1, 1, note);  // within the first interval: no line, no note
  EXPECT_EQ(asked, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  p.Update(2, 2, note);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(lines[0].ends_with(", sort runs on disk 1.5 MB")) << lines[0];
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

//! What `body` writes to stderr (fd 2, as the terminal would receive it), from every thread.
std::string CaptureStderr(const std::function<void()>& body) {
  std::fflush(stderr);
  char path[] = "/tmp/webindex-stderr-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  const int saved = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(fd);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  return text.str();
}

TEST(ProgressTest, LogLinesTakeTheTerminalLineAwayAndDrawItAgain) {
  InitLogging("info");
  const std::string out = CaptureStderr([] {
    Progress::Options options;
    options.terminal = true;
    options.terminal_interval = std::chrono::milliseconds(0);
    options.total_bytes = 100;
    Progress p(options);
    p.Update(5, 50);
    std::thread([] { LOG_WARN("the broker is slow"); }).join();  // another thread's, as librdkafka's are
    p.Update(6, 60);
    p.Finish();
    LOG_INFO("done");
  });
  std::vector<std::string> lines;  // as the terminal ends them
  std::stringstream split(out);
  for (std::string line; std::getline(split, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u) << out;
  // The progress line, erased, then the log line from the first column.
  EXPECT_TRUE(lines[0].starts_with("\r5 records, 0.0 MB read")) << lines[0];
  const size_t erased = lines[0].rfind("\r\033[K");
  ASSERT_NE(erased, std::string::npos) << "the log line follows the progress line on it: " << lines[0];
  const std::string log_line = lines[0].substr(erased + 4);
  EXPECT_TRUE(log_line.starts_with("20")) << log_line;  // its timestamp
  EXPECT_TRUE(log_line.ends_with("the broker is slow")) << log_line;
  // Below it the progress line again, then its next state, then erased for good before "done".
  EXPECT_TRUE(lines[1].starts_with("\r5 records, 0.0 MB read")) << lines[1];
  EXPECT_NE(lines[1].find("\r6 records, 0.0 MB read"), std::string::npos) << lines[1];
  EXPECT_TRUE(lines[1].ends_with("done")) << lines[1];
  const size_t last = lines[1].rfind("\r\033[K");
  ASSERT_NE(last, std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].substr(last + 4).find("records"), std::string::npos) << lines[1];
  EXPECT_TRUE(out.ends_with("done\n")) << "drawn again after it finished: " << out;
}

}  // namespace
}  // namespace webindex
