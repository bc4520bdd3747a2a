// A replay's bulk phase for the graph stage (docs/operations.md, "Statements in bulk"): the statements of
// topic `triples` from the generation's start to the partitions' ends are folded as a batch
// (the last op of a statement wins), their rows (four orders, temporal, free-text) sorted within
// a memory budget (state/external_sort.h) and written as sorted files that are ingested with the
// stage's new positions in one step (state/bulk_load.h). The stage then goes on incrementally
// from those positions, as if it had read the records one batch at a time.
//
// It runs only on a generation whose graph stage has read nothing yet and holds no statement;
// a partition is taken up to its first record the stage would refuse (that one and the rest
// are the incremental stage's, which dead-letters it). A kill at any instant leaves either
// nothing of it or all of it: the rows and positions become visible in one ingest.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "app/bulk_input.h"
#include "app/processor.h"
#include "common/status.h"
#include "kafka/admin.h"
#include "state/store.h"

namespace webindex::app {

struct BulkGraphStats {
  bool ran = false;              //!< false: skipped (see `skipped_because`)
  std::string skipped_because;
  uint64_t records = 0;          //!< read from `triples`
  uint64_t bytes = 0;            //!< their values
  uint64_t ops = 0;              //!< statement adds and removes in them
  uint64_t statements = 0;       //!< present after them
  uint64_t rows = 0;             //!< written
  uint64_t row_writes = 0;       //!< rows made before the sort (a word of several literals each time)
  uint64_t peak_disk_bytes = 0;  //!< of the sorts' run files at once
  double seconds = 0;
};

//! Runs the bulk phase for generation `store` (set up, not yet run) of a replay --from `from_ms`
//! (-1: earliest), reading `config.topics.triples` with `config.kafka`; `stop` interrupts it
//! (Aborted; nothing is written). Skipped (ran = false) when the stage has read anything, the
//! generation holds statements, or fewer than `options.min_records` records are unread.
Result<BulkGraphStats> BulkBuildGraph(const ProcessorConfig& config, state::Store& store, kafka::Admin& admin,
                                      int64_t from_ms, const BulkOptions& options, const std::atomic<bool>& stop);

}  // namespace webindex::app
