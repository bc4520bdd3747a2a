// The admin client: creates topics and asks the cluster about them (partitions, record size
// limits, watermarks, offsets for a time, its id) and deletes records before an offset. Owns one
// librdkafka handle; one thread calls it, except for Watermarks (any thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "kafka/common.h"

namespace webindex::kafka {

struct TopicSpec {
  std::string name;
  int partitions = 1;  //!< 1: a topic written and read at partition 0 only
  int replication = 1;
  std::map<std::string, std::string> config;
};

//! Topic administration. One thread.
class Admin {
 public:
  static Result<std::unique_ptr<Admin>> Create(const ClientConfig& config);
  ~Admin();
  //! Creates the topics that do not exist yet; existing ones are left as they are.
  Status EnsureTopics(const std::vector<TopicSpec>& topics, int timeout_ms);
  //! Names of the topics the cluster has.
  Result<std::vector<std::string>> ListTopics(int timeout_ms);
  //! The cluster's id (KIP-78): a data dir is bound to the cluster it read.
  Result<std::string> ClusterId(int timeout_ms);
  //! True when the cluster is librdkafka's mock cluster (the embedded broker: ~5 MiB per
  //! partition, no DescribeConfigs), known by the id it gives itself; false when it cannot tell.
  bool IsEmbedded(int timeout_ms);
  //! Partition count of an existing topic.
  Result<int> PartitionCount(const std::string& topic, int timeout_ms);
  //! The topics' max.message.bytes (DescribeConfigs); Kafka's default for those the cluster does
  //! not tell (librdkafka's mock cluster has no controller to ask) unless EnsureTopics was given
  //! theirs: the mock cluster applies none and takes records of any size.
  std::map<std::string, int64_t> MaxMessageBytes(const std::vector<std::string>& topics, int timeout_ms);
  //! The limits of `topics` for a producer configured by `config` (its message.max.bytes, if
  //! set, lowers them further).
  RecordLimits LimitsOf(const std::vector<std::string>& topics, const ClientConfig& config, int timeout_ms);
  //! Low and high watermark of a partition, asked of the broker. Thread-safe.
  Result<std::pair<int64_t, int64_t>> Watermarks(const std::string& topic, int32_t partition, int timeout_ms);
  //! Per partition: the first offset whose record timestamp is at or after `timestamp_ms`,
  //! or -1 when the broker has none or cannot tell (librdkafka's mock cluster never can).
  Result<std::vector<int64_t>> OffsetsForTime(const std::string& topic, int32_t partitions, int64_t timestamp_ms,
                                              int timeout_ms);
  //! DeleteRecords: removes the records of each partition of `topic` before its offset in
  //! `before` (the partition's log then starts there). NotFound: the brokers do not serve
  //! DeleteRecords (librdkafka's mock cluster); InvalidArgument: they refuse it for this topic
  //! for good (cleanup.policy=compact, no authorization); Unavailable: try again.
  Status DeleteRecords(const std::string& topic, const std::map<int32_t, int64_t>& before, int timeout_ms);

 private:
  //! Asks the cluster to create `topics` (CreateTopics); ok also for those that exist already.
  Status CreateTopics(const std::vector<TopicSpec>& topics, int timeout_ms);
  //! Fills `limits` with what the cluster answers; returns why the others are missing.
  std::string DescribeMaxMessageBytes(const std::vector<std::string>& topics, int timeout_ms,
                                      std::map<std::string, int64_t>* limits);
  struct Impl;
  explicit Admin(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace webindex::kafka
