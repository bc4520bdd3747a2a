// Restore from a changelog (docs/scale-out.md §4): a stage task's state changes go, with every
// commit, to partition `task` of the stage's compacted changelog topic (StageRunner), keyed by
// generation, family and state key, each commit's changes closed by a ChangelogCommitKey record. Restore reads such a partition and
// applies the changes of every closed commit to a store, so that the task's state, position,
// dedupe marks and sequence counter exist there as the writer committed them.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "kafka/client.h"
#include "state/store.h"

namespace webindex::pipeline {

struct RestoreStats {
  uint64_t records = 0;    //!< read from the partition
  uint64_t commits = 0;    //!< closed commits applied
  uint64_t changes = 0;    //!< puts and deletes applied
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
