#include "common/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace webindex {

void CrashPoint(std::string_view name) {
  static const char* const chosen = std::getenv("WEBINDEX_CRASH_AT");
  if (chosen != nullptr && name == chosen) raise(SIGKILL);
}

void PausePoint(std::string_view name) {
  static const char* const chosen = std::getenv("WEBINDEX_PAUSE_AT");
  static const char* const armed_by = std::getenv("WEBINDEX_PAUSE_IF");
  static std::atomic<bool> paused{false};
  if (chosen == nullptr || name != chosen) return;
  if (armed_by != nullptr && access(armed_by, F_OK) != 0) return;
  if (!paused.exchange(true)) raise(SIGSTOP);
}

}  // namespace webindex
