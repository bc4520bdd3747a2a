#include "kafka/producer.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "kafka/rdkafka_handle.h"

namespace webindex::kafka {

struct Producer::Impl {
  RdKafkaPtr rk;
  DeliveryReportCallback on_delivery;
  std::atomic<bool> stop{false};
  std::thread poller;
  mutable std::mutex fatal_mu;
  Status fatal;
  //! A handle per topic produced to, kept for the producer's life. librdkafka (before 2.10.1)
  //! asks for the partitions' leaders of a topic first named in rd_kafka_producev only on its
  //! next one-second timer, which delayed the first record of every fresh producer by a second
  //! (every `webindex load`, every control record); rd_kafka_topic_new asks at once. Reusing
  //! the handle also saves producev's lookup of the topic by name for every record.
  std::mutex topics_mu;
  std::unordered_map<std::string, rd_kafka_topic_t*> topics;

  rd_kafka_topic_t* Topic(const std::string& name) {
    std::lock_guard<std::mutex> lock(topics_mu);
    if (auto it = topics.find(name); it != topics.end()) return it->second;
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk.get(), name.c_str(), nullptr);
    if (rkt != nullptr) topics.emplace(name, rkt);
    return rkt;  // null: rd_kafka_last_error() says why
  }

  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    Status st = m->err ? KafkaError(m->err, std::string("delivery to ") + rd_kafka_topic_name(m->rkt) + "[" +
                                                std::to_string(m->partition) + "]")
                       : Status::Ok();
    self->on_delivery(reinterpret_cast<uintptr_t>(m->_private), st, m->err ? -1 : m->offset);
  }
  void CheckFatal() {
    char buf[512];
    rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk.get(), buf, sizeof(buf));
    if (err) {
      std::lock_guard<std::mutex> lock(fatal_mu);
      if (fatal.ok()) fatal = Status::Aborted(std::string("fatal producer error: ") + buf);
    }
  }
};

Producer::Producer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Producer::~Producer() {
  impl_->stop = true;
  if (impl_->poller.joinable()) impl_->poller.join();
  for (auto& [name, rkt] : impl_->topics) {
    if (rkt != nullptr) rd_kafka_topic_destroy(rkt);
  }
}

Result<std::unique_ptr<Producer>> Producer::Create(const ClientConfig& config, DeliveryCallback on_delivery) {
  return Create(config, [on_delivery = std::move(on_delivery)](uint64_t opaque, const Status& status, int64_t) {
    on_delivery(opaque, status);
  });
}

Result<std::unique_ptr<Producer>> Producer::Create(const ClientConfig& config, DeliveryReportCallback on_delivery) {
  auto impl = std::make_unique<Impl>();
  impl->on_delivery = std::move(on_delivery);
  // Idempotence with no delivery timeout: retries forever, never reorders, never leaves a gap.
  ASSIGN_OR_RETURN(ConfPtr conf, MakeConf(config, {{"enable.idempotence", "true"},
                                                   {"message.timeout.ms", "0"},
                                                   {"linger.ms", "5"},
                                                   {"batch.num.messages", "10000"},
                                                   {"queue.buffering.max.messages", "500000"},
                                                   {"queue.buffering.max.kbytes", "262144"}}));
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &Impl::OnDelivery);
  rd_kafka_conf_set_opaque(conf.get(), impl.get());
  ASSIGN_OR_RETURN(impl->rk, MakeHandle(RD_KAFKA_PRODUCER, std::move(conf)));
  Impl* raw = impl.get();
  impl->poller = std::thread([raw] {
    while (!raw->stop) {
      rd_kafka_poll(raw->rk.get(), 50);
      raw->CheckFatal();
    }
  });
  return std::unique_ptr<Producer>(new Producer(std::move(impl)));
}

Status Producer::Produce(const OutRecord& r, uint64_t opaque) {
  rd_kafka_topic_t* rkt = impl_->Topic(r.topic);
  if (rkt == nullptr) return KafkaError(rd_kafka_last_error(), "producing to " + r.topic);
  for (;;) {
    rd_kafka_headers_t* hdrs = nullptr;
    if (!r.headers.empty()) {
      hdrs = rd_kafka_headers_new(r.headers.size());
      for (const auto& [k, v] : r.headers) rd_kafka_header_add(hdrs, k.data(), k.size(), v.data(), v.size());
    }
    rd_kafka_resp_err_t err = rd_kafka_producev(
        impl_->rk.get(), RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_PARTITION(r.partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(r.key.data(), r.key.size()),
        RD_KAFKA_V_VALUE(r.tombstone ? nullptr : const_cast<char*>(r.value.data()), r.tombstone ? 0 : r.value.size()),
        RD_KAFKA_V_HEADERS(hdrs),
        RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(static_cast<uintptr_t>(opaque))), RD_KAFKA_V_END);
    if (!err) return Status::Ok();
    if (hdrs) rd_kafka_headers_destroy(hdrs);
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) return KafkaError(err, "producing to " + r.topic);
    RETURN_IF_ERROR(FatalError());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the poll thread drains the queue
  }
}

Status Producer::WarmUp(const std::vector<std::string>& topics, int timeout_ms) {
  for (const auto& name : topics) {
    const rd_kafka_metadata_t* md = nullptr;  // the handle is the one Produce uses, kept
    rd_kafka_resp_err_t err = rd_kafka_metadata(impl_->rk.get(), 0, impl_->Topic(name), &md, timeout_ms);
    if (md) rd_kafka_metadata_destroy(md);
    if (err) return KafkaError(err, "metadata of " + name);
  }
  return Status::Ok();
}

Status Producer::Flush(int timeout_ms) {
  rd_kafka_resp_err_t err = rd_kafka_flush(impl_->rk.get(), timeout_ms);
  if (err) return KafkaError(err, "flush");
  return Status::Ok();
}

Status Producer::FatalError() const {
  std::lock_guard<std::mutex> lock(impl_->fatal_mu);
  return impl_->fatal;
}

Status ProduceAndWait(const ClientConfig& config, const std::vector<OutRecord>& records, int timeout_ms) {
  std::mutex mu;
  Status failed;
  ASSIGN_OR_RETURN(auto producer, Producer::Create(config, [&](uint64_t, const Status& st) {
                     std::lock_guard<std::mutex> lock(mu);
                     if (!st.ok() && failed.ok()) failed = st;
                   }));
  for (const OutRecord& r : records) RETURN_IF_ERROR(producer->Produce(r, 0));
  RETURN_IF_ERROR(producer->Flush(timeout_ms));
  std::lock_guard<std::mutex> lock(mu);
  return failed;
}

}  // namespace webindex::kafka
