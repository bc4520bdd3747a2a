// A replay's bulk phase for the crawl stages (docs/operations.md, "Crawl events in bulk"): the
// events of topic `pages` from the generation's start to the partitions' ends are folded as one
// batch (newest revision, else crawlDate, else the later event wins), and everything the page,
// uri and domain stages and the sink would keep after them is derived by sorting within a memory
// budget (state/external_sort.h): page states, link and page counts, domain counts, the query
// table's p:, t: and d: rows, the sink's versions, totals and domain index. They are written as
// sorted files and ingested with the stages' new positions in one step (state/bulk_load.h); the
// stages then go on incrementally from there. The exports the stages would have sent (a page,
// URI or domain at seq 1 each) go to webindex.exports first, so that a consumer following the
// generation gets it whole; a build killed after sending them sends them again (same seqs).
//
// It runs only on a lone generation whose stages hold nothing yet and keep no changelog, and
// whose web graph is not kept as statements. An event the page stage would refuse gets the dead
// letter the stage would send, committed into the stage's outbox with the rest: the stage's
// runner sends it when it starts. A kill at any instant leaves either nothing of it or all of it.
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

struct BulkCrawlStats {
  bool ran = false;              //!< false: skipped (see `skipped_because`)
  std::string skipped_because;
  uint64_t records = 0;          //!< read from `pages` (before --from too)
  uint64_t bytes = 0;            //!< their values
  uint64_t events = 0;           //!< folded
  uint64_t dead_letters = 0;     //!< events refused (sent by the page stage's runner when it starts)
  uint64_t pages = 0;            //!< URIs with a current page after them
  uint64_t uris = 0;             //!< URIs counted (crawled or linked to)
  uint64_t links = 0;            //!< the sum of their link counts
  uint64_t domains = 0;
  uint64_t exports = 0;          //!< export records sent
  uint64_t rows = 0;             //!< written, every family
  uint64_t peak_disk_bytes = 0;  //!< of one sort's run files at once
  double seconds = 0;
};

//! Runs the bulk phase for generation `generation` (its store `store`, set up, not yet run) of
//! data dir instance `instance` (state::DataDir::InstanceId), a replay --from `from_ms` (-1:
//! earliest); `stop` interrupts it (Aborted; nothing is ingested). Skipped (ran = false) when
//! the build cannot stand for the stages (see above) or fewer than `options.min_records` records
//! are unread.
Result<BulkCrawlStats> BulkBuildCrawl(const ProcessorConfig& config, state::Store& store, kafka::Admin& admin,
                                      uint64_t generation, const std::string& instance, int64_t from_ms,
                                      const BulkOptions& options, const std::atomic<bool>& stop);

}  // namespace webindex::app
