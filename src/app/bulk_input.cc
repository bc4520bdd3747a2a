#include "app/bulk_input.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "kafka/consumer.h"
#include "pipeline/runner_keys.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 30000;
constexpr uint64_t kRunBytes = uint64_t{32} << 20;
//! A read that gets no record for this long ends where it got (see ReadRange).
constexpr std::chrono::seconds kStalledAfter{10};
using Clock = std::chrono::steady_clock;

}  // namespace

Result<std::unique_ptr<BulkSender>> BulkSender::Create(const ProcessorConfig& config, int64_t max_message_bytes,
                                                       std::string what) {
  auto sender = std::unique_ptr<BulkSender>(new BulkSender(std::move(what)));
  kafka::ClientConfig producer = config.kafka;
  producer.properties["message.max.bytes"] = std::to_string(max_message_bytes);
  // The queue waits for the broker within a bound of its own, whatever the build sends.
  producer.properties.emplace("queue.buffering.max.kbytes", "32768");
  BulkSender* self = sender.get();
  ASSIGN_OR_RETURN(sender->producer_,
                   kafka::Producer::Create(producer, [self](uint64_t, const Status& status) { self->Delivered(status); }));
  return sender;
}

Status BulkSender::Send(const OutRecord& record) {
  RETURN_IF_ERROR(failed());
  ++sent_;
  return producer_->Produce(record, 0);
}

Status BulkSender::Wait(const std::atomic<bool>& stop) {
  while (true) {
    RETURN_IF_ERROR(failed());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (acknowledged_ == sent_) return Status::Ok();
    }
    if (stop) return Status::Aborted("bulk build interrupted");
    (void)producer_->Flush(200);  // a timeout only means: not yet
  }
}

void BulkSender::Delivered(const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++acknowledged_;
  if (!status.ok() && failure_.ok()) failure_ = status.WithContext(what_);
}

Status BulkSender::failed() {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

size_t SortBudget(const BulkOptions& options, int alive) {
  return static_cast<size_t>(std::min<uint64_t>(options.memory_bytes / static_cast<uint64_t>(alive), kRunBytes));
}

Result<BulkRange> UnreadRange(state::Store& store, kafka::Admin& admin, std::string_view stage,
                              const std::string& topic, std::string* missing) {
  BulkRange range;
  range.topic = topic;
  ASSIGN_OR_RETURN(const int partitions, admin.PartitionCount(topic, kAdminTimeoutMs));
  range.start.resize(partitions);
  range.end.resize(partitions);
  for (int32_t p = 0; p < partitions; ++p) {
    ASSIGN_OR_RETURN(auto at, state::GetFixed64(store, state::Family::kOffsets, pipeline::OffsetKey(stage, topic, p),
                                                fmt::format("the {} stage's position", stage)));
    if (!at) {
      *missing = fmt::format("the {} stage has no position in {}[{}]", stage, topic, p);
      return range;
    }
    ASSIGN_OR_RETURN(auto marks, admin.Watermarks(topic, p, kAdminTimeoutMs));
    range.start[p] = std::max(static_cast<int64_t>(*at), marks.first);
    range.end[p] = marks.second;
    range.unread += std::max<int64_t>(0, range.end[p] - range.start[p]);
  }
  return range;
}

Status ReadRange(const ProcessorConfig& config, BulkRange* range, const std::function<Result<Take>(const InRecord&)>& take,
                 const std::function<void(uint64_t records, uint64_t bytes)>& progress, const std::atomic<bool>& stop) {
  const auto partitions = static_cast<int32_t>(range->start.size());
  // A bounded range read whole: large fetches and a deep local queue (within the consumers'
  // 64 MiB queue bound) keep the broker's answers coming; -X settings of the same names win.
  kafka::ClientConfig reader = config.kafka;
  for (const auto& [name, value] : {std::pair{"max.partition.fetch.bytes", "8388608"},
                                    std::pair{"fetch.max.bytes", "67108864"},
                                    std::pair{"queued.min.messages", "1000000"}}) {
    reader.properties.emplace(name, value);
  }
  ASSIGN_OR_RETURN(auto consumer, kafka::Consumer::Create(reader, config.app_id + ".bulk"));
  std::vector<kafka::TopicPartitionOffset> assign;
  for (int32_t p = 0; p < partitions; ++p) {
    if (range->end[p] > range->start[p]) assign.push_back({range->topic, p, range->start[p]});
  }
  RETURN_IF_ERROR(consumer->Assign(assign));
  std::vector<int64_t> next = range->start;
  std::vector<bool> left(partitions, false);
  auto done = [&] {
    for (int32_t p = 0; p < partitions; ++p) {
      if (!left[p] && next[p] < range->end[p]) return false;
    }
    return true;
  };
  uint64_t records = 0, bytes = 0;
  kafka::MessageBatch batch;
  auto last_record = Clock::now();
  while (!done()) {
    if (stop) return Status::Aborted("bulk build interrupted");
    RETURN_IF_ERROR(consumer->PollBatch(10000, 500, &batch));
    if (!batch.empty()) last_record = Clock::now();
    if (Clock::now() - last_record > kStalledAfter) {
      for (int32_t p = 0; p < partitions; ++p) {
        if (left[p] || next[p] >= range->end[p]) continue;
        LOG_INFO("bulk build: {}[{}] gave no record from offset {} to its end {} for {} s; the stage reads the "
                 "partition from there",
                 range->topic, p, next[p], range->end[p],
                 std::chrono::duration_cast<std::chrono::seconds>(kStalledAfter).count());
        range->end[p] = next[p];
      }
      break;
    }
    for (const InRecord& r : batch.records()) {
      if (r.partition < 0 || r.partition >= partitions || left[r.partition] || r.offset < next[r.partition] ||
          r.offset >= range->end[r.partition]) {
        continue;
      }
      ASSIGN_OR_RETURN(const Take verdict, take(r));
      if (verdict == Take::kLeftToStage) {
        left[r.partition] = true;
        next[r.partition] = r.offset;
        LOG_INFO("bulk build: {}[{}] offset {} is a record the stage refuses; the stage reads the partition from there",
                 range->topic, r.partition, r.offset);
        continue;
      }
      next[r.partition] = r.offset + 1;
      ++records;
      bytes += r.value.size();
    }
    progress(records, bytes);
  }
  consumer->Close();
  range->end = next;
  return Status::Ok();
}

Progress::Options PhaseProgress(std::string_view build, std::string_view phase, uint64_t total, std::string_view unit) {
  Progress::Options options;
  options.label = fmt::format("{}, {}", build, phase);
  options.unit = std::string(unit);
  options.total_records = total;
  return options;
}

std::string OnDisk(uint64_t bytes) {
  return fmt::format("sort runs on disk {:.1f} MB", static_cast<double>(bytes) / 1e6);
}

}  // namespace webindex::app
