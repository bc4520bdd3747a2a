// The keys a StageRunner keeps its bookkeeping under, and the tags of its records in the
// producer's delivery reports. Pure functions: no state, callable from any thread; the layout
// is on disk and in changelogs, so it never changes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace webindex::pipeline {

//! kOffsets key of a stage's committed position in one input partition (value: Fixed64BE).
std::string OffsetKey(std::string_view stage, std::string_view topic, int32_t partition);
//! What every OffsetKey of one stage and topic starts with: "<stage>/<topic>/".
std::string OffsetPrefix(std::string_view stage, std::string_view topic);
//! kOutbox key of a stage's row of records from `seq` on (codec::EncodeOutBatch: the records
//! of one commit), and the kMeta key of its next seq (Fixed64BE). These seqs number the rows'
//! records for this data dir's bookkeeping only (delivery, deletion once acknowledged).
std::string OutboxKey(std::string_view stage, uint64_t seq);
std::string SeqKey(std::string_view stage);
//! kMeta key of task (stage, partition)'s next record seq (Fixed64BE; BatchContext::NextTaskOrigin):
//! the seq receivers deduplicate by, which moves with the task.
std::string TaskSeqKey(std::string_view stage, int32_t partition);
//! kOutbox key of part `part` of the records task (stage, partition) emitted at `epoch` in the
//! commit whose outbox row starts at `row` (the parts of EncodeOutBatch of those records, cut to
//! fit the changelog's records). Such keys exist only in the changelog and in a store restored
//! from it: a new owner of the task re-sends what they hold (docs/scale-out.md §4). The epoch
//! keeps two owners' keys apart: a former owner's row numbers are not this one's.
std::string TaskOutboxKey(std::string_view stage, int32_t partition, uint64_t epoch, uint64_t row, uint32_t part);
//! What every TaskOutboxKey of one stage starts with: "task-out/<stage>/".
std::string TaskOutboxPrefix(std::string_view stage);
//! kMeta key listing the TaskOutboxKeys of the commit whose outbox row starts at `row`, so that
//! the commit deleting the row sends their tombstones, whenever that is (deleted with the row).
std::string TaskOutboxListKey(std::string_view stage, uint64_t row);
std::string TaskOutboxListPrefix(std::string_view stage);
//! The value of a TaskOutboxListKey: (task, TaskOutboxKey) pairs.
std::string EncodeKeyList(const std::vector<std::pair<int32_t, std::string>>& keys);
Result<std::vector<std::pair<int32_t, std::string>>> DecodeKeyList(std::string_view bytes);
//! kMeta key of the copy of `task` kept at a stop (StageRunner's local copies), and of all the stage's.
std::string LocalCopyKey(std::string_view stage, int32_t task);
std::string LocalCopyPrefix(std::string_view stage);

//! A runner's record in the producer's delivery reports: the runner's index in the top byte,
//! its outbox seq (or kSnapshotSeq and a snapshot's tag) below.
inline uint64_t RunnerOpaque(int index, uint64_t seq) { return (static_cast<uint64_t>(index) << 56) | seq; }
inline int RunnerIndexOf(uint64_t opaque) { return static_cast<int>(opaque >> 56); }
inline uint64_t RunnerSeqOf(uint64_t opaque) { return opaque & ((1ull << 56) - 1); }
//! Seq flag of a snapshot record in the producer's delivery reports (no outbox record); the
//! bits below it are the record's SnapshotTrims tag.
inline constexpr uint64_t kSnapshotSeq = 1ull << 55;

}  // namespace webindex::pipeline
