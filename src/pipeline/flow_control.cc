#include "pipeline/flow_control.h"

#include <algorithm>
#include <cmath>

namespace webindex::pipeline {
namespace {
// Until a topic has records of this process to weigh, an old record counts as this many bytes
// (a page export is larger, a delta smaller).
constexpr uint64_t kUnknownRecordBytes = 512;
}  // namespace

FlowControl::Topic::Topic(std::string name, int32_t partitions) : name_(std::move(name)) {
  for (int32_t p = 0; p < partitions; ++p) parts_.push_back(std::make_unique<Partition>());
}

uint64_t FlowControl::Topic::AverageRecord() const {
  const uint64_t records = records_.load(std::memory_order_relaxed);
  return records == 0 ? kUnknownRecordBytes : bytes_.load(std::memory_order_relaxed) / records;
}

uint64_t FlowControl::Topic::Backlog(int32_t p) const {
  const Partition& part = *parts_[static_cast<size_t>(p)];
  const uint64_t taken = part.taken.load(std::memory_order_relaxed) - part.taken_base.load(std::memory_order_relaxed);
  const uint64_t added = part.added.load(std::memory_order_relaxed) - part.added_base.load(std::memory_order_relaxed);
  const int64_t old = std::max<int64_t>(0, part.old_left.load(std::memory_order_relaxed));
  return (added > taken ? added - taken : 0) + static_cast<uint64_t>(old) * AverageRecord();
}

uint64_t FlowControl::Topic::MaxBacklog() const {
  uint64_t most = 0;
  for (int32_t p = 0; p < partitions(); ++p) most = std::max(most, Backlog(p));
  return most;
}

FlowControl::Topic* FlowControl::Watch(const std::string& name, int32_t partitions) {
  if (Topic* t = Find(name)) return t;
  topics_.push_back(std::make_unique<Topic>(name, partitions));
  return topics_.back().get();
}

FlowControl::Topic* FlowControl::Find(std::string_view name) const {
  for (const auto& t : topics_) {
    if (t->name() == name) return t.get();
  }
  return nullptr;
}

void FlowControl::Resync(Topic* topic, int32_t p, int64_t records) {
  if (p < 0 || p >= topic->partitions()) return;
  Topic::Partition& part = *topic->parts_[static_cast<size_t>(p)];
  part.added_base.store(part.added.load(std::memory_order_relaxed), std::memory_order_relaxed);
  part.taken_base.store(part.taken.load(std::memory_order_relaxed), std::memory_order_relaxed);
  part.old_left.store(std::max<int64_t>(0, records), std::memory_order_relaxed);
}

void FlowControl::Add(Topic* topic, int32_t p, uint64_t bytes) {
  if (p < 0 || p >= topic->partitions()) return;
  bytes += kRecordOverhead;
  topic->parts_[static_cast<size_t>(p)]->added.fetch_add(bytes, std::memory_order_relaxed);
  topic->records_.fetch_add(1, std::memory_order_relaxed);
  topic->bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

void FlowControl::Take(Topic* topic, int32_t p, uint64_t records, uint64_t bytes) {
  if (p < 0 || p >= topic->partitions() || records == 0) return;
  Topic::Partition& part = *topic->parts_[static_cast<size_t>(p)];
  bytes += records * kRecordOverhead;
  // A partition is read in order: its old records come first, and weigh nothing in `added`.
  const int64_t old = part.old_left.load(std::memory_order_relaxed);
  if (old > 0) {
    const uint64_t of_old = std::min<uint64_t>(records, static_cast<uint64_t>(old));
    part.old_left.fetch_sub(static_cast<int64_t>(of_old), std::memory_order_relaxed);
    bytes -= bytes / records * of_old;
  }
  part.taken.fetch_add(bytes, std::memory_order_relaxed);
}

uint64_t FlowControl::Room(const std::vector<std::pair<const Topic*, double>>& outputs, uint64_t max) const {
  uint64_t room = max;
  for (const auto& [topic, bytes_per_input] : outputs) {
    const uint64_t backlog = topic->MaxBacklog();
    if (backlog >= budget_) return 0;
    if (bytes_per_input <= 0) continue;
    // Keys spread a batch's records over the partitions, unevenly: twice the even share.
    const double per_partition = 2 * bytes_per_input / static_cast<double>(topic->partitions());
    const double share = static_cast<double>(budget_ - backlog) / std::max(1, topic->writers_.load());
    const double fits = std::max(1.0, std::floor(share / per_partition));
    room = std::min<uint64_t>(room, fits >= static_cast<double>(max) ? max : static_cast<uint64_t>(fits));
  }
  return room;
}

}  // namespace webindex::pipeline
