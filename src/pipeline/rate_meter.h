// RateMeter: how fast a growing counter (events consumed) grew over the last seconds, from
// samples taken about once a second. The processor's loop samples; any thread reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace webindex::pipeline {

class RateMeter {
 public:
  using Clock = std::chrono::steady_clock;
  //! The rate covers `window` once samples span it; samples older than `stale` mean no rate.
  explicit RateMeter(Clock::duration window = std::chrono::seconds(10), Clock::duration stale = std::chrono::seconds(5))
      : window_(window), stale_(stale) {}

  void Sample(Clock::time_point now, uint64_t count);

  struct Rate {
    double per_second = 0;
    double seconds = 0;  //!< the span of the samples it was measured over
  };
  //! nullopt until samples span a second, and when the newest is older than `stale`.
  std::optional<Rate> Get(Clock::time_point now) const;

 private:
  const Clock::duration window_, stale_;
  mutable std::mutex mu_;
  std::deque<std::pair<Clock::time_point, uint64_t>> samples_;  //!< oldest first
};

}  // namespace webindex::pipeline
