// What a replay's bulk builds (bulk_graph.h for statements, bulk_crawl.h for crawl events,
// group_bulk.h for a group's) share: their options, the input range a stage has yet to read, read
// whole with large fetches, a producer of what they send that tells when all is acknowledged, and
// the progress line of each phase.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "app/processor.h"
#include "common/progress.h"
#include "common/record.h"
#include "common/status.h"
#include "kafka/admin.h"
#include "kafka/producer.h"
#include "state/store.h"

namespace webindex::app {

struct BulkOptions {
  //! Memory the sorts may hold at once (--bulk-memory-mb); they use at most 64 MiB (two sorts
  //! of 32 MiB runs: faster than larger ones), spilling sorted runs to `temp_dir`.
  uint64_t memory_bytes = uint64_t{64} << 20;
  //! An existing directory for the sorts' run files (removed when done).
  std::string temp_dir;
  //! Below this many unread records the incremental stages are as fast: no bulk phase.
  int64_t min_records = 10000;
};

//! The budget of one sort when `alive` sorts hold memory at once (a fold reads one while filling
//! others): their share of the memory, at most 32 MiB (runs that fit the caches sort faster than
//! larger ones).
size_t SortBudget(const BulkOptions& options, int alive = 2);

//! The records a stage has yet to read in one topic: from its committed positions to the ends.
struct BulkRange {
  std::string topic;
  std::vector<int64_t> start;  //!< per partition: the stage's position (or the log start)
  std::vector<int64_t> end;    //!< the end when asked; after ReadRange, where the read stopped
  int64_t unread = 0;
};

//! The range stage `stage` has yet to read in `topic`, or "" in `*missing` naming a partition
//! where the stage has no position (the generation is not set up for it).
Result<BulkRange> UnreadRange(state::Store& store, kafka::Admin& admin, std::string_view stage,
                              const std::string& topic, std::string* missing);

//! What a bulk build makes of one record: it is the build's, or it and the rest of its partition
//! are left to the stage (a record the stage refuses: the stage dead-letters it).
enum class Take { kTaken, kLeftToStage };

//! Reads every record of `range` (each partition in offset order, partitions interleaved) with
//! large fetches, calling `take` with each; `progress` after each fetched batch with the records
//! and value bytes read. Sets range->end to where each partition was read up to: a record left
//! to the stage, or, when the broker gives no record for 10 s (offsets that hold none, e.g. a
//! transaction's markers), where it got. Aborted when `stop` is set.
Status ReadRange(const ProcessorConfig& config, BulkRange* range, const std::function<Result<Take>(const InRecord&)>& take,
                 const std::function<void(uint64_t records, uint64_t bytes)>& progress, const std::atomic<bool>& stop);

//! Sends a build's records (exports, changelog snapshots, dead letters) and tells when all are
//! acknowledged; `what` names a record in the error of one that was not.
class BulkSender {
 public:
  static Result<std::unique_ptr<BulkSender>> Create(const ProcessorConfig& config, int64_t max_message_bytes,
                                                    std::string what);
  Status Send(const OutRecord& record);
  //! Waits until every record sent is acknowledged; Aborted when `stop` is set first.
  Status Wait(const std::atomic<bool>& stop);
  uint64_t sent() const { return sent_; }

 private:
  explicit BulkSender(std::string what) : what_(std::move(what)) {}
  void Delivered(const Status& status);
  Status failed();

  std::string what_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t sent_ = 0;
  std::mutex mu_;
  uint64_t acknowledged_ = 0;
  Status failure_;
};

//! The progress of one phase of a build ("bulk graph build", "read"): `total` items of `unit`
//! to come (0: unknown).
Progress::Options PhaseProgress(std::string_view build, std::string_view phase, uint64_t total, std::string_view unit);

//! A progress line's note: the sorts' run files on disk now.
std::string OnDisk(uint64_t bytes);

}  // namespace webindex::app
