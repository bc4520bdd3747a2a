// Rows of one family, in key order, written into sorted files of about a given size each and
// added to the store in one step (Store::Ingest): the last phase of a bulk build, after an
// external sort (state/external_sort.h) and the caller's fold of each key's records.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "state/store.h"

namespace webindex::state {

//! Owned by its caller, one thread; the store outlives it. Files not ingested are removed when
//! it is dropped.
class BulkLoad {
 public:
  static constexpr uint64_t kDefaultFileBytes = uint64_t{256} << 20;

  //! A new file is started once the current one holds `file_bytes` of keys and values (on
  //! disk it takes less: RocksDB shares key prefixes and compresses blocks).
  BulkLoad(Store& store, Family family, uint64_t file_bytes = kDefaultFileBytes);

  //! Keys must grow strictly over the whole load, across files too; InvalidArgument otherwise.
  Status Put(std::string_view key, std::string_view value);
  //! Ingests every file written in one step: reads see all of the rows or none. Ends the load.
  Status Ingest();
  //! The files written, to ingest them with other families' in one Store::Ingest. Ends the load.
  std::vector<std::unique_ptr<SortedFile>> TakeFiles();

  uint64_t rows() const { return rows_; }
  //! Files written so far, the one being filled included.
  size_t files() const { return files_.size() + (current_ ? 1 : 0); }

 private:
  Store& store_;
  Family family_;
  uint64_t max_file_bytes_;
  std::vector<std::unique_ptr<SortedFile>> files_;
  std::unique_ptr<SortedFile> current_;
  std::string last_of_closed_;  //!< the last key of the last closed file
  uint64_t rows_ = 0;
  uint64_t current_bytes_ = 0;  //!< of keys and values in current_
  bool taken_ = false;
};

}  // namespace webindex::state
