// Reassembly of page exports sent in parts (codec::ExportRecord::parts > 1). The parts of one
// (key, seq) wait in the sink's state, committed with its batches like the table, until all of
// them are there; then the page is applied as one. Stateless helpers, sink thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec/records.h"
#include "pipeline/stage.h"

namespace webindex::sink {

//! The parts of one page export received so far.
struct PendingParts {
  uint64_t seq = 0;
  uint32_t parts = 0;
  std::map<uint32_t, std::string> values;  //!< part index -> the part's record value

  bool complete() const { return parts > 0 && values.size() == parts; }
};

//! kVersions key of a page's pending parts ('Q' + uri; a page's applied seq is under 'P' + uri).
std::string PendingKey(std::string_view uri);
std::string EncodePending(const PendingParts& p);
Result<PendingParts> DecodePending(std::string_view bytes);

//! What became of one part.
enum class PartOutcome { kStale, kDuplicate, kAdded };
//! Adds `part` (decoded from `value`) to `pending` unless its seq is at or below `applied_seq`
//! (the table has it or newer) or below the pending one. A newer seq drops the pending parts:
//! parts of one key arrive in order, so an older incomplete export can never complete.
PartOutcome AddPart(const codec::ExportRecord& part, std::string_view value, uint64_t applied_seq,
                    PendingParts* pending);

//! The whole export of complete `pending` parts, as one record (parts = 1).
Result<codec::ExportRecord> Assemble(const PendingParts& pending, codec::RecordDecoder& decoder);

//! A part of a split page export and its record value, as read.
using Part = std::pair<codec::ExportRecord, std::string_view>;
//! Adds `parts` (in topic order) to the pending parts in the store, writes what is still
//! pending into the batch, and calls `complete` with every export whose parts are all there.
Status AddParts(std::vector<Part> parts, pipeline::BatchContext& ctx, codec::RecordDecoder& decoder,
                const std::function<void(codec::ExportRecord)>& complete);

}  // namespace webindex::sink
