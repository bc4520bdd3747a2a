#include "kafka/admin.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/log.h"
#include "kafka/rdkafka_handle.h"

namespace webindex::kafka {

struct Admin::Impl {
  RdKafkaPtr rk;
  std::map<std::string, int64_t> declared_max_message_bytes;  //!< by EnsureTopics' specs
};
Admin::Admin(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Admin::~Admin() = default;

Result<std::unique_ptr<Admin>> Admin::Create(const ClientConfig& config) {
  ASSIGN_OR_RETURN(ConfPtr conf, MakeConf(config, {{"allow.auto.create.topics", "true"}}));
  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->rk, MakeHandle(RD_KAFKA_PRODUCER, std::move(conf)));
  return std::unique_ptr<Admin>(new Admin(std::move(impl)));
}

Result<std::pair<int64_t, int64_t>> Admin::Watermarks(const std::string& topic, int32_t partition,
                                                         int timeout_ms) {
  // Asked as offsets for the times BEGINNING and END: rd_kafka_query_watermark_offsets (librdkafka
  // 2.0) retries a request that met a closed connection for as long as the brokers' states keep
  // changing, past its timeout, so a broker gone away would hold the caller for good.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int64_t marks[2] = {RD_KAFKA_OFFSET_BEGINNING, RD_KAFKA_OFFSET_END};
  for (int64_t& mark : marks) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    PartitionList list(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = mark;
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(impl_->rk.get(), list.get(),
                                                         static_cast<int>(std::max<int64_t>(1, left.count())));
    if (!err) err = list->elems[0].err;
    if (err) return KafkaError(err, "watermarks of " + topic + "[" + std::to_string(partition) + "]");
    mark = list->elems[0].offset;
  }
  return std::make_pair(marks[0], marks[1]);
}

Result<std::vector<int64_t>> Admin::OffsetsForTime(const std::string& topic, int32_t partitions, int64_t timestamp_ms,
                                                   int timeout_ms) {
  std::unique_ptr<rd_kafka_topic_partition_list_t, decltype(&rd_kafka_topic_partition_list_destroy)> list(
      rd_kafka_topic_partition_list_new(partitions), &rd_kafka_topic_partition_list_destroy);
  for (int32_t p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = timestamp_ms;
  }
  rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(impl_->rk.get(), list.get(), timeout_ms);
  if (err) return KafkaError(err, "offsets for time of " + topic);
  std::vector<int64_t> out(partitions, -1);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.err) return KafkaError(e.err, "offset for time of " + topic + "[" + std::to_string(e.partition) + "]");
    if (e.partition >= 0 && e.partition < partitions) out[e.partition] = e.offset;
  }
  return out;
}

Status Admin::DeleteRecords(const std::string& topic, const std::map<int32_t, int64_t>& before, int timeout_ms) {
  if (before.empty()) return Status::Ok();
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(before.size())));
  for (const auto& [partition, offset] : before) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = offset;
  }
  const std::string what = "deleting records of " + topic;
  auto mapped = [&](rd_kafka_resp_err_t err, const std::string& where) {
    const std::string message = where + ": " + rd_kafka_err2str(err);
    switch (err) {
      case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
      case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
        return Status::NotFound(message + " (the brokers do not serve DeleteRecords)");
      case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
      case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
      case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
        return Status::InvalidArgument(message);
      default:
        return Status::Unavailable(message);
    }
  };
  char errstr[512];
  rd_kafka_DeleteRecords_t* request = rd_kafka_DeleteRecords_new(list.get());
  rd_kafka_queue_t* q = rd_kafka_queue_new(impl_->rk.get());
  rd_kafka_AdminOptions_t* opts = rd_kafka_AdminOptions_new(impl_->rk.get(), RD_KAFKA_ADMIN_OP_DELETERECORDS);
  rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, errstr, sizeof(errstr));
  // The brokers' wait for the replicas ends first, so that its answer is not a timeout of ours.
  rd_kafka_AdminOptions_set_operation_timeout(opts, timeout_ms / 2, errstr, sizeof(errstr));
  rd_kafka_DeleteRecords(impl_->rk.get(), &request, 1, opts, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms + 2000);
  Status status;
  if (!ev) {
    status = Status::Unavailable(what + ": no answer in " + std::to_string(timeout_ms) + " ms");
  } else if (rd_kafka_event_error(ev)) {
    status = mapped(rd_kafka_event_error(ev), what);
  } else if (const rd_kafka_DeleteRecords_result_t* result = rd_kafka_event_DeleteRecords_result(ev)) {
    const rd_kafka_topic_partition_list_t* offsets = rd_kafka_DeleteRecords_result_offsets(result);
    for (int i = 0; offsets && i < offsets->cnt && status.ok(); ++i) {
      const auto& e = offsets->elems[i];
      if (e.err) status = mapped(e.err, what + "[" + std::to_string(e.partition) + "]");
    }
  } else {
    status = Status::Internal(what + ": the answer is not a DeleteRecords result");
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_DeleteRecords_destroy(request);
  rd_kafka_queue_destroy(q);
  return status;
}

bool Admin::IsEmbedded(int timeout_ms) {
  auto cluster = ClusterId(timeout_ms);
  return cluster.ok() && cluster->starts_with("mockCluster");
}

std::map<std::string, int64_t> Admin::MaxMessageBytes(const std::vector<std::string>& topics, int timeout_ms) {
  std::map<std::string, int64_t> limits;
  std::string why = "librdkafka's mock cluster does not serve DescribeConfigs";
  // Asked anyway, the mock cluster lets the request time out.
  const bool mock = IsEmbedded(timeout_ms);
  if (!mock) {
    why = DescribeMaxMessageBytes(topics, timeout_ms, &limits);
  } else {
    // It keeps no topic config and takes records of any size: a topic takes what it was declared with.
    for (const auto& t : topics) {
      if (auto it = impl_->declared_max_message_bytes.find(t); it != impl_->declared_max_message_bytes.end()) {
        limits[t] = it->second;
      }
    }
  }
  std::string untold;
  for (const auto& t : topics) {
    if (limits.count(t)) {
      LOG_DEBUG("topic {}: max.message.bytes {}", t, limits[t]);
      continue;
    }
    untold += (untold.empty() ? "" : ", ") + t;
    limits[t] = kDefaultTopicMaxMessageBytes;
  }
  if (!untold.empty()) {
    if (mock) {
      LOG_DEBUG("max.message.bytes of {}: Kafka's default {} ({})", untold, kDefaultTopicMaxMessageBytes, why);
    } else {
      LOG_INFO("the cluster did not tell max.message.bytes of {} ({}); assuming Kafka's default {}", untold, why,
               kDefaultTopicMaxMessageBytes);
    }
  }
  return limits;
}

std::string Admin::DescribeMaxMessageBytes(const std::vector<std::string>& topics, int timeout_ms,
                                           std::map<std::string, int64_t>* limits) {
  char err[512];
  std::vector<rd_kafka_ConfigResource_t*> resources;
  for (const auto& t : topics) resources.push_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t.c_str()));
  rd_kafka_queue_t* q = rd_kafka_queue_new(impl_->rk.get());
  rd_kafka_AdminOptions_t* opts = rd_kafka_AdminOptions_new(impl_->rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
  rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, err, sizeof(err));
  rd_kafka_DescribeConfigs(impl_->rk.get(), resources.data(), resources.size(), opts, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms + 2000);
  std::string why = "no answer";
  if (ev && rd_kafka_event_error(ev)) {
    why = rd_kafka_event_error_string(ev);
  } else if (ev) {
    why = "no max.message.bytes in the answer";
    size_t n = 0;
    const rd_kafka_ConfigResource_t** rs =
        rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev), &n);
    for (size_t i = 0; i < n; ++i) {
      if (rd_kafka_ConfigResource_error(rs[i])) {
        why = rd_kafka_err2str(rd_kafka_ConfigResource_error(rs[i]));
        continue;
      }
      size_t cnt = 0;
      const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(rs[i], &cnt);
      for (size_t j = 0; j < cnt; ++j) {
        const char* value = rd_kafka_ConfigEntry_value(entries[j]);
        if (value && std::string_view(rd_kafka_ConfigEntry_name(entries[j])) == "max.message.bytes" &&
            std::strtoll(value, nullptr, 10) > 0) {
          (*limits)[rd_kafka_ConfigResource_name(rs[i])] = std::strtoll(value, nullptr, 10);
        }
      }
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_queue_destroy(q);
  rd_kafka_ConfigResource_destroy_array(resources.data(), resources.size());
  return why;
}

RecordLimits Admin::LimitsOf(const std::vector<std::string>& topics, const ClientConfig& config, int timeout_ms) {
  RecordLimits limits;
  if (auto it = config.properties.find("message.max.bytes"); it != config.properties.end()) {
    limits.producer_max_message_bytes = std::strtoll(it->second.c_str(), nullptr, 10);
  }
  const std::map<std::string, int64_t> topic_limit = MaxMessageBytes(topics, timeout_ms);
  for (const auto& [t, limit] : topic_limit) {
    limits.producer_max_message_bytes = std::min(limits.producer_max_message_bytes, limit);
  }
  for (const auto& [t, limit] : topic_limit) {
    const int64_t budget = std::min(limit, limits.producer_max_message_bytes) - kRecordFramingBytes;
    limits.budget[t] = static_cast<size_t>(std::max<int64_t>(budget, 0));
  }
  return limits;
}

Result<int> Admin::PartitionCount(const std::string& topic, int timeout_ms) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(impl_->rk.get(), topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(impl_->rk.get(), 0, rkt, &md, timeout_ms);
  rd_kafka_topic_destroy(rkt);
  if (err) return KafkaError(err, "metadata of " + topic);
  int count = -1;
  Status st;
  if (md->topic_cnt == 1) {
    if (md->topics[0].err) {
      st = KafkaError(md->topics[0].err, "topic " + topic);
    } else {
      count = md->topics[0].partition_cnt;
    }
  }
  rd_kafka_metadata_destroy(md);
  if (!st.ok()) return st;
  if (count <= 0) return Status::NotFound("topic " + topic + " has no partitions");
  return count;
}

Result<std::string> Admin::ClusterId(int timeout_ms) {
  char* id = rd_kafka_clusterid(impl_->rk.get(), timeout_ms);
  if (!id) return Status::Unavailable("the cluster did not tell its id within " + std::to_string(timeout_ms) + " ms");
  std::string out(id);
  rd_kafka_mem_free(impl_->rk.get(), id);
  return out;
}

Result<std::vector<std::string>> Admin::ListTopics(int timeout_ms) {
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(impl_->rk.get(), 1, nullptr, &md, timeout_ms);
  if (err) return KafkaError(err, "listing topics");
  std::vector<std::string> names;
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (!md->topics[i].err) names.emplace_back(md->topics[i].topic);
  }
  rd_kafka_metadata_destroy(md);
  return names;
}

Status Admin::CreateTopics(const std::vector<TopicSpec>& topics, int timeout_ms) {
  char err[512];
  std::vector<rd_kafka_NewTopic_t*> news;
  for (const auto& t : topics) {
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(t.name.c_str(), t.partitions, t.replication, err, sizeof(err));
    if (!nt) {
      rd_kafka_NewTopic_destroy_array(news.data(), news.size());
      return Status::InvalidArgument("topic " + t.name + ": " + err);
    }
    for (const auto& [k, v] : t.config) rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
    news.push_back(nt);
  }
  rd_kafka_queue_t* q = rd_kafka_queue_new(impl_->rk.get());
  rd_kafka_AdminOptions_t* opts = rd_kafka_AdminOptions_new(impl_->rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_request_timeout(opts, timeout_ms, err, sizeof(err));
  rd_kafka_CreateTopics(impl_->rk.get(), news.data(), news.size(), opts, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms + 2000);
  Status st;
  if (!ev) {
    st = Status::Unavailable("creating topics: no answer from the cluster at " + std::string("bootstrap.servers"));
  } else if (rd_kafka_event_error(ev)) {
    st = KafkaError(rd_kafka_event_error(ev), "creating topics");
  } else {
    size_t n = 0;
    const rd_kafka_topic_result_t** res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
    for (size_t i = 0; i < n && st.ok(); ++i) {
      rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
      if (e && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        st = KafkaError(e, std::string("creating topic ") + rd_kafka_topic_result_name(res[i]));
      }
    }
  }
  if (ev) rd_kafka_event_destroy(ev);
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy_array(news.data(), news.size());
  return st;
}

Status Admin::EnsureTopics(const std::vector<TopicSpec>& wanted, int timeout_ms) {
  for (const auto& t : wanted) {
    auto it = t.config.find("max.message.bytes");
    const int64_t declared = it == t.config.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
    if (declared > 0) impl_->declared_max_message_bytes[t.name] = declared;
  }
  // Ask first: some clusters (the embedded one among them) do not serve CreateTopics.
  ASSIGN_OR_RETURN(std::vector<std::string> existing, ListTopics(timeout_ms));
  std::vector<TopicSpec> topics;
  for (const auto& t : wanted) {
    if (std::find(existing.begin(), existing.end(), t.name) == existing.end()) topics.push_back(t);
  }
  if (topics.empty()) return Status::Ok();
  // librdkafka's mock cluster lets a CreateTopics request time out (10 s): asked directly, it
  // creates a topic on first use.
  Status st = IsEmbedded(timeout_ms) ? Status::Unavailable("the embedded cluster does not serve CreateTopics")
                                     : CreateTopics(topics, timeout_ms);
  if (st.ok()) return st;
  // Some clusters (the embedded one among them) do not serve CreateTopics but create a topic
  // when a client asks for it.
  // Such a topic serves as asked when it has the partition count asked for (a single-partition
  // topic is written and read at partition 0 only: any count serves it) and no settings were
  // asked for: nothing for the user then.
  for (const auto& t : topics) {
    Result<int> partitions = PartitionCount(t.name, timeout_ms);
    if (!partitions.ok()) return st;
    if (*partitions != t.partitions && t.partitions > 1) {
      LOG_WARN("topic {} was created by the cluster's auto-creation with {} partition(s), not {}; create it "
               "yourself for the count asked for",
               t.name, *partitions, t.partitions);
    } else if (!t.config.empty()) {
      std::string asked;
      for (const auto& [k, v] : t.config) asked += (asked.empty() ? "" : ", ") + k + "=" + v;
      LOG_WARN("topic {} was created by the cluster's auto-creation with the cluster's default settings, not {}",
               t.name, asked);
    } else {
      LOG_DEBUG("topic {} was created by the cluster's auto-creation", t.name);
    }
  }
  return Status::Ok();
}

}  // namespace webindex::kafka
