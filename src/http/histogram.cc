#include "http/histogram.h"

#include <fmt/format.h>
#include <algorithm>

namespace webindex::http {

void LatencyHistogram::Observe(double seconds) {
  seconds = std::max(seconds, 0.0);
  const size_t i = std::lower_bound(kBounds.begin(), kBounds.end(), seconds) - kBounds.begin();
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_nanos_.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

uint64_t LatencyHistogram::count() const {
  uint64_t n = 0;
  for (const auto& b : buckets_) n += b.load(std::memory_order_relaxed);
  return n;
}

void LatencyHistogram::Write(PrometheusWriter& w, std::string_view name, const Labels& labels) const {
  const std::string bucket = std::string(name) + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kBounds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    Labels with_le = labels;
    with_le.emplace_back("le", i < kBounds.size() ? fmt::format("{}", kBounds[i]) : "+Inf");
    w.Sample(bucket, with_le, cumulative);
  }
  w.Sample(std::string(name) + "_sum", labels, static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) / 1e9);
  w.Sample(std::string(name) + "_count", labels, cumulative);
}

}  // namespace webindex::http
