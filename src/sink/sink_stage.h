// Sink: consumes webindex.exports and materializes the query table. Each export carries its
// key's full new value and a seq that only grows per key; the sink remembers the last seq
// applied per key, so duplicates, replays and reordering never change the result.
#pragma once

#include "codec/records.h"
#include "pipeline/stage.h"

namespace webindex::sink {

class SinkStage final : public pipeline::Stage {
 public:
  explicit SinkStage(pipeline::TopicLayout layout) : layout_(std::move(layout)) {}
  std::string_view name() const override { return "sink"; }
  const std::string& input_topic() const override { return layout_.names.exports; }
  Status Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) override;

 private:
  pipeline::TopicLayout layout_;
  codec::RecordDecoder decoder_;
};

}  // namespace webindex::sink
