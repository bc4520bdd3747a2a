// Feeder: produces a SyntheticCrawl's events to the pages topic while the processor consumes
// them, never letting any stage fall further behind than the embedded broker retains (about
// 5 MiB per partition, oldest produce batches dropped beyond): it pauses while the processor's
// lag, in estimated bytes, is too large. Called from one thread; delivery reports arrive on
// the producer's poll thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/processor.h"
#include "bench/crawl_generator.h"
#include "kafka/common.h"
#include "kafka/producer.h"

namespace webindex::bench {

//! The embedded broker's retention per partition (librdkafka's mock cluster).
inline constexpr uint64_t kBrokerRetentionBytes = 5u << 20;

struct FeederOptions {
  std::string topic;  //!< the pages topic
  int pages_partitions = 1;
  int uri_delta_partitions = 1;
  int export_partitions = 1;
  //! Per partition of any topic: the backlog, with what is upstream of it, stays under this.
  uint64_t backlog_cap_bytes = 3u << 20;
};

class Feeder {
 public:
  using Clock = std::chrono::steady_clock;
  //! `health` is asked while waiting; a non-OK status ends the wait with that status.
  static Result<std::unique_ptr<Feeder>> Create(const kafka::ClientConfig& kafka, const SyntheticCrawl& crawl,
                                                app::Processor& processor, FeederOptions options,
                                                std::function<Status()> health);
  ~Feeder();

  //! Waits for room, then produces page `i` (with a probe link when given); `at` is the
  //! instant it was handed to the producer.
  Status Produce(uint64_t i, std::optional<uint64_t> probe, Clock::time_point* at = nullptr);
  //! Waits for every acknowledgement.
  Status Flush(int timeout_ms);

  uint64_t produced() const { return produced_; }
  uint64_t acked() const { return acked_; }
  uint64_t failed() const { return failed_; }
  uint64_t links() const { return links_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t throttled() const { return throttled_; }
  //! Seconds spent asking the processor for its lag.
  double lag_check_seconds() const { return lag_check_seconds_; }

 private:
  Feeder(const SyntheticCrawl& crawl, app::Processor& processor, FeederOptions options, std::function<Status()> health);
  void EstimateSizes();
  Status WaitForRoom();
  //! How many more events fit: every partition's backlog plus what the backlog upstream of it
  //! will add (uncombined, so an overestimate) stays under the cap.
  Result<uint64_t> Headroom();

  const SyntheticCrawl& crawl_;
  app::Processor& processor_;
  FeederOptions options_;
  std::function<Status()> health_;
  std::unique_ptr<kafka::Producer> producer_;

  // Estimated record sizes in the broker's log (EstimateSizes).
  double event_bytes_ = 1000, delta_bytes_ = 200, page_export_bytes_ = 1200, uri_export_bytes_ = 200;
  double links_per_event_ = 10;
  uint64_t budget_ = 0;  //!< events that may be produced before the next lag check
  bool backlog_full_ = false;
  Clock::time_point last_lag_check_{};
  double lag_check_seconds_ = 0;
  uint64_t produced_ = 0, links_ = 0, bytes_ = 0, throttled_ = 0;
  std::atomic<uint64_t> acked_{0}, failed_{0};
};

}  // namespace webindex::bench
