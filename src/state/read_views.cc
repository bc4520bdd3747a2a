#include "state/read_views.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

#include <fmt/format.h>

namespace webindex::state {
namespace {

constexpr char kViewLock[] = "reader.lock";
constexpr auto kUnlockedViewAge = std::chrono::minutes(1);  // a view its reader died making

}  // namespace

void ViewDir::Remove() {
  std::error_code ignored;
  if (!path.empty()) std::filesystem::remove_all(path, ignored);
  if (lock_fd >= 0) ::close(lock_fd);
  path.clear();
  lock_fd = -1;
}

void RemoveStaleViewsOf(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(dir / kViewsDir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (!it->is_directory(ignored)) continue;
    const int fd = ::open((it->path() / kViewLock).c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      const bool no_lock = errno == ENOENT;
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(it->path(), ignored);
      if (no_lock && !ignored && age > kUnlockedViewAge) fs::remove_all(it->path(), ignored);
      continue;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) fs::remove_all(it->path(), ignored);  // its reader is gone
    ::close(fd);
  }
}

ViewOutcome LinkView(const std::filesystem::path& dir, ViewDir* view) {
  namespace fs = std::filesystem;
  static std::atomic<int> views{0};
  static const uint64_t nonce = (uint64_t{std::random_device()()} << 32) | std::random_device()();
  std::error_code ec;
  fs::create_directories(dir / kViewsDir, ec);
  if (ec) return ViewOutcome::kRefused;
  view->path = (dir / kViewsDir / fmt::format("{}.{}.{:016x}", ::getpid(), views++, nonce)).string();
  if (!fs::create_directory(view->path, ec)) {
    view->path.clear();
    return ec ? ViewOutcome::kRefused : ViewOutcome::kRaced;
  }
  const fs::path path = view->path;
  view->lock_fd = ::open((path / kViewLock).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (view->lock_fd < 0) {
    view->Remove();
    return ViewOutcome::kRefused;
  }
  // A cleaner that opened the lock file before this flock may hold it, or have removed the
  // view already: then it is not this reader's. A file system without flock allows no views.
  if (::flock(view->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      view->Remove();
      return ViewOutcome::kRefused;
    }
    ::close(view->lock_fd);
    *view = ViewDir();
    return ViewOutcome::kRaced;
  }
  if (!fs::exists(path / kViewLock, ec)) {
    ::close(view->lock_fd);
    *view = ViewDir();
    return ViewOutcome::kRaced;
  }
  const auto fail = [view](ViewOutcome outcome) {
    view->Remove();
    return outcome;
  };
  // Tables, WALs, OPTIONS and IDENTITY: linked (never changed in place, or only appended to).
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || name == "LOCK" || name == "CURRENT" || name.starts_with("LOG") ||
        name.starts_with("MANIFEST-")) {
      continue;
    }
    std::error_code link_ec;
    fs::create_hard_link(it->path(), path / name, link_ec);
    if (!link_ec || link_ec == std::errc::no_such_file_or_directory) continue;  // gone already: fine
    const bool refused = link_ec == std::errc::cross_device_link || link_ec == std::errc::operation_not_permitted ||
                         link_ec == std::errc::operation_not_supported || link_ec == std::errc::too_many_links ||
                         link_ec == std::errc::permission_denied || link_ec == std::errc::read_only_file_system;
    return fail(refused ? ViewOutcome::kRefused : ViewOutcome::kRaced);
  }
  if (ec) return fail(ViewOutcome::kRaced);
  // Then CURRENT and its MANIFEST as they are now: a copy, which the writer's later edits (naming
  // files that were not linked) do not reach.
  std::string current;
  if (std::FILE* f = std::fopen((dir / "CURRENT").c_str(), "rb")) {
    char buf[256];
    current.assign(buf, std::fread(buf, 1, sizeof(buf), f));
    std::fclose(f);
  }
  while (!current.empty() && (current.back() == '\n' || current.back() == '\r')) current.pop_back();
  if (!current.starts_with("MANIFEST-") || current.find('/') != std::string::npos) return fail(ViewOutcome::kRaced);
  if (!fs::copy_file(dir / current, path / current, ec) || ec) return fail(ViewOutcome::kRaced);
  if (std::FILE* f = std::fopen((path / "CURRENT").c_str(), "wb")) {
    const std::string line = current + "\n";
    const bool written = std::fwrite(line.data(), 1, line.size(), f) == line.size();
    if (std::fclose(f) == 0 && written) return ViewOutcome::kMade;
  }
  return fail(ViewOutcome::kRaced);
}

}  // namespace webindex::state
