#include "fault_fs.h"

#include <filesystem>

namespace webindex::testing {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus PoweredOff() { return IOStatus::IOError("simulated power loss: the disk is gone"); }

//! A writable file that charges its appends to the FaultFs and records its synced length.
class FaultFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultFile(std::unique_ptr<rocksdb::FSWritableFile> target, FaultFs* fs, std::shared_ptr<FaultFs::FileState> state)
      : FSWritableFileOwnerWrapper(std::move(target)), fs_(fs), state_(std::move(state)) {}

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* d) override {
    IOStatus s = fs_->Charge(data.size());
    if (s.ok()) s = target()->Append(data, o, d);
    if (s.ok()) state_->size += data.size();
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& v,
                  IODebugContext* d) override {
    IOStatus s = fs_->Charge(data.size());
    if (s.ok()) s = target()->Append(data, o, v, d);
    if (s.ok()) state_->size += data.size();
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o, IODebugContext* d) override {
    IOStatus s = fs_->Charge(data.size());
    if (s.ok()) s = target()->PositionedAppend(data, offset, o, d);
    if (s.ok()) state_->size = std::max<uint64_t>(state_->size, offset + data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& v, IODebugContext* d) override {
    IOStatus s = fs_->Charge(data.size());
    if (s.ok()) s = target()->PositionedAppend(data, offset, o, v, d);
    if (s.ok()) state_->size = std::max<uint64_t>(state_->size, offset + data.size());
    return s;
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();
    IOStatus s = target()->Truncate(size, o, d);
    if (s.ok()) state_->size = size;
    return s;
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();
    const uint64_t size = state_->size;
    IOStatus s = target()->Sync(o, d);
    if (s.ok()) state_->synced = size;
    return s;
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();
    const uint64_t size = state_->size;
    IOStatus s = target()->Fsync(o, d);
    if (s.ok()) state_->synced = size;
    return s;
  }
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();
    return target()->RangeSync(offset, nbytes, o, d);  // starts writeback; guarantees nothing
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();
    return target()->Flush(o, d);
  }
  IOStatus Close(const IOOptions& o, IODebugContext* d) override {
    if (fs_->off()) return PoweredOff();  // the real file stays open until the wrapper goes
    return target()->Close(o, d);
  }

 private:
  FaultFs* fs_;
  std::shared_ptr<FaultFs::FileState> state_;
};

}  // namespace

FaultFs::FaultFs() : FileSystemWrapper(rocksdb::FileSystem::Default()) {
  // The Env's file system is this object, which the caller owns through a shared_ptr: an
  // aliasing pointer that does not own it avoids a reference cycle.
  env_ = rocksdb::NewCompositeEnv(std::shared_ptr<rocksdb::FileSystem>(std::shared_ptr<void>(), this));
}

IOStatus FaultFs::Charge(size_t n) {
  if (off_) return PoweredOff();
  int64_t left = space_left_;
  while (left >= 0) {
    if (static_cast<int64_t>(n) > left) {
      ++no_space_errors_;
      return IOStatus::NoSpace("simulated full disk", "No space left on device");
    }
    if (space_left_.compare_exchange_weak(left, left - static_cast<int64_t>(n))) break;
  }
  return IOStatus::OK();
}

std::shared_ptr<FaultFs::FileState> FaultFs::Track(const std::string& name, uint64_t size) {
  auto state = std::make_shared<FileState>();
  state->size = size;
  state->synced = size;  // what was there before it was opened for writing is on disk
  std::lock_guard<std::mutex> lock(mu_);
  files_[name] = state;
  return state;
}

IOStatus FaultFs::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                  std::unique_ptr<rocksdb::FSWritableFile>* r, IODebugContext* d) {
  if (off_) return PoweredOff();
  std::unique_ptr<rocksdb::FSWritableFile> file;
  IOStatus s = target()->NewWritableFile(f, o, &file, d);
  if (!s.ok()) return s;
  *r = std::make_unique<FaultFile>(std::move(file), this, Track(f, 0));
  return s;
}

IOStatus FaultFs::ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                     std::unique_ptr<rocksdb::FSWritableFile>* r, IODebugContext* d) {
  if (off_) return PoweredOff();
  std::error_code ec;
  const uint64_t size = std::filesystem::exists(f, ec) ? std::filesystem::file_size(f, ec) : 0;
  std::unique_ptr<rocksdb::FSWritableFile> file;
  IOStatus s = target()->ReopenWritableFile(f, o, &file, d);
  if (!s.ok()) return s;
  *r = std::make_unique<FaultFile>(std::move(file), this, Track(f, size));
  return s;
}

IOStatus FaultFs::ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, IODebugContext* d) {
  if (off_) return PoweredOff();
  std::unique_ptr<rocksdb::FSWritableFile> file;
  IOStatus s = target()->ReuseWritableFile(f, old, o, &file, d);
  if (!s.ok()) return s;
  *r = std::make_unique<FaultFile>(std::move(file), this, Track(f, 0));
  return s;
}

IOStatus FaultFs::RenameFile(const std::string& s, const std::string& t, const IOOptions& o, IODebugContext* d) {
  if (off_) return PoweredOff();
  IOStatus st = target()->RenameFile(s, t, o, d);
  if (!st.ok()) return st;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(s);
  if (it != files_.end()) {
    files_[t] = it->second;
    files_.erase(it);
  } else {
    files_.erase(t);
  }
  return st;
}

IOStatus FaultFs::DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* d) {
  if (off_) return PoweredOff();
  IOStatus s = target()->DeleteFile(f, o, d);
  if (s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(f);
  }
  return s;
}

IOStatus FaultFs::CreateDir(const std::string& dir, const IOOptions& o, IODebugContext* d) {
  if (off_) return PoweredOff();
  return target()->CreateDir(dir, o, d);
}

IOStatus FaultFs::CreateDirIfMissing(const std::string& dir, const IOOptions& o, IODebugContext* d) {
  if (off_) return PoweredOff();
  return target()->CreateDirIfMissing(dir, o, d);
}

IOStatus FaultFs::LinkFile(const std::string& s, const std::string& t, const IOOptions& o, IODebugContext* d) {
  if (off_) return PoweredOff();
  return target()->LinkFile(s, t, o, d);
}

uint64_t FaultFs::DropUnsyncedData() {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t dropped = 0;
  for (const auto& [name, state] : files_) {
    std::error_code ec;
    if (!std::filesystem::exists(name, ec)) continue;
    const uint64_t size = std::filesystem::file_size(name, ec);
    if (ec || size <= state->synced) continue;
    dropped += size - state->synced;
    std::filesystem::resize_file(name, state->synced, ec);
  }
  files_.clear();
  off_ = false;
  return dropped;
}

}  // namespace webindex::testing
