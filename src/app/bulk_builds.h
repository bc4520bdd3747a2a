// When a generation is built in bulk: before a lone replay's stages start (replay.cc), and before
// a lone `run`'s stages start on a generation whose stages hold nothing yet (a new data dir's
// first run over a backlog). Both bulk builds run, statements (bulk_graph.h) then crawl events
// (bulk_crawl.h); each skips what it cannot stand for and says why.
#pragma once

#include <atomic>
#include <cstdint>

#include "app/bulk_input.h"
#include "app/processor.h"
#include "common/status.h"
#include "kafka/admin.h"
#include "state/data_dir.h"

namespace webindex::app {

//! Runs the bulk builds of generation `gen` of `dir` (set up, not running), a replay --from
//! `from_ms` (-1: earliest, or a run). `options.temp_dir` empty: DIR/bulk-tmp. Aborted when
//! `stop` interrupts it (nothing of the build interrupted is kept).
Status RunBulkBuilds(const ProcessorConfig& config, const state::DataDir& dir, uint64_t gen, kafka::Admin& admin,
                     int64_t from_ms, BulkOptions options, const std::atomic<bool>& stop);

//! Before a lone `run`'s stages start: sets the current generation up when it is new (as
//! Processor::Start would), checks its binding, and runs the bulk builds from the stages'
//! positions (they skip a generation whose stages hold state, or a short backlog).
Status BulkBeforeRun(const ProcessorConfig& config, const BulkOptions& options, const std::atomic<bool>& stop);

}  // namespace webindex::app
