// LatencyProbes: event-to-query latency. The producing thread registers sampled events (the
// page's URI and its probe link's URI) as it produces them; a poller thread reads the query
// table every millisecond until the page row and the probe's in-link count are readable.
// Add/WaitAll/Stop/Take from one thread (the producer's); the store outlives Stop.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "state/store.h"

namespace webindex::bench {

class LatencyProbes {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LatencyProbes(state::Store& store);
  ~LatencyProbes();
  LatencyProbes(const LatencyProbes&) = delete;
  LatencyProbes& operator=(const LatencyProbes&) = delete;

  void Start();
  //! `page_uri`'s page|cur and `probe_uri`'s page|incount rows will appear; produced at `at`.
  void Add(const std::string& page_uri, const std::string& probe_uri, Clock::time_point at);
  //! Waits until every probe was seen or `timeout` passes; the number still unseen.
  size_t WaitAll(std::chrono::milliseconds timeout);
  //! Stops the poller; the first read error, if any.
  Status Stop();

  struct Results {
    std::vector<double> page_ms, count_ms, full_ms;
  };
  Results Take();

 private:
  struct Probe {
    std::string page_key, count_key;
    Clock::time_point at;
    bool page_seen = false, count_seen = false;
    double page_ms = 0, count_ms = 0;
  };
  void Poll();
  //! True once `key` is readable; records the latency in `ms`.
  bool Check(const std::string& key, const Probe& p, double* ms);

  state::Store& store_;
  std::thread poller_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Probe> incoming_;  //!< guarded by mu_
  size_t pending_ = 0;           //!< guarded by mu_: added and not yet seen
  Results results_;              //!< guarded by mu_
  Status error_;                 //!< guarded by mu_
};

}  // namespace webindex::bench
