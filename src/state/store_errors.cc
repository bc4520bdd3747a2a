#include "state/store_errors.h"

#include <fmt/format.h>

#include "common/log.h"
#include "state/store.h"

namespace webindex::state {

std::string HumanBytes(uint64_t n) {
  if (n >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1 << 30));
  if (n >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  return fmt::format("{} KiB", n >> 10);
}

Status FromRocks(const rocksdb::Status& s, const char* what) {
  if (s.ok()) return Status::Ok();
  if (s.IsNotFound()) return Status::NotFound(std::string(what) + ": " + s.ToString());
  if (s.IsCorruption()) return Status::Corruption(std::string(what) + ": " + s.ToString());
  return Status::IoError(std::string(what) + ": " + s.ToString());
}

const char* const kDamagedAdvice =
    "check it with `webindex verify`, restore it from a backup, or rebuild it from the input topic (`webindex run "
    "--reset` does so for a data dir)";

Status NoSpaceError(const std::string& dir, uint64_t min_free_bytes, const std::string& detail) {
  const auto free = FreeBytes(dir);
  return Status::IoError(fmt::format(
      "no space left on the disk of {} ({} free): {}. Everything committed is safe; free at least {} "
      "(store.min_free_mb) and start webindex again: it resumes where it stopped",
      dir, free ? HumanBytes(*free) : std::string("unknown"), detail, HumanBytes(min_free_bytes)));
}

void BackgroundErrors::OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) {
  if (error == nullptr || error->ok() || error->severity() < rocksdb::Status::Severity::kHardError) return;
  try {
    const char* during = "a background write";
    switch (reason) {
      case rocksdb::BackgroundErrorReason::kWriteCallback:
        during = "a write";  // a commit's, which other writers then meet too
        break;
      case rocksdb::BackgroundErrorReason::kFlush:
      case rocksdb::BackgroundErrorReason::kFlushNoWAL:
        during = "a memtable flush";
        break;
      case rocksdb::BackgroundErrorReason::kCompaction:
        during = "a compaction";
        break;
      case rocksdb::BackgroundErrorReason::kManifestWrite:
      case rocksdb::BackgroundErrorReason::kManifestWriteNoWAL:
        during = "a write of the MANIFEST";
        break;
      default:
        break;
    }
    const std::string what = fmt::format("{} of the database in {} failed: {}", during, dir_, error->ToString());
    Status st = error->IsNoSpace() ? NoSpaceError(dir_, min_free_bytes_, what)
                : error->IsCorruption()
                    ? Status::Corruption(what + ". The store is damaged and takes no more writes: " + kDamagedAdvice)
                    : Status::IoError(what +
                                      ". The store takes no more writes; everything committed is safe: start "
                                      "webindex again once the cause is fixed");
    LOG_ERROR("{}", st.ToString());
    std::lock_guard<std::mutex> lock(mu_);
    if (first_.ok()) first_ = std::move(st);
    failed_ = true;
  } catch (...) {
    failed_ = true;  // out of memory: First() still reports a failure
  }
}

void BackgroundErrors::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  if (!info.new_bg_error.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  first_ = Status::Ok();
  failed_ = false;
}

Status BackgroundErrors::First() const {
  if (!failed_) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  return first_.ok() ? Status::IoError("a background write of the database in " + dir_ + " failed") : first_;
}

}  // namespace webindex::state
