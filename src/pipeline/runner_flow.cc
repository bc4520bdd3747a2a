#include "pipeline/runner_flow.h"

#include <algorithm>

namespace webindex::pipeline {

RunnerFlow::RunnerFlow(const RunnerPart& part) : RunnerPart(part) {
  if (options_.flow) {
    for (const auto& [topic, partitions] : stage_->Outputs()) {
      if (FlowControl::Topic* watched = options_.flow->Find(topic)) {
        flow_writes_ = true;
        FlowControl::AddWriter(watched);
      }
    }
  }
}

void RunnerFlow::CountSent(const OutRecord& record) {
  if (FlowControl::Topic* topic = FlowTopic(record.topic)) FlowControl::Add(topic, record.partition, kafka::RecordBytes(record));
}

FlowControl::Topic* RunnerFlow::FlowTopic(const std::string& topic) {
  for (const auto& [name, watched] : flow_topics_) {
    if (name == topic) return watched;
  }
  flow_topics_.emplace_back(topic, options_.flow->Find(topic));
  return flow_topics_.back().second;
}

size_t RunnerFlow::BatchRoom() {
  if (!options_.flow || !flow_writes_) return options_.max_batch;
  // What one input record becomes is measured batch by batch: a batch is at most twice the last
  // one, so that a run of light batches cannot let one heavy batch of max_batch through.
  constexpr size_t kFirstBatch = 64;
  const size_t grown = std::max(kFirstBatch, 2 * last_batch_in_);
  return options_.flow->Room(flow_out_, std::min(options_.max_batch, grown));
}

void RunnerFlow::CountFlow(const std::vector<InRecord>& input, const std::vector<OutRecord>& outputs) {
  if (FlowControl::Topic* in = FlowTopic(stage_->input_topic())) {
    std::vector<std::pair<uint64_t, uint64_t>> read(static_cast<size_t>(input_partitions_));  // records, bytes
    for (const InRecord& r : input) {
      if (r.partition < 0 || r.partition >= input_partitions_) continue;
      auto& [records, bytes] = read[static_cast<size_t>(r.partition)];
      ++records;
      bytes += r.key.size() + r.value.size();
      for (const auto& [name, value] : r.headers) bytes += name.size() + value.size();
    }
    for (int32_t p = 0; p < input_partitions_; ++p) {
      const auto [records, bytes] = read[static_cast<size_t>(p)];
      FlowControl::Take(in, p, records, bytes);
    }
  }
  if (input.empty()) return;
  // Bytes per input record, per watched topic written: the largest of recent batches, decaying,
  // so that one light batch does not let a heavy one through.
  std::vector<double> wrote(flow_out_.size(), 0);
  for (const OutRecord& r : outputs) {
    FlowControl::Topic* topic = FlowTopic(r.topic);
    if (!topic) continue;
    auto it = std::find_if(flow_out_.begin(), flow_out_.end(), [&](const auto& o) { return o.first == topic; });
    if (it == flow_out_.end()) {
      flow_out_.emplace_back(topic, 0.0);
      wrote.push_back(0);
      it = flow_out_.end() - 1;
    }
    wrote[static_cast<size_t>(it - flow_out_.begin())] +=
        static_cast<double>(kafka::RecordBytes(r) + FlowControl::kRecordOverhead);
  }
  for (size_t i = 0; i < flow_out_.size(); ++i) {
    flow_out_[i].second = std::max(wrote[i] / static_cast<double>(input.size()), 0.8 * flow_out_[i].second);
  }
  last_batch_in_ = input.size();
}

}  // namespace webindex::pipeline
