#include "common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace webindex {

void InitLogging(const std::string& level) {
  auto logger = spdlog::get("webindex");
  if (!logger) {
    logger = spdlog::stderr_color_mt("webindex");
    spdlog::set_default_logger(logger);
  }
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace webindex
