// PositionReports: publishes a StageRunner's committed positions as its consumer group's offsets
// (kafka::Consumer::ReportPositions) for lag monitors and `webindex load`; a group member only
// for the tasks it owns and only while its assignment is settled. Owned by the StageRunner;
// runner thread. Calls the consumer and the TaskOwnership. Crash: the reports are a copy of the
// store's positions, never read back; a start reports again from the store.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "pipeline/runner_part.h"
#include "pipeline/task_ownership.h"

namespace webindex::pipeline {

class PositionReports : private RunnerPart {
 public:
  PositionReports(const RunnerPart& part, const TaskOwnership& ownership) : RunnerPart(part), ownership_(ownership) {}

  //! Publishes the committed positions, unless they were published less than 200 ms (a group's
  //! member: 1 s) ago, or are what was published last.
  void Report();
  //! The next Report publishes whatever the time since the last one.
  void MakeDue() { reported_at_ = {}; }

 private:
  const TaskOwnership& ownership_;
  std::chrono::steady_clock::time_point reported_at_{};  // positions last reported (Report)
  std::vector<std::pair<int32_t, int64_t>> reported_;     // (partition, position) last reported
};

}  // namespace webindex::pipeline
