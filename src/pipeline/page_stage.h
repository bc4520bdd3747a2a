// Page stage: validates crawl events, keeps the current page per URI (newest crawlDate wins,
// spec §3), and turns each batch's page changes into link-count deltas keyed by target URI
// plus a page export per changed page. Runs on its StageRunner's thread.
#pragma once

#include "codec/event.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {

class PageStage final : public Stage {
 public:
  //! Events whose Kafka timestamp is before `from_ms` (when >= 0) are outside this
  //! generation (a replay --from a time) and skipped.
  PageStage(TopicLayout layout, codec::DecodeLimits limits, int64_t from_ms = -1)
      : layout_(std::move(layout)), decoder_(limits), from_ms_(from_ms) {}
  std::string_view name() const override { return "page"; }
  const std::string& input_topic() const override { return layout_.names.pages; }
  Status Process(const std::vector<InRecord>& records, BatchContext& ctx) override;
  bool KeepsChangelog() const override { return true; }

 private:
  TopicLayout layout_;
  codec::EventDecoder decoder_;
  int64_t from_ms_;
};

}  // namespace webindex::pipeline
