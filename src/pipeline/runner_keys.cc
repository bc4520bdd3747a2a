#include "pipeline/runner_keys.h"

#include "common/bytes.h"

namespace webindex::pipeline {

std::string OffsetPrefix(std::string_view stage, std::string_view topic) {
  return std::string(stage) + "/" + std::string(topic) + "/";
}

std::string OffsetKey(std::string_view stage, std::string_view topic, int32_t partition) {
  return OffsetPrefix(stage, topic) + std::to_string(partition);
}

std::string OutboxKey(std::string_view stage, uint64_t seq) {
  BytesWriter w;
  w.str() = std::string(stage) + "/";
  w.PutFixed64BE(seq);
  return w.Take();
}

std::string SeqKey(std::string_view stage) { return "seq/" + std::string(stage); }

std::string TaskSeqKey(std::string_view stage, int32_t partition) {
  return "task-seq/" + std::string(stage) + "/" + std::to_string(partition);
}

std::string TaskOutboxPrefix(std::string_view stage) { return "task-out/" + std::string(stage) + "/"; }

std::string TaskOutboxKey(std::string_view stage, int32_t partition, uint64_t epoch, uint64_t row, uint32_t part) {
  BytesWriter w;
  w.str() = TaskOutboxPrefix(stage) + std::to_string(partition) + "/";
  w.PutFixed64BE(epoch);
  w.PutFixed64BE(row);
  w.PutFixed64BE(part);
  return w.Take();
}

std::string TaskOutboxListPrefix(std::string_view stage) { return "task-out-keys/" + std::string(stage) + "/"; }

std::string TaskOutboxListKey(std::string_view stage, uint64_t row) {
  BytesWriter w;
  w.str() = TaskOutboxListPrefix(stage);
  w.PutFixed64BE(row);
  return w.Take();
}

std::string EncodeKeyList(const std::vector<std::pair<int32_t, std::string>>& keys) {
  BytesWriter w;
  for (const auto& [task, key] : keys) {
    w.PutVarint(static_cast<uint64_t>(task));
    w.PutString(key);
  }
  return w.Take();
}

Result<std::vector<std::pair<int32_t, std::string>>> DecodeKeyList(std::string_view bytes) {
  std::vector<std::pair<int32_t, std::string>> keys;
  BytesReader r(bytes);
  while (!r.empty()) {
    uint64_t task;
    std::string key;
    if (!r.GetVarint(&task) || !r.GetString(&key)) return Status::Corruption("list of a commit's changelog outbox keys");
    keys.emplace_back(static_cast<int32_t>(task), std::move(key));
  }
  return keys;
}

std::string LocalCopyPrefix(std::string_view stage) { return "local-copy/" + std::string(stage) + "/"; }

std::string LocalCopyKey(std::string_view stage, int32_t task) { return LocalCopyPrefix(stage) + std::to_string(task); }

}  // namespace webindex::pipeline
