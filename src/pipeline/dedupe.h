// Marks a receiving stage commits with its batches, per (input partition, writer): the highest
// seq applied (Dedupe) and the highest fence epoch seen (fence.h's FenceMarks). Owned by one
// stage; its thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "common/status.h"
#include "pipeline/stage.h"
#include "state/store.h"

namespace webindex::pipeline {

//! Numbers kept per (input partition, name) in the kDedupe family under
//! "<prefix><partition>/<name>" (Fixed64BE), each written to its input partition's task.
class PartitionMarks {
 public:
  using Key = std::pair<int32_t, std::string>;
  explicit PartitionMarks(std::string prefix) : prefix_(std::move(prefix)) {}
  //! (Re)reads every mark; forgets those not flushed.
  Status Load(state::Store& store);
  //! The mark of `key` as this batch left it, else as committed; nullopt when it has none.
  std::optional<uint64_t> Get(const Key& key) const;
  void Set(Key key, uint64_t value) { dirty_[std::move(key)] = value; }
  bool empty() const { return marks_.empty() && dirty_.empty(); }
  //! Adds the marks set since the last Flush to the batch.
  void Flush(BatchContext& ctx);
  //! Forgets marks not yet flushed (the batch that set them was not committed).
  void Rollback() { dirty_.clear(); }

 private:
  std::string prefix_;
  std::map<Key, uint64_t> marks_;
  std::map<Key, uint64_t> dirty_;
};

//! Duplicate suppression for internal records: remembers the highest seq applied per (input
//! partition, src). Records of one src reach one partition in seq order, so anything at or below
//! the mark was applied before.
class Dedupe {
 public:
  explicit Dedupe(const std::string& stage) : marks_(stage + "/") {}
  Status Load(state::Store& store) { return marks_.Load(store); }
  //! True when the record is new; marks it applied (written by Flush).
  bool Accept(int32_t partition, const std::string& src, uint64_t seq);
  //! Adds the marks changed since the last Flush to the batch, each to its input partition's task.
  void Flush(BatchContext& ctx) { marks_.Flush(ctx); }
  //! Forgets marks not yet flushed (the batch that made them was not committed).
  void Rollback() { marks_.Rollback(); }

 private:
  PartitionMarks marks_;
};

}  // namespace webindex::pipeline
