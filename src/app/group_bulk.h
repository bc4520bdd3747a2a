// A group replay's bulk build (docs/scale-out.md §9 step 6, docs/operations.md "Crawl events in
// bulk"): `webindex replay --group` builds the new generation's crawl stage state as a lone
// replay does (bulk_crawl.h: the same computation, in a scratch store), then writes each task's
// state as one complete changelog snapshot of the new generation into the task's changelog
// partition (pipeline/changelog.h: begin, rows, end), its input positions among its rows, and
// sends the exports the stages would have sent. The members that take the tasks over restore
// them from those snapshots and go on incrementally; table members build their table from the
// exports, incrementally as before.
//
// Crash: the generation is reserved (never given to another build) before anything is sent,
// and announced (`building`) only once every record is acknowledged. A build killed before
// leaves its records in a generation nobody runs or restores: generation N answers meanwhile,
// and the same command starts again with the next number. So no restore ever reads a snapshot
// of a build that did not finish.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "app/bulk_crawl.h"
#include "app/bulk_input.h"
#include "app/processor.h"
#include "common/status.h"
#include "kafka/admin.h"

namespace webindex::app {

struct GroupBulkStats {
  bool ran = false;  //!< false: skipped (see `skipped_because`)
  std::string skipped_because;
  BulkCrawlStats crawl;
  uint64_t tasks = 0;           //!< snapshots written, every stage
  uint64_t snapshot_rows = 0;   //!< their rows
  uint64_t dead_letters = 0;    //!< sent
  double seconds = 0;
};

//! Builds generation `generation` of group `config.group` in bulk from `pages` (a replay --from
//! `from_ms`, -1: earliest). `reserve` is called once the build will run, before any of its
//! records is sent: it must make sure no other build ever gets `generation`. `options.temp_dir`
//! empty: a directory under the system's temporary one (removed when done). Skipped (ran =
//! false) below `options.min_records` records; Aborted when `stop` interrupts it.
Result<GroupBulkStats> GroupBulkBuild(const ProcessorConfig& config, kafka::Admin& admin, uint64_t generation,
                                      int64_t from_ms, BulkOptions options, const std::function<Status()>& reserve,
                                      const std::atomic<bool>& stop);

}  // namespace webindex::app
