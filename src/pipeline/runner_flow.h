// RunnerFlow: flow control for one StageRunner (RunnerOptions::flow, flow_control.h). It counts
// what the runner sends to and reads from the topics FlowControl watches, and sizes its next
// batch so that the stages downstream can take what it writes. Owned by the StageRunner; runner
// thread only. Calls FlowControl, nothing else. Crash: it keeps nothing on disk; a start counts
// from what it reads and sends again (the re-sent outbox included), as after any start.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/runner_part.h"

namespace webindex::pipeline {

class RunnerFlow : private RunnerPart {
 public:
  //! Registers the runner as a writer of each watched topic its stage outputs to.
  explicit RunnerFlow(const RunnerPart& part);

  //! Input records the next batch may take: max_batch, or less (0: none) under flow control.
  size_t BatchRoom();
  //! Flow control, after a commit: what it read leaves its topic's backlog; what it wrote per
  //! input record (`outputs`, the commit's records) updates the estimate of the next batch's.
  void CountFlow(const std::vector<InRecord>& input, const std::vector<OutRecord>& outputs);
  //! A record handed to the producer: it joins its topic's backlog if that topic is watched.
  void CountSent(const OutRecord& record);

 private:
  //! The watched topic called `topic`, or nullptr.
  FlowControl::Topic* FlowTopic(const std::string& topic);

  std::vector<std::pair<std::string, FlowControl::Topic*>> flow_topics_;  // names met, watched or not
  std::vector<std::pair<const FlowControl::Topic*, double>> flow_out_;  // written: bytes per input record
  bool flow_writes_ = false;    // the stage writes a watched topic: its batches are limited
  size_t last_batch_in_ = 0;    // input records of the last committed batch that had any
};

}  // namespace webindex::pipeline
