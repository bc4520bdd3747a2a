// A fixed-bucket latency histogram in seconds, Prometheus-style (cumulative buckets, sum and
// count). Lock-free: Observe from any thread, Write from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "http/prometheus.h"

namespace webindex::http {

class LatencyHistogram {
 public:
  //! Upper bounds of the buckets in seconds: 100 µs .. 10 s, then +Inf.
  static constexpr std::array<double, 15> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                     0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};

  void Observe(double seconds);
  //! Writes <name>_bucket{labels,le=...}, <name>_sum and <name>_count (the family is the caller's).
  void Write(PrometheusWriter& w, std::string_view name, const Labels& labels) const;
  uint64_t count() const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};  //!< last: above every bound
  std::atomic<uint64_t> sum_nanos_{0};
};

}  // namespace webindex::http
