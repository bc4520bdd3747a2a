// FaultFs: a RocksDB file system over the real one for fault-injection tests. It remembers how
// much of every file written through it was synced, so that a power loss can be simulated by
// cutting each file back to that length; and it can run out of space after a byte budget.
// Thread-safe (RocksDB calls it from its foreground and background threads).
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace webindex::testing {

class FaultFs : public rocksdb::FileSystemWrapper {
 public:
  FaultFs();
  static const char* kClassName() { return "WebindexFaultFs"; }
  const char* Name() const override { return kClassName(); }

  //! A RocksDB Env over this file system, for state::StoreOptions::env.
  std::shared_ptr<rocksdb::Env> env() const { return env_; }

  //! From now on nothing reaches the disk: every write, sync, create, rename and delete fails.
  void PowerOff() { off_ = true; }
  //! What a power loss keeps: every file written through this file system is cut back to the
  //! length it had at its last sync (0 if never synced). Then the power is back on.
  //! Returns how many bytes were dropped.
  uint64_t DropUnsyncedData();
  //! Appends fail with "No space left on device" once `bytes` more are written; < 0: no limit.
  void SetSpaceLeft(int64_t bytes) { space_left_ = bytes; }
  uint64_t no_space_errors() const { return no_space_errors_; }

  struct FileState {
    std::atomic<uint64_t> size{0};
    std::atomic<uint64_t> synced{0};
  };
  //! Checks and charges an append of `n` bytes; an error when powered off or out of space.
  rocksdb::IOStatus Charge(size_t n);
  bool off() const { return off_; }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus RenameFile(const std::string& s, const std::string& t, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus CreateDir(const std::string& d, const rocksdb::IOOptions& o, rocksdb::IODebugContext* g) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& d, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* g) override;
  rocksdb::IOStatus LinkFile(const std::string& s, const std::string& t, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* d) override;

 private:
  std::shared_ptr<FileState> Track(const std::string& name, uint64_t size);

  std::shared_ptr<rocksdb::Env> env_;
  std::atomic<bool> off_{false};
  std::atomic<int64_t> space_left_{-1};
  std::atomic<uint64_t> no_space_errors_{0};
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<FileState>> files_;
};

}  // namespace webindex::testing
