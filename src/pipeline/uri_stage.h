// Uri stage: collision-free-map style aggregation of UriInfo deltas. A batch's deltas are
// combined per URI, current values read in one MultiGet and written back in the batch;
// each changed URI yields a uri export, each 0 <-> non-0 transition a domain delta.
#pragma once

#include "codec/records.h"
#include "pipeline/dedupe.h"
#include "pipeline/fence.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {

class UriStage final : public Stage {
 public:
  explicit UriStage(TopicLayout layout)
      : layout_(std::move(layout)), dedupe_("uri"), fences_("uri", layout_.generation) {}
  Status Open(state::Store& store) override {
    RETURN_IF_ERROR(dedupe_.Load(store));
    return fences_.Load(store);
  }
  std::string_view name() const override { return "uri"; }
  const std::string& input_topic() const override { return layout_.names.uri_deltas; }
  Status Process(const std::vector<InRecord>& records, BatchContext& ctx) override;
  bool KeepsChangelog() const override { return true; }
  //! A uri's deltas are keyed by the uri: its counts belong to the partition the uri hashes to.
  std::optional<state::Family> StateFamily() const override { return state::Family::kUris; }
  int32_t TaskOfKey(std::string_view key) const override { return PartitionFor(key, layout_.uri_delta_partitions); }
  std::vector<std::pair<std::string, int32_t>> Outputs() const override {
    return {{layout_.names.domain_deltas, layout_.domain_delta_partitions},
            {layout_.names.exports, layout_.export_partitions}};
  }

 private:
  TopicLayout layout_;
  Dedupe dedupe_;
  FenceMarks fences_;
  codec::RecordDecoder decoder_;
};

//! Domain stage: the same combining for per-domain page counts; emits domain exports.
class DomainStage final : public Stage {
 public:
  explicit DomainStage(TopicLayout layout)
      : layout_(std::move(layout)), dedupe_("domain"), fences_("domain", layout_.generation) {}
  Status Open(state::Store& store) override {
    RETURN_IF_ERROR(dedupe_.Load(store));
    return fences_.Load(store);
  }
  std::string_view name() const override { return "domain"; }
  const std::string& input_topic() const override { return layout_.names.domain_deltas; }
  Status Process(const std::vector<InRecord>& records, BatchContext& ctx) override;
  bool KeepsChangelog() const override { return true; }
  std::optional<state::Family> StateFamily() const override { return state::Family::kDomains; }
  int32_t TaskOfKey(std::string_view key) const override {
    return PartitionFor(key, layout_.domain_delta_partitions);
  }
  std::vector<std::pair<std::string, int32_t>> Outputs() const override {
    return {{layout_.names.exports, layout_.export_partitions}};
  }

 private:
  TopicLayout layout_;
  Dedupe dedupe_;
  FenceMarks fences_;
  codec::RecordDecoder decoder_;
};

}  // namespace webindex::pipeline
