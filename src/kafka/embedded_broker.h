// The embedded broker: librdkafka's mock cluster, for `brokers = "embedded"`, the benchmark and
// the tests. Owns the handle that hosts the cluster's threads and calls only librdkafka's mock
// API; started, driven and destroyed by one thread (the command's or a test's).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace webindex::kafka {

//! librdkafka's mock cluster: a real Kafka-protocol broker on loopback, in memory, with no
//! real transactions and about 5 MiB retained per partition. Lives until destroyed.
class EmbeddedBroker {
 public:
  static Result<std::unique_ptr<EmbeddedBroker>> Start(int brokers = 1);
  ~EmbeddedBroker();
  std::string bootstrap_servers() const;
  Status CreateTopic(const std::string& name, int partitions);
  //! Fault injection: the next `errors.size()` requests of Kafka API `api_key` (0 Produce,
  //! 1 Fetch, 2 ListOffsets, 3 Metadata, ...) fail with these Kafka error codes, in order.
  void PushRequestErrors(int api_key, const std::vector<int>& errors);
  //! Takes a broker (1..brokers) down or brings it back up.
  Status SetBrokerUp(bool up, int broker = 1);
  //! Fault injection: makes broker `broker` (1..brokers) the leader of a partition.
  Status SetPartitionLeader(const std::string& topic, int32_t partition, int broker);

 private:
  struct Impl;
  explicit EmbeddedBroker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace webindex::kafka
