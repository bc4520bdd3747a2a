#include "pipeline/rate_meter.h"

namespace webindex::pipeline {

void RateMeter::Sample(Clock::time_point now, uint64_t count) {
  std::lock_guard lock(mu_);
  samples_.emplace_back(now, count);
  // Keep the newest sample at least `window` old, so the samples span the whole window.
  while (samples_.size() > 2 && samples_[1].first <= now - window_) samples_.pop_front();
}

std::optional<RateMeter::Rate> RateMeter::Get(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  if (samples_.size() < 2 || now - samples_.back().first > stale_) return std::nullopt;
  const auto& [first_at, first] = samples_.front();
  const auto& [last_at, last] = samples_.back();
  const double seconds = std::chrono::duration<double>(last_at - first_at).count();
  if (seconds < 1 || last < first) return std::nullopt;
  return Rate{static_cast<double>(last - first) / seconds, seconds};
}

}  // namespace webindex::pipeline
