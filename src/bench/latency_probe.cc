#include "bench/latency_probe.h"

#include "sink/table.h"

namespace webindex::bench {

LatencyProbes::LatencyProbes(state::Store& store) : store_(store) {}

LatencyProbes::~LatencyProbes() { Stop().PermitUncheckedError(); }

void LatencyProbes::Start() {
  stop_ = false;
  poller_ = std::thread([this] { Poll(); });
}

void LatencyProbes::Add(const std::string& page_uri, const std::string& probe_uri, Clock::time_point at) {
  Probe p;
  p.page_key = sink::EncodeCellKey(sink::PageRow(page_uri), "page", "cur");
  p.count_key = sink::EncodeCellKey(sink::PageRow(probe_uri), "page", "incount");
  p.at = at;
  std::lock_guard<std::mutex> lock(mu_);
  incoming_.push_back(std::move(p));
  ++pending_;
}

size_t LatencyProbes::WaitAll(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_ == 0 || !error_.ok() || Clock::now() >= deadline) return pending_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status LatencyProbes::Stop() {
  stop_ = true;
  if (poller_.joinable()) poller_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

LatencyProbes::Results LatencyProbes::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(results_, {});
}

bool LatencyProbes::Check(const std::string& key, const Probe& p, double* ms) {
  auto got = store_.Get(state::Family::kTable, key);
  if (!got.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = got.status().WithContext("latency probe read");
    return false;
  }
  if (!got->has_value()) return false;
  *ms = std::chrono::duration<double, std::milli>(Clock::now() - p.at).count();
  return true;
}

void LatencyProbes::Poll() {
  std::vector<Probe> pending;
  while (!stop_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& p : incoming_) pending.push_back(std::move(p));
      incoming_.clear();
    }
    size_t kept = 0;
    for (size_t i = 0; i < pending.size(); ++i) {
      Probe& p = pending[i];
      if (!p.page_seen) p.page_seen = Check(p.page_key, p, &p.page_ms);
      if (!p.count_seen) p.count_seen = Check(p.count_key, p, &p.count_ms);
      if (!p.page_seen || !p.count_seen) {
        if (kept != i) pending[kept] = std::move(p);
        ++kept;
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      results_.page_ms.push_back(p.page_ms);
      results_.count_ms.push_back(p.count_ms);
      results_.full_ms.push_back(std::max(p.page_ms, p.count_ms));
      --pending_;
    }
    pending.resize(kept);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace webindex::bench
