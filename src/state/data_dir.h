// DataDir: the on-disk layout of a webindex data dir.
//
//   DIR/GENERATION   the number of the current generation (replaced atomically)
//   DIR/gen-<N>/     one RocksDB database per generation: state, positions, outbox, table
//   DIR/run.lock     held by the process that runs the current generation
//   DIR/replay.lock  held by the process that builds the next one
//
// A replay builds generation current+1 beside the current one, which keeps answering;
// switching is the rename of one file. Generations below the current one are leftovers
// of a switch and are removed; a generation above it is a replay in progress.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "state/store.h"

namespace webindex::state {

class DataDir {
 public:
  //! Opens the data dir at `path`. With `create`, makes it (and generation 1 current) when
  //! missing or empty; without, a dir that holds no webindex data is NotFound. Never guesses:
  //! a GENERATION file naming a missing generation, generations without a GENERATION file, or
  //! a non-empty dir of other files are refused with what to do.
  static Result<DataDir> Open(const std::string& path, bool create);
  //! Removes every generation and the GENERATION file (`webindex run --reset`); the caller
  //! holds the run lock. The next Open(create) starts afresh.
  static Status Reset(const std::string& path);

  const std::string& path() const { return path_; }
  //! The data dir's id, 16 hex digits, made on first use and kept in the INSTANCE file (also
  //! across `--reset`): every internal and export record carries it, so that records of
  //! another data dir in the same topics are recognized.
  Result<std::string> InstanceId() const;
  //! Reads the GENERATION file (each call: another process may have switched it).
  Result<uint64_t> Current() const;
  std::string PathOf(uint64_t generation) const;
  //! The generations present on disk, ascending.
  Result<std::vector<uint64_t>> List() const;
  //! Makes `generation` current: writes a new GENERATION file, fsyncs it, renames it over
  //! the old one and fsyncs the dir. A crash leaves either the old or the new number.
  Status SetCurrent(uint64_t generation);
  //! Deletes a generation's database (never the current one).
  Status Remove(uint64_t generation);
  //! Removes every generation below the current one; returns how many.
  Result<int> RemoveOlder();

 private:
  explicit DataDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

//! An exclusive advisory lock (flock) on a file, held until destroyed. Conflicts with
//! every other holder, in this process too.
class FileLock {
 public:
  //! nullptr when another holder has it. `role` non-empty: the file then says "<pid> <role>"
  //! while this process holds it, for Holder().
  static Result<std::unique_ptr<FileLock>> TryAcquire(const std::string& path, std::string_view role = {});
  //! What the file's holder wrote ("<pid> <role>"), "" when nothing or unreadable.
  static std::string Holder(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

//! Opens the current generation's database of the data dir at `path`.
Result<std::unique_ptr<Store>> OpenCurrent(const std::string& path, const StoreOptions& options);

}  // namespace webindex::state
