#include "kafka/rdkafka_handle.h"

#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "common/log.h"

namespace webindex::kafka {
namespace {

//! Errors of one record that no retry can fix: the record is rejected, the producer goes on.
bool RejectsRecord(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    case RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP:
      return true;
    default:
      return false;
  }
}

void ErrorCallback(rd_kafka_t*, int err, const char* reason, void*) {
  // Transport errors are retried by the client; say what it is waiting for.
  LOG_WARN("kafka: {} ({}); retrying", reason, rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)));
}

}  // namespace

Status KafkaError(rd_kafka_resp_err_t err, const std::string& what) {
  if (RejectsRecord(err)) return Status::InvalidArgument(what + ": record rejected: " + rd_kafka_err2str(err));
  return Status::Unavailable(what + ": " + rd_kafka_err2str(err));
}

void LogCallback(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  if (std::string_view(fac) == "FAIL") return;  // the error callback reports these once
  if (std::string_view(fac) == "CONFWARN") {
    // The user's kafka properties (-X, [kafka.properties]) go to every client: one that applies
    // to consumers only "will be ignored by this producer instance", as meant. Other
    // configuration warnings once per process, not once per client.
    if (std::strstr(buf, "will be ignored by this")) level = 7;
    static std::mutex mu;
    static auto* said = new std::set<std::string>();  // reachable: not a leak
    std::lock_guard<std::mutex> lock(mu);
    if (level <= 5 && !said->insert(buf).second) return;
  }
  if (level <= 3) {
    LOG_ERROR("kafka {}: {}", fac, buf);
  } else if (level <= 5) {
    LOG_WARN("kafka {}: {}", fac, buf);
  } else {
    LOG_DEBUG("kafka {}: {}", fac, buf);
  }
}

Result<ConfPtr> MakeConf(const ClientConfig& config, const std::map<std::string, std::string>& defaults) {
  ConfPtr conf(rd_kafka_conf_new());
  char err[512];
  auto set = [&](const std::string& k, const std::string& v) -> Status {
    if (rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      return Status::InvalidArgument("kafka property " + k + "=" + v + ": " + err);
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(set("bootstrap.servers", config.brokers));
  for (const auto& [k, v] : defaults) RETURN_IF_ERROR(set(k, v));
  for (const auto& [k, v] : config.properties) RETURN_IF_ERROR(set(k, v));
  rd_kafka_conf_set_log_cb(conf.get(), LogCallback);
  rd_kafka_conf_set_error_cb(conf.get(), ErrorCallback);
  return conf;
}

Result<RdKafkaPtr> MakeHandle(rd_kafka_type_t type, ConfPtr conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), err, sizeof(err));
  if (!rk) return Status::InvalidArgument(std::string("creating kafka client: ") + err);
  conf.release();  // owned by rk now
  return RdKafkaPtr(rk);
}

}  // namespace webindex::kafka
