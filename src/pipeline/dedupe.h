// Duplicate suppression for internal records: remembers the highest seq applied per
// (input partition, src). Records of one src reach one partition in seq order, so anything
// at or below the mark was applied before. Owned by one stage; its thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/status.h"
#include "pipeline/stage.h"
#include "state/store.h"

namespace webindex::pipeline {

class Dedupe {
 public:
  explicit Dedupe(std::string stage) : stage_(std::move(stage)) {}
  Status Load(state::Store& store);
  //! True when the record is new; marks it applied (written by Flush).
  bool Accept(int32_t partition, const std::string& src, uint64_t seq);
  //! Adds the marks changed since the last Flush to the batch, each to its input partition's task.
  void Flush(BatchContext& ctx);
  //! Forgets marks not yet flushed (the batch that made them was not committed).
  void Rollback();

 private:
  std::string Key(int32_t partition, const std::string& src) const;
  std::string stage_;
  std::map<std::pair<int32_t, std::string>, uint64_t> marks_;
  std::map<std::pair<int32_t, std::string>, uint64_t> dirty_;
};

}  // namespace webindex::pipeline
