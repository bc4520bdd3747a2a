// Read-only views of a database that another process writes. RocksDB's read-only open reads the
// MANIFEST and then opens every file it names; the writer's flushes and compactions delete files
// in between, and under a busy writer an open of many files can lose that race again and again.
// A view is a directory of hard links to the live files, made before the MANIFEST is copied: a
// linked file stays readable whatever the writer deletes, so the open can only miss files created
// in the short time between linking and copying, and is then tried again on a new view. Views
// live in <dir>/views/<pid>.<n>.<random> (the writer ignores subdirectories) and are removed on
// close. Each reader holds a lock (flock) on its view's lock file while the view is open: a view
// whose lock can be taken belongs to a reader that is gone (killed, or in a pid namespace of its
// own), and is removed by the next open and by a running writer (Store::RemoveStaleViews).
// Used by state/store.cc only.
#pragma once

#include <filesystem>
#include <string>

namespace webindex::state {

inline constexpr char kViewsDir[] = "views";

//! A view directory and the lock its reader holds on it while it is open.
struct ViewDir {
  std::string path;
  int lock_fd = -1;
  //! Removes the directory and gives up the lock. Idempotent.
  void Remove();
};

//! Removes the views under `dir` whose readers are gone (their lock free, or never taken and a
//! minute old).
void RemoveStaleViewsOf(const std::filesystem::path& dir);

enum class ViewOutcome { kMade, kRaced, kRefused };

//! Makes a new view of the database in `dir` into `*view`. kRaced: try again (the writer replaced
//! the MANIFEST, a cleaner took the half-made view, a disk error); kRefused: this file system or
//! these permissions allow no views, open the database directly.
ViewOutcome LinkView(const std::filesystem::path& dir, ViewDir* view);

}  // namespace webindex::state
