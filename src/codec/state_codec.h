// Binary values the stages keep in RocksDB: page state, counters, and outbox records.
// Compact, versionless-by-design: a leading format byte allows later evolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "model/page.h"

namespace webindex::codec {

std::string EncodePageState(const model::PageState& s);
Result<model::PageState> DecodePageState(std::string_view v);

//! A counter with the version of its last change (uri and domain stages).
struct Counted {
  model::UriInfo info;  //!< the domain stage uses info.docs as its page count
  uint64_t version = 0;
};
std::string EncodeCounted(const Counted& c);
Result<Counted> DecodeCounted(std::string_view v);

std::string EncodeOutRecord(const OutRecord& r);
Result<OutRecord> DecodeOutRecord(std::string_view v);

//! One outbox row holding the records a commit emitted, in seq order (at least one).
std::string EncodeOutBatch(const std::vector<OutRecord>& records);
//! The records of an outbox row: a row of EncodeOutBatch, or of EncodeOutRecord (one record).
Result<std::vector<OutRecord>> DecodeOutBatch(std::string_view v);

}  // namespace webindex::codec
