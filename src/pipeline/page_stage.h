// Page stage: validates crawl events, keeps the current page per URI (newest crawlDate wins,
// docs/semantics.md §3), and turns each batch's page changes into link-count deltas keyed by target URI
// plus a page export per changed page. Runs on its StageRunner's thread.
#pragma once

#include "codec/event.h"
#include "pipeline/dedupe.h"
#include "pipeline/fence.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {

//! Header of an event the page stage forwarded to its page's task (partition of
//! webindex.page-forwards): the task that forwarded it ("page.<partition>"); kForwardSeqHeader
//! holds its seq there, and "gen" and "inst" the generation and the instance. Only records of
//! that internal topic are read as forwards: headers on `pages` are a producer's, and mean nothing.
inline constexpr char kForwardHeader[] = "fwd";
inline constexpr char kForwardSeqHeader[] = "seq";

//! The page task of a page: the partition of the pages topic its normalized URI hashes to.
inline int32_t PageTaskOf(std::string_view uri, const TopicLayout& layout) {
  return PartitionFor(uri, layout.page_partitions);
}

//! Folds one event into a page's state (docs/semantics.md §3): the newer revision, else the newer
//! crawlDate, else the later event wins; false when the event is stale. The page stage and a
//! replay's bulk build (app/bulk_crawl.h) fold with it.
bool FoldEvent(model::CrawlEvent ev, model::PageState* s);

class PageStage final : public Stage {
 public:
  //! Events whose Kafka timestamp is before `from_ms` (when >= 0) are outside this
  //! generation (a replay --from a time) and skipped.
  PageStage(TopicLayout layout, codec::DecodeLimits limits, int64_t from_ms = -1)
      : layout_(std::move(layout)),
        decoder_(limits),
        from_ms_(from_ms),
        dedupe_("page"),
        fences_("page", layout_.generation) {}
  Status Open(state::Store& store) override {
    RETURN_IF_ERROR(dedupe_.Load(store));
    return fences_.Load(store);
  }
  std::string_view name() const override { return "page"; }
  const std::string& input_topic() const override { return layout_.names.pages; }
  const std::string& side_input_topic() const override { return layout_.names.page_forwards; }
  //! A page's state belongs to its page task (PageTaskOf). When tasks can move, an event read
  //! from another partition is forwarded to that task's partition of webindex.page-forwards (a
  //! record of the task that read it, deduplicated and fenced like internal records) and folded
  //! when it arrives: an input record's effects stay in one task. Otherwise it is folded where
  //! it is read. Every record of `pages` is a producer's event, whatever its headers.
  Status Process(const std::vector<InRecord>& records, BatchContext& ctx) override;
  bool KeepsChangelog() const override { return true; }
  bool ReadsExternalInput() const override { return true; }
  std::optional<state::Family> StateFamily() const override { return state::Family::kPages; }
  int32_t TaskOfKey(std::string_view key) const override { return PageTaskOf(key, layout_); }
  std::vector<std::pair<std::string, int32_t>> Outputs() const override {
    return {{layout_.names.uri_deltas, layout_.uri_delta_partitions},
            {layout_.names.exports, layout_.export_partitions},
            {layout_.names.page_forwards, layout_.page_partitions}};
  }

 private:
  TopicLayout layout_;
  codec::EventDecoder decoder_;
  int64_t from_ms_;
  Dedupe dedupe_;       //!< of forwarded events
  FenceMarks fences_;   //!< of forwarding tasks
};

}  // namespace webindex::pipeline
