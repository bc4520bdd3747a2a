#include "pipeline/changelog_trim.h"

#include <algorithm>

namespace webindex::pipeline {

uint64_t SnapshotTrims::Begin(int32_t task, uint64_t epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_id_++ & ((1ull << (kTagBits - 2)) - 1);
  sending_[id] = Snapshot{task, epoch};
  return id;
}

uint64_t SnapshotTrims::Tag(uint64_t id, Part part) { return (id << 2) | static_cast<uint64_t>(part); }

void SnapshotTrims::Abandon(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  sending_.erase(id);
}

void SnapshotTrims::OnDelivered(uint64_t tag, const Status& status, int64_t offset) {
  const uint64_t id = (tag & ((1ull << kTagBits) - 1)) >> 2;
  const auto part = static_cast<Part>(tag & 3);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sending_.find(id);
  if (it == sending_.end()) return;  // of a task given up since
  Snapshot& s = it->second;
  if (!status.ok() || offset < 0) s.failed = true;
  if (part == Part::kBegin && !s.failed) s.begin = offset;
  if (part != Part::kEnd) return;
  // Records of one partition are acknowledged in the order they were sent: the end comes last.
  if (!s.failed && s.begin >= 0) {
    auto [done, fresh] = complete_.try_emplace(s.task, Due{s.begin, s.epoch});
    if (!fresh && done->second.before < s.begin) done->second = Due{s.begin, s.epoch};
  }
  sending_.erase(it);
}

std::map<int32_t, SnapshotTrims::Due> SnapshotTrims::Ready() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<int32_t, Due> ready;
  for (const auto& [task, due] : complete_) {
    auto last = trimmed_.find(task);
    if (last == trimmed_.end() || last->second < due.before) ready.emplace(task, due);
  }
  return ready;
}

void SnapshotTrims::Trimmed(int32_t task, int64_t before) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t& last = trimmed_[task];
  last = std::max(last, before);
}

void SnapshotTrims::Forget(int32_t task) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(sending_, [&](const auto& s) { return s.second.task == task; });
  complete_.erase(task);
  trimmed_.erase(task);
}

}  // namespace webindex::pipeline
