// What the Kafka clients and their users share: where the cluster is (ClientConfig) and how
// large a record may be (record limits and budgets). Plain values, no librdkafka; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "common/record.h"
#include "common/status.h"

namespace webindex::kafka {

//! bootstrap.servers plus any librdkafka properties, applied in order (later wins).
struct ClientConfig {
  std::string brokers;
  std::map<std::string, std::string> properties;
};

//! True for errors of one record that no retry can fix (too large, invalid): the record must be
//! set aside, the others go on. Every other error is retried by the client or is fatal.
bool IsRecordRejected(const Status& status);

//! Kafka's default max.message.bytes of a topic, assumed when the cluster does not tell.
inline constexpr int64_t kDefaultTopicMaxMessageBytes = 1048588;
//! librdkafka's default message.max.bytes (its largest request batch).
inline constexpr int64_t kDefaultProducerMaxMessageBytes = 1000000;
//! Kept free in every record budget for the batch header (61 bytes), the record's varints and
//! each header's framing.
inline constexpr int64_t kRecordFramingBytes = 1024;

//! Bytes of a record that count against its budget: key, value, header names and values.
size_t RecordBytes(const OutRecord& record);

//! How large the records webindex writes may be. One producer writes every output topic, and a
//! batch of small records must fit the smallest of them too, so the producer's message.max.bytes
//! is the smallest limit.
struct RecordLimits {
  int64_t producer_max_message_bytes = kDefaultProducerMaxMessageBytes;
  std::map<std::string, size_t> budget;  //!< topic -> largest RecordBytes of one record

  //! The budget of `topic`; the default producer's when the topic was not asked about.
  size_t BudgetOf(const std::string& topic) const;
};

}  // namespace webindex::kafka
