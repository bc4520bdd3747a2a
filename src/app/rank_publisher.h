// Publishes each stored PageRank result (rank/rank_store.h) to the topic `webindex.pagerank`
// for downstream consumers: the top `top` pages in parts that fit the topic's records, each part
// carrying the result's id, so a part delivered twice (a crash between Kafka's acknowledgement
// and the "published" mark) is recognised downstream; results are ordered by (generation, id),
// since a replay's generation numbers its results from 1 again. The mark in the store says which result
// went out whole; on start the current result is published again when it is not marked.
// Publish is called from the PageRank service's thread.
#pragma once

#include <atomic>
#include <memory>
#include <vector>
#include <string>

#include "common/status.h"
#include "kafka/common.h"
#include "kafka/producer.h"
#include "state/store.h"

namespace webindex::app {

struct RankPublisherOptions {
  std::string topic = "webindex.pagerank";
  uint64_t generation = 0;       //!< the data-dir generation whose results these are
  size_t top = 1000;             //!< pages per result; 0 publishes nothing
  size_t record_budget = 900000; //!< largest key + value of one part
  int timeout_ms = 30000;        //!< for Kafka's acknowledgements
};

class RankPublisher {
 public:
  static Result<std::unique_ptr<RankPublisher>> Create(const kafka::ClientConfig& kafka, state::Store& store,
                                                       RankPublisherOptions options);
  //! Publishes the store's current result unless it is marked published already.
  Status PublishCurrent();
  uint64_t published_results() const { return published_; }

 private:
  RankPublisher(state::Store& store, RankPublisherOptions options) : store_(store), options_(std::move(options)) {}

  state::Store& store_;
  const RankPublisherOptions options_;
  std::unique_ptr<kafka::Producer> producer_;
  std::atomic<bool> failed_{false};  //!< a delivery of the current result failed (delivery thread)
  uint64_t published_ = 0;
};

//! The JSON value of one part (schemas/pagerank.schema.json); exposed for tests.
std::string RankPartJson(uint64_t generation, uint64_t result, int64_t computed_at_ms, int32_t iterations, uint64_t nodes, uint64_t edges,
                         const std::string& exports_topic, const std::vector<int64_t>& positions, size_t part,
                         size_t parts, size_t first_rank, const std::vector<std::string>& entries);

}  // namespace webindex::app
