// Replay of a consumer group (docs/scale-out.md §9.6): `webindex replay --group NAME`. A lone
// replay builds the next generation in its own data dir; a group's stage state lives in the
// changelogs its members share, so the group builds it: this command announces generation N+1
// (`building`, on the generations topic), the members run its stages beside generation N's and
// keep its table, and once its consumer groups are within --switch-lag of their inputs this
// command checks that it lacks no page generation N has (both restored from the changelogs),
// announces the switch in every exports partition and writes `switched`. Each step can be
// interrupted: the same command resumes (the members go on building meanwhile), `--abort` writes
// `aborted`, and every member drops the build.
#pragma once

#include <atomic>

#include "app/processor.h"
#include "app/replay.h"

namespace webindex::app {

//! Runs a replay of group `config.group`. Returns Aborted when `stop` interrupted it, or when the
//! new generation would lack pages and options.force is off.
Status ReplayGroup(const ProcessorConfig& config, const ReplayOptions& options, const std::atomic<bool>& stop);

//! How far the stage groups of `generation` are behind their inputs, from the positions their
//! members report (the groups' committed offsets): records left, and the partitions no member
//! has reported yet (every record of such a partition counts as left).
struct GroupLag {
  int64_t records = 0;
  int unreported = 0;
};
Result<GroupLag> LagOfGeneration(const ProcessorConfig& config, kafka::Admin& admin, uint64_t generation);

}  // namespace webindex::app
