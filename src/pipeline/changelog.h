// Changelogs (docs/scale-out.md §4): a stage task's state changes go, with every commit, to
// partition `task` of the stage's compacted changelog topic (StageRunner::AddChangelog), each
// commit's changes closed by a ChangelogCommitKey record. This file holds the records' key
// format and the restore: it reads such a partition and applies the changes of every closed
// commit to a store, so that the task's state, position, dedupe marks and sequence counter
// exist there as the writer committed them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "kafka/client.h"
#include "state/store.h"

namespace webindex::pipeline {

//! The changelog topic of a stage: partitioned like its input, compacted.
inline std::string ChangelogTopic(std::string_view prefix, std::string_view stage) {
  return std::string(prefix) + std::string(stage);
}
//! A changelog record's key: the generation (8 bytes, big-endian), one byte naming the family,
//! then the state key. The generation keeps a replay's keys apart from the live ones' when the
//! topic is compacted. The generation and kChangelogCommit alone is the key of the record that
//! closes one commit's changes of a task.
std::string ChangelogKey(uint64_t generation, state::Family family, std::string_view key);
std::string ChangelogCommitKey(uint64_t generation);
inline constexpr char kChangelogCommit = '\xff';

//! A changelog key taken apart (views into the key); nullopt when it is too short to be one.
struct ChangelogKeyParts {
  uint64_t generation;
  uint8_t family;  //!< a state::Family, or kChangelogCommit
  std::string_view state_key;
};
std::optional<ChangelogKeyParts> ParseChangelogKey(std::string_view key);

struct RestoreStats {
  uint64_t records = 0;           //!< read from the partition
  uint64_t commits = 0;           //!< closed commits applied
  uint64_t changes = 0;           //!< puts and deletes applied
  uint64_t other_generation = 0;  //!< records of other generations or data dirs, skipped
  uint64_t unfinished = 0;        //!< changes after the last closing record, not applied
};

//! Applies partition `task` of changelog `topic`, from its start to its current end, to
//! `store`: only records of `generation` written by data dir `instance` ("" = any). Changes
//! are applied per closed commit, in one write each.
Result<RestoreStats> RestoreTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                 const std::string& topic, int32_t task, uint64_t generation,
                                 const std::string& instance);

}  // namespace webindex::pipeline
