// librdkafka plumbing shared by the clients in this folder and included by them only: owning
// pointers to its objects, a client's configuration and handle (MakeConf, MakeHandle), its log
// callback, and its errors mapped to Status once (KafkaError). The log and error callbacks that
// MakeConf installs run on librdkafka's threads.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <string>

#include "common/status.h"
#include "kafka/common.h"

namespace webindex::kafka {

struct RdKafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using RdKafkaPtr = std::unique_ptr<rd_kafka_t, RdKafkaDeleter>;

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* c) const { rd_kafka_conf_destroy(c); }
};
using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

//! `err` as a Status: InvalidArgument when it rejects the record for good (IsRecordRejected),
//! Unavailable otherwise.
Status KafkaError(rd_kafka_resp_err_t err, const std::string& what);

//! librdkafka's log lines into ours, by level (its FAIL lines are left to the error callback).
void LogCallback(const rd_kafka_t*, int level, const char* fac, const char* buf);

//! `config` over `defaults`, with the log and error callbacks set.
Result<ConfPtr> MakeConf(const ClientConfig& config, const std::map<std::string, std::string>& defaults);

//! A client of `type` made from `conf`, which it then owns.
Result<RdKafkaPtr> MakeHandle(rd_kafka_type_t type, ConfPtr conf);

}  // namespace webindex::kafka
