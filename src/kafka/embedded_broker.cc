#include "kafka/embedded_broker.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string_view>

#include "kafka/rdkafka_handle.h"

namespace webindex::kafka {

struct EmbeddedBroker::Impl {
  RdKafkaPtr rk;  // owns the mock cluster's threads
  rd_kafka_mock_cluster_t* cluster = nullptr;
  ~Impl() {
    if (cluster) rd_kafka_mock_cluster_destroy(cluster);
  }
};
EmbeddedBroker::EmbeddedBroker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EmbeddedBroker::~EmbeddedBroker() = default;

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::Start(int brokers) {
  ConfPtr conf(rd_kafka_conf_new());
  // This handle only hosts the cluster; it has no bootstrap servers and needs none.
  rd_kafka_conf_set_log_cb(conf.get(), [](const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
    if (std::string_view(fac) != "CONFWARN") LogCallback(rk, level, fac, buf);
  });
  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->rk, MakeHandle(RD_KAFKA_PRODUCER, std::move(conf)));
  impl->cluster = rd_kafka_mock_cluster_new(impl->rk.get(), brokers);
  if (!impl->cluster) return Status::Unavailable("could not start the embedded broker");
  return std::unique_ptr<EmbeddedBroker>(new EmbeddedBroker(std::move(impl)));
}

void EmbeddedBroker::PushRequestErrors(int api_key, const std::vector<int>& errors) {
  std::vector<rd_kafka_resp_err_t> codes;
  for (int e : errors) codes.push_back(static_cast<rd_kafka_resp_err_t>(e));
  rd_kafka_mock_push_request_errors_array(impl_->cluster, static_cast<int16_t>(api_key), codes.size(), codes.data());
}

Status EmbeddedBroker::SetBrokerUp(bool up, int broker) {
  rd_kafka_resp_err_t err = up ? rd_kafka_mock_broker_set_up(impl_->cluster, broker)
                               : rd_kafka_mock_broker_set_down(impl_->cluster, broker);
  if (err) return KafkaError(err, up ? "broker up" : "broker down");
  return Status::Ok();
}

Status EmbeddedBroker::SetPartitionLeader(const std::string& topic, int32_t partition, int broker) {
  rd_kafka_resp_err_t err = rd_kafka_mock_partition_set_leader(impl_->cluster, topic.c_str(), partition, broker);
  if (err) return KafkaError(err, "moving the leader of " + topic + "[" + std::to_string(partition) + "]");
  return Status::Ok();
}

std::string EmbeddedBroker::bootstrap_servers() const { return rd_kafka_mock_cluster_bootstraps(impl_->cluster); }

Status EmbeddedBroker::CreateTopic(const std::string& name, int partitions) {
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(impl_->cluster, name.c_str(), partitions, 1);
  if (err && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) return KafkaError(err, "creating topic " + name);
  return Status::Ok();
}

}  // namespace webindex::kafka
