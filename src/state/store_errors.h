// How the store puts RocksDB's failures in the user's words: a full disk says where, how much is
// free and what to do; damage says how to check, restore or rebuild; a failed background write
// (flush, compaction, MANIFEST) is kept until RocksDB recovers, so that an idle processor stops
// and health checks fail, in the same words as a failed commit.
// Only state/ sees RocksDB: this file is included by store.cc alone (and its tests).
#pragma once

#include <rocksdb/listener.h>
#include <rocksdb/status.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/status.h"

namespace webindex::state {

//! "1.5 GiB", "12.0 MiB", "512 KiB".
std::string HumanBytes(uint64_t n);

//! A RocksDB status as ours, `what` saying what was being done.
Status FromRocks(const rocksdb::Status& s, const char* what);

//! What to do with a damaged database: the closing sentence of every damage error.
extern const char* const kDamagedAdvice;

//! A full disk under the database in `dir`: free space now, the `min_free_bytes` to free, and
//! that a restart resumes. `detail` is RocksDB's text.
Status NoSpaceError(const std::string& dir, uint64_t min_free_bytes, const std::string& detail);

//! The first background error that stopped a database's writes (severity hard or worse), until
//! RocksDB reports it recovered. Soft errors, which RocksDB retries while writes go on, are
//! only logged by RocksDB. RocksDB's threads call it; it throws nothing.
class BackgroundErrors final : public rocksdb::EventListener {
 public:
  BackgroundErrors(std::string dir, uint64_t min_free_bytes) : dir_(std::move(dir)), min_free_bytes_(min_free_bytes) {}
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;
  //! Ok, or the first error kept.
  Status First() const;

 private:
  const std::string dir_;
  const uint64_t min_free_bytes_;
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  Status first_;
};

}  // namespace webindex::state
