// Sink: consumes webindex.exports and materializes the query table. Each export carries its
// key's full new value and a seq that only grows per key; the sink remembers the last seq
// applied per key, so duplicates, replays and reordering never change the result.
#pragma once

#include <memory>

#include "codec/records.h"
#include "graph/web_projection.h"
#include "pipeline/fence.h"
#include "pipeline/stage.h"

namespace webindex::sink {

class SinkStage final : public pipeline::Stage {
 public:
  //! `web_triples`: also keep the web graph as statements (graph::WebProjection), with the
  //! derived `indexes`.
  explicit SinkStage(pipeline::TopicLayout layout, bool web_triples = false, graph::IndexSet indexes = {})
      : layout_(std::move(layout)),
        fences_("sink", layout_.generation),
        web_(web_triples ? std::make_unique<graph::WebProjection>(graph::KeySpace{}, std::move(indexes)) : nullptr) {}
  std::string_view name() const override { return "sink"; }
  const std::string& input_topic() const override { return layout_.names.exports; }
  //! Counts the table's totals and indexes its domains (summary.h) when they are not kept yet.
  Status Open(state::Store& store) override;
  Status Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) override;

 private:
  pipeline::TopicLayout layout_;
  pipeline::FenceMarks fences_;  //!< exports of tasks' former owners are dropped (pipeline/fence.h)
  codec::RecordDecoder decoder_;
  std::unique_ptr<graph::WebProjection> web_;
};

}  // namespace webindex::sink
