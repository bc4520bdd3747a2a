// Constructs spdlog's registry before main, in the ThreadSanitizer build only
// (WEBINDEX_SANITIZE_THREAD, preset "tsan"), next to tsan_c11_threads.cc.
//
// Why it exists: spdlog's registry (the default logger, its sinks and formatter) is a
// function-local static inside Debian's libspdlog.so, which is not built with TSan. A thread
// that finds it constructed skips the construction guard with an atomic load TSan does not see,
// so when the first log call of a process happens on one thread while another thread logs, every
// later use of the logger looks like a race with its construction (e.g. `webindex bench` run as
// a library by BenchSmokeTest, where the first line is logged while stage threads run).
// Constructed here, before any thread exists, it is ordered before every thread by their
// creation, which TSan does see. The registry is built on first use anyway; only the moment
// changes.

#include <spdlog/spdlog.h>

namespace {

const bool registry_constructed = [] {
  spdlog::default_logger_raw();
  return true;
}();

}  // namespace
