#include "pipeline/position_reports.h"

namespace webindex::pipeline {

void PositionReports::Report() {
  // For lag monitors and `webindex load`, five times a second at most; none before the consumer
  // exists. A group's member reports for the tasks it owns, once a second at most and only while
  // its assignment is settled: its commits carry the group's generation, and one that meets a
  // newer generation makes the client declare the whole assignment lost (librdkafka drops it,
  // and the tasks are dropped and restored again): settled() asks the client's join state too.
  const auto every = options_.group ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(200);
  if (!consumer_ || (options_.group && !ownership_.settled())) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - reported_at_ < every) return;
  reported_at_ = now;
  std::set<int32_t> owned;
  if (options_.group) owned = ownership_.Owned();
  std::vector<kafka::TopicPartitionOffset> positions;
  std::vector<std::pair<int32_t, int64_t>> reporting;
  for (int32_t p = 0; p < input_partitions_; ++p) {
    if (options_.group && !owned.count(p)) continue;
    if (positions_[p] >= 0) {
      positions.push_back({stage_->input_topic(), p, positions_[p].load()});
      reporting.emplace_back(p, positions_[p].load());
    }
  }
  if (reporting == reported_) return;  // asked again while idle: nothing new
  reported_ = std::move(reporting);
  consumer_->ReportPositions(positions);
}

}  // namespace webindex::pipeline
