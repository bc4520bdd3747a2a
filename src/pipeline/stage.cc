#include "pipeline/stage.h"

#include <algorithm>

#include "pipeline/fence.h"

namespace webindex::pipeline {
namespace {

//! Room kept for one *.truncated header: its name and up to 20 digits.
constexpr size_t kTruncatedHeaderBytes = 40;

//! The longest prefix of `s` of at most `n` bytes that does not split a UTF-8 sequence.
std::string_view Utf8Prefix(std::string_view s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace

OutRecord MakeDeadLetter(const std::string& topic, std::string_view key, std::string_view value,
                         std::vector<std::pair<std::string, std::string>> headers, size_t budget) {
  OutRecord r;
  r.topic = topic;
  r.partition = -1;  // dead letters are not deduplicated downstream: any partition will do
  r.headers = std::move(headers);
  const size_t header_bytes = kafka::RecordBytes(r);
  if (header_bytes + key.size() + value.size() <= budget) {
    r.key.assign(key);
    r.value.assign(value);
    return r;
  }
  const size_t room = budget > header_bytes + 2 * kTruncatedHeaderBytes
                          ? budget - header_bytes - 2 * kTruncatedHeaderBytes
                          : 0;
  // A key rarely matters beyond its start; the value gets what it leaves.
  r.key.assign(Utf8Prefix(key, std::min(key.size(), room / 2)));
  r.value.assign(Utf8Prefix(value, room - r.key.size()));
  if (r.key.size() < key.size()) r.headers.emplace_back("key.truncated", std::to_string(key.size()));
  if (r.value.size() < value.size()) r.headers.emplace_back("value.truncated", std::to_string(value.size()));
  return r;
}

BatchContext::TaskOrigin BatchContext::NextTaskOrigin(int32_t partition) {
  uint64_t& next = task_seqs_[partition];
  if (next == 0) next = 1;
  TaskOrigin origin{std::string(stage_) + "." + std::to_string(partition), next};
  ++next;
  return origin;
}

void BatchContext::Emit(int32_t task, OutRecord record) {
  if (task_epochs_) {
    record.headers.emplace_back(kTaskHeader, TaskName(stage_, task));
    if (const uint64_t epoch = EpochOf(task)) record.headers.emplace_back(kEpochHeader, std::to_string(epoch));
  }
  out_.push_back(std::move(record));
  out_tasks_.push_back(task);
}

uint64_t BatchContext::EpochOf(int32_t task) const {
  if (!task_epochs_) return 0;
  auto it = task_epochs_->find(task);
  return it == task_epochs_->end() ? 0 : it->second;
}

void BatchContext::Put(int32_t task, state::Family family, std::string_view key, std::string_view value) {
  batch_.Put(family, key, value);
  if (record_changes_) changes_.push_back({task, family, std::string(key), std::string(value)});
}

void BatchContext::Delete(int32_t task, state::Family family, std::string_view key) {
  batch_.Delete(family, key);
  if (record_changes_) changes_.push_back({task, family, std::string(key), std::nullopt});
}

size_t BatchContext::BudgetOf(const std::string& topic) const {
  static const kafka::RecordLimits kDefaults;
  return (limits_ ? *limits_ : kDefaults).BudgetOf(topic);
}

OutRecord DeadLetterOf(const InRecord& in, const std::string& dead_letter_topic, std::string_view reason,
                       uint64_t generation, size_t budget) {
  return MakeDeadLetter(dead_letter_topic, in.key, in.value,
                        {{"reason", std::string(reason)},
                         {"source.topic", std::string(in.topic)},
                         {"source.partition", std::to_string(in.partition)},
                         {"source.offset", std::to_string(in.offset)},
                         {"generation", std::to_string(generation)}},
                        budget);
}

void BatchContext::DeadLetter(const InRecord& in, const std::string& dead_letter_topic, std::string_view reason) {
  Emit(DeadLetterOf(in, dead_letter_topic, reason, generation_, BudgetOf(dead_letter_topic)));
}

Status CheckInstance(const TopicLayout& layout, std::string_view record_instance, const InRecord& record) {
  if (record_instance.empty() || layout.instance.empty() || record_instance == layout.instance) return Status::Ok();
  // Writers are data dirs (a 16-digit id) or consumer groups ("group:NAME").
  auto who = [](std::string_view instance) {
    return instance.starts_with("group:") ? "consumer group " + std::string(instance.substr(6))
                                          : "data dir " + std::string(instance);
  };
  return Status::InvalidArgument(
      "topic " + std::string(record.topic) + "[" + std::to_string(record.partition) + "] at offset " +
      std::to_string(record.offset) + " holds a record of another webindex processor (" + who(record_instance) +
      "; this one is " + who(layout.instance) +
      "): two processors are working on the same topics, and their counts would mix. Stop the other one, or give "
      "each topics of its own (topics/*.toml, `name`). This processor's table does not have that record");
}

}  // namespace webindex::pipeline
