// The baseline of `webindex bench`: how fast a plain kafka::Consumer reads every retained
// record of a topic, doing nothing with them. Blocking; one thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "kafka/common.h"
#include "kafka/consumer.h"

namespace webindex::bench {

struct RawConsumeResult {
  uint64_t records = 0;  //!< per pass: the topic's retained records
  int passes = 0;
  double records_per_s = 0, mb_per_s = 0;  //!< medians over the passes
};

//! Reads `topic` from its low to its high watermarks, in passes of a fresh consumer each,
//! for at least `min_seconds` and 3 passes (at most 20). Each pass connects a fresh consumer
//! first, then times re-assigning the start offsets through reading the last record.
Result<RawConsumeResult> MeasureRawConsume(const kafka::ClientConfig& kafka, const std::string& topic,
                                           double min_seconds);

}  // namespace webindex::bench
