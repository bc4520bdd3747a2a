// GET /api/status: what the serving process knows about its processor (consumer lag, events/s,
// generation, PageRank checks) and what its table knows (the last PageRank result, the
// totals), as JSON. A figure that is not available is null, with the reason under
// "unavailable". Plain values and a stateless function; any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "rank/rank_store.h"
#include "sink/summary.h"

namespace webindex::http {

//! What a running processor reports (app::Processor, filled by the command that serves).
struct ProcessorStatus {
  uint64_t generation = 0;
  uint64_t events = 0;  //!< crawl events consumed since the process started
  std::optional<double> events_per_second;
  double rate_seconds = 0;  //!< the span events_per_second was measured over
  struct Lag {
    std::string stage, topic;
    int32_t partition = 0;
    int64_t position = 0, end = 0, lag = 0;
    bool member = true;  //!< this process's own position (false: its group's committed offset)
    bool known = true;   //!< false: no position reported (a group rebalancing): position and lag unknown
  };
  //! Per stage and input partition; nullopt when the brokers did not answer (lag_error says why).
  std::optional<std::vector<Lag>> lag;
  std::string lag_error;
  bool pagerank_enabled = false;
  std::chrono::milliseconds pagerank_interval{0};
  uint64_t pagerank_computations = 0, pagerank_unchanged = 0, pagerank_failures = 0;
  bool pagerank_running = false;
  //! Dead letters: counted since the process started (each once Kafka has it), the last one's
  //! reason and time; what the topic holds now, from the brokers (nullopt: stored_error says why).
  struct DeadLetters {
    std::string topic, brokers;  //!< for the command that reads them
    uint64_t count = 0;
    std::optional<std::string> last_reason;
    int64_t last_at_ms = 0;
    std::optional<int64_t> stored;
    std::string stored_error;
  } dead_letters;
};

//! The kcat command that prints every dead letter of `topic` on `brokers` with its headers.
std::string DeadLetterCommand(const std::string& brokers, const std::string& topic);

//! The /api/status body. `processor`: nullopt when no processor runs in this process;
//! `rank` and `totals` as read from the table (NotFound: none kept); `health`: the store's
//! (state::Store::Health), "healthy" false with its error when it takes no more writes.
std::string StatusJson(const std::optional<ProcessorStatus>& processor,
                       const Result<std::optional<rank::RankResultInfo>>& rank,
                       const Result<sink::TableTotals>& totals, const Status& health = Status::Ok());

}  // namespace webindex::http
