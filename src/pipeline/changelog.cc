#include "pipeline/changelog.h"

#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/log.h"

namespace webindex::pipeline {
namespace {

constexpr int kTimeoutMs = 10000;

struct Change {
  state::Family family;
  std::string key;
  std::optional<std::string> value;
};

}  // namespace

std::string ChangelogKey(uint64_t generation, state::Family family, std::string_view key) {
  BytesWriter w;
  w.PutFixed64BE(generation);
  w.str().push_back(static_cast<char>(family));
  w.str().append(key);
  return w.Take();
}

std::string ChangelogCommitKey(uint64_t generation) {
  BytesWriter w;
  w.PutFixed64BE(generation);
  w.str().push_back(kChangelogCommit);
  return w.Take();
}

std::optional<ChangelogKeyParts> ParseChangelogKey(std::string_view key) {
  BytesReader r(key);
  ChangelogKeyParts parts;
  if (!r.GetFixed64BE(&parts.generation) || key.size() < 9) return std::nullopt;
  parts.family = static_cast<uint8_t>(key[8]);
  parts.state_key = key.substr(9);
  return parts;
}

Result<RestoreStats> RestoreTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                 const std::string& topic, int32_t task, uint64_t generation,
                                 const std::string& instance) {
  RestoreStats stats;
  ASSIGN_OR_RETURN(auto marks, admin.Watermarks(topic, task, kTimeoutMs));
  const auto [low, end] = marks;
  if (low >= end) return stats;
  ASSIGN_OR_RETURN(auto consumer, kafka::Consumer::Create(config, "webindex-restore"));
  RETURN_IF_ERROR(consumer->Assign({{topic, task, low}}));
  std::vector<Change> pending;
  kafka::MessageBatch batch;
  int64_t next = low;
  int idle_polls = 0;
  while (next < end) {
    RETURN_IF_ERROR(consumer->PollBatch(10000, 1000, &batch));
    if (batch.empty() && ++idle_polls >= 10) {
      return Status::Unavailable("restore of " + topic + "[" + std::to_string(task) +
                                 "] got nothing for 10 s at offset " + std::to_string(next) + " of " +
                                 std::to_string(end));
    }
    if (!batch.empty()) idle_polls = 0;
    for (const auto& r : batch.records()) {
      next = r.offset + 1;
      ++stats.records;
      if (!instance.empty() && r.Header("inst") != std::optional<std::string_view>(instance)) {
        ++stats.other_generation;
        continue;
      }
      auto where = [&] { return topic + "[" + std::to_string(task) + "] offset " + std::to_string(r.offset); };
      const auto key = ParseChangelogKey(r.key);
      if (!key)
        return Status::Corruption("changelog record at " + where() + " has no generation and family in its key");
      if (key->generation != generation) {
        ++stats.other_generation;
        continue;
      }
      if (static_cast<char>(key->family) == kChangelogCommit && key->state_key.empty()) {
        state::WriteBatch wb(store);
        for (auto& c : pending) {
          if (c.value) {
            wb.Put(c.family, c.key, *c.value);
          } else {
            wb.Delete(c.family, c.key);
          }
        }
        RETURN_IF_ERROR(store.Write(wb).WithContext("restoring " + where()));
        stats.changes += pending.size();
        ++stats.commits;
        pending.clear();
        continue;
      }
      if (key->family >= static_cast<uint8_t>(state::Family::kCount)) {
        return Status::Corruption("changelog record at " + where() + " names no state family");
      }
      pending.push_back({static_cast<state::Family>(key->family), std::string(key->state_key),
                         r.tombstone ? std::nullopt : std::optional<std::string>(std::string(r.value))});
    }
  }
  stats.unfinished = pending.size();
  if (!pending.empty()) {
    LOG_WARN(
        "restore of {}[{}]: {} changes after the last closed commit are not applied (their writer stopped "
        "between them and the record closing them)",
        topic, task, pending.size());
  }
  return stats;
}

}  // namespace webindex::pipeline
