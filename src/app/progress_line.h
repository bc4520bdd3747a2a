// The `progress:` log line of a run: the few figures a person watches (events and exports
// applied per second, statements per second when statements come, the input lag, dead letters),
// and the counters that say something went wrong, when they moved. Written only when something
// moved since the last line: an idle run stays quiet. Every counter is in /metrics; the line at a
// stop gives each one that is not zero.
// One caller thread (the run loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/metrics.h"

namespace webindex::app {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  //! Rates of the first line are since `start`.
  explicit ProgressLine(Clock::time_point start = Clock::now()) : last_at_(start) {}

  //! The line for `metrics` at `now`, `lag` the records the stages have left to read (nullopt:
  //! unknown); nullopt when no counter moved and the lag is what it was at the last line.
  std::optional<std::string> Next(const pipeline::Metrics& metrics, std::optional<int64_t> lag, Clock::time_point now);
  //! Every counter that is not zero, "name=value" (for the line at a stop).
  static std::string Totals(const pipeline::Metrics& metrics);

 private:
  std::vector<std::pair<std::string_view, uint64_t>> last_;  // empty before the first line: zeros
  std::optional<int64_t> last_lag_;
  Clock::time_point last_at_;
};

}  // namespace webindex::app
