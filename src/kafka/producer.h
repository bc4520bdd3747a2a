// The producer: idempotent, in order and without gaps per partition, with no delivery timeout.
// Owns one librdkafka handle, its topic handles and the poll thread that reports deliveries;
// called from any thread. The delivery callback runs on the poll thread, and inside Flush on the
// thread that flushes (rd_kafka_flush serves callbacks too).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "kafka/common.h"

namespace webindex::kafka {

//! Called once per produced record from the producer's poll thread with the record's opaque.
//! A status for which IsRecordRejected holds means the cluster will never take this record.
using DeliveryCallback = std::function<void(uint64_t opaque, const Status& status)>;
//! The same with the offset the record got (-1 when it failed).
using DeliveryReportCallback = std::function<void(uint64_t opaque, const Status& status, int64_t offset)>;

//! Asynchronous producer with in-order, gap-free delivery per partition (idempotent).
//! Thread-safe: Produce may be called from many threads; delivery reports arrive on an
//! internal poll thread started by Create and stopped by the destructor.
class Producer {
 public:
  static Result<std::unique_ptr<Producer>> Create(const ClientConfig& config, DeliveryCallback on_delivery);
  static Result<std::unique_ptr<Producer>> Create(const ClientConfig& config, DeliveryReportCallback on_delivery);
  ~Producer();
  //! Copies the record; blocks (serving callbacks) while the local queue is full.
  Status Produce(const OutRecord& record, uint64_t opaque);
  //! Learns the partitions of `topics` now, so the first record to each is not delayed.
  Status WarmUp(const std::vector<std::string>& topics, int timeout_ms);
  //! Waits until every produced record is acknowledged or `timeout_ms` passes.
  Status Flush(int timeout_ms);
  //! A fatal producer error (idempotence broken); the process must restart from its outbox.
  Status FatalError() const;

 private:
  struct Impl;
  explicit Producer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

//! Sends `records` with a producer of its own and waits up to `timeout_ms` until every one is
//! acknowledged: the first error, if any (for a few control records, not for a stage's output).
Status ProduceAndWait(const ClientConfig& config, const std::vector<OutRecord>& records, int timeout_ms);

}  // namespace webindex::kafka
