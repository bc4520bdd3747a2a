// The run's `progress:` line (app/progress_line.h): rates and lag when something moved, nothing
// when nothing did, and the counters that say something went wrong when they change.
#include "app/progress_line.h"

#include <gtest/gtest.h>

namespace webindex::app {
namespace {

using Clock = ProgressLine::Clock;
using namespace std::chrono_literals;

TEST(ProgressLineTest, RatesLagAndDeadLettersWhenSomethingMovedNothingWhenIdle) {
  pipeline::Metrics m;
  const auto t0 = Clock::now();
  ProgressLine line(t0 - 5s);
  m.events = 500;
  EXPECT_EQ(line.Next(m, 0, t0), "100 events/s (500 in all), 0 exports applied/s, lag 0 records")
      << "the first line's rates are since the start";
  EXPECT_EQ(line.Next(m, 0, t0 + 5s), std::nullopt) << "an idle run logs nothing";
  m.events = 10'500;
  m.exports = 2'500;
  EXPECT_EQ(line.Next(m, 1'234'567, t0 + 10s),
            "1,000 events/s (10,500 in all), 250 exports applied/s, lag 1,234,567 records");
  EXPECT_EQ(line.Next(m, 1'234'567, t0 + 15s), std::nullopt);
  EXPECT_EQ(line.Next(m, std::nullopt, t0 + 20s),
            "0 events/s (10,500 in all), 0 exports applied/s, lag unknown")
      << "a lag that changed is news";
  m.triple_records = 3;
  m.statements_added = 600;
  m.dead_lettered = 2;
  EXPECT_EQ(line.Next(m, std::nullopt, t0 + 25s),
            "0 events/s (10,500 in all), 0 exports applied/s, 120 statements/s, lag unknown; 2 dead letters");
}

TEST(ProgressLineTest, CountersThatSaySomethingWentWrongShowWhenTheyChange) {
  pipeline::Metrics m;
  const auto t0 = Clock::now();
  ProgressLine line(t0);
  EXPECT_EQ(line.Next(m, 0, t0), "0 events/s (0 in all), 0 exports applied/s, lag 0 records");
  m.fenced_records = 12;
  m.invalid_events = 1;
  m.dropped_links = 40;  // ordinary: in /metrics and the totals only
  EXPECT_EQ(line.Next(m, 0, t0 + 5s), "0 events/s (0 in all), 0 exports applied/s, lag 0 records; invalid=1 fenced=12");
  m.events = 5;
  EXPECT_EQ(line.Next(m, 0, t0 + 10s), "1 events/s (5 in all), 0 exports applied/s, lag 0 records");
  EXPECT_EQ(ProgressLine::Totals(m), "events=5 invalid=1 dropped_links=40 fenced=12");
  EXPECT_EQ(ProgressLine::Totals(pipeline::Metrics()), "nothing read");
}

}  // namespace
}  // namespace webindex::app
