// Logging: the one place that includes spdlog. Call Log* from any thread.
#pragma once

#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

namespace webindex {

//! Sets up stderr logging at `level` ("trace".."off"); safe to call more than once.
void InitLogging(const std::string& level);

//! The status line a terminal shows under the log (Progress's "... ETA 0:32"): drawn in place on
//! stderr, taken away before each log line and drawn again after it, so that the two never share
//! a line. Any thread.
void ShowStatusLine(std::string_view line);
//! Erases the status line and forgets it; other output may follow. No-op when none is shown.
void ClearStatusLine();

}  // namespace webindex

#define LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
#define LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
