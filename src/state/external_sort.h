// Sorting more records than fit in memory, for bulk builds (replay's backfill): records are
// buffered up to a byte budget, each full buffer is sorted and spilled to a run file
// (state/run_file.h), and Finish merges the runs and what is left in memory into one stream in
// key order. Records of one key come out in the order they were added, across runs too, so a
// caller can fold a key's values in arrival order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace webindex::state {

struct ExternalSortOptions {
  //! What the buffer holds at most: keys, values (at least a byte for an empty record) and
  //! kSortRecordOverhead bytes per record, in one allocation of this size, made at the first Add.
  //! A record larger than that on its own goes to a run by itself.
  size_t budget_bytes = size_t{64} << 20;
  //! An existing directory for the run files; they are removed when the sort is dropped.
  std::string temp_dir;
  //! Runs read at once by a merge (each with a 64 KiB block buffer); more runs than this are
  //! first merged in passes over consecutive groups.
  size_t max_fan_in = 128;
};

//! The bytes a buffered record costs beyond its key and value (its entry in the sort).
constexpr size_t kSortRecordOverhead = 16;

//! For a progress display: what the sort took in and how much disk it used.
struct ExternalSortStats {
  uint64_t records = 0;        //!< added
  uint64_t bytes = 0;          //!< of keys and values added
  uint64_t runs = 0;           //!< run files written when the buffer was full
  uint64_t merged_runs = 0;    //!< run files written by merge passes before the last merge
  uint64_t spilled_bytes = 0;  //!< written to run files, all of them
  uint64_t disk_bytes = 0;     //!< in run files on disk now
  uint64_t peak_disk_bytes = 0;
  uint64_t peak_buffered_bytes = 0;  //!< keys, values and overheads buffered at once
};

class SortedRecords;

//! Owned by its caller and used by one thread. Add records, then Finish once.
class ExternalSorter {
 public:
  explicit ExternalSorter(ExternalSortOptions options);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  //! Copies the record into the buffer, first spilling the buffer when the record does not fit.
  //! IoError when a run cannot be written (a full disk).
  Status Add(std::string_view key, std::string_view value);
  //! All records in key order, those of one key in the order they were added. The sorter's
  //! buffer and run files move into the reader, which removes the files when dropped.
  Result<std::unique_ptr<SortedRecords>> Finish();
  const ExternalSortStats& stats() const { return stats_; }

 private:
  friend class SortedRecords;
  struct Entry;
  struct Run;
  struct RunOut;

  void SortBuffer();
  Status Spill();
  Result<RunOut> NewRun();
  //! Closes the run, counts it in `*counter` and adds it to runs_.
  Status EndRun(RunOut out, uint64_t* counter);
  Status MergePasses();
  Entry* entries() const;
  size_t buffered() const;

  ExternalSortOptions options_;
  uint64_t id_;  //!< names this sorter's run files
  uint64_t next_run_ = 0;
  std::unique_ptr<std::byte[]> buffer_;
  size_t capacity_ = 0;    //!< buffer_ bytes in use: records from the front, entries from the back
  size_t data_end_ = 0;    //!< keys and values end here
  size_t count_ = 0;       //!< entries below capacity_
  std::vector<Run> runs_;  //!< in the order they were written
  bool finished_ = false;
  ExternalSortStats stats_;
};

//! The sorted records of an ExternalSorter, read once, forward. Owns the sort's buffer and run
//! files (removed when it is dropped). One thread.
class SortedRecords {
 public:
  ~SortedRecords();
  SortedRecords(const SortedRecords&) = delete;
  SortedRecords& operator=(const SortedRecords&) = delete;

  bool Valid() const { return valid_; }
  //! Valid until Next.
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  void Next();
  //! Ok, or why the records ended early: Corruption for a damaged or cut run file, IoError.
  //! Check it once Valid() is false; records read before an error are not the whole sort.
  const Status& status() const { return status_; }
  const ExternalSortStats& stats() const { return stats_; }

 private:
  friend class ExternalSorter;
  class Merge;
  SortedRecords(std::unique_ptr<Merge> merge, ExternalSortStats stats);
  void Load();

  std::unique_ptr<Merge> merge_;
  ExternalSortStats stats_;
  bool valid_ = false;
  std::string_view key_, value_;
  Status status_;
};

}  // namespace webindex::state
