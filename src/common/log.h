// Logging: the one place that includes spdlog. Call Log* from any thread.
#pragma once

#include <spdlog/spdlog.h>

namespace webindex {

//! Sets up stderr logging at `level` ("trace".."off"); safe to call more than once.
void InitLogging(const std::string& level);

}  // namespace webindex

#define LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
#define LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
