#include "common/crash_point.h"

#include <signal.h>

#include <cstdlib>

namespace webindex {

void CrashPoint(std::string_view name) {
  static const char* const chosen = std::getenv("WEBINDEX_CRASH_AT");
  if (chosen != nullptr && name == chosen) raise(SIGKILL);
}

}  // namespace webindex
