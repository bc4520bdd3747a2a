#include "common/log.h"

#include <cstdio>
#include <memory>
#include <mutex>

#include <spdlog/sinks/sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace webindex {
namespace {

//! The status line shown on stderr ("" none) and the lock that orders it with log lines.
struct StatusLine {
  std::mutex mu;
  std::string text;
};

StatusLine& TheStatusLine() {
  static StatusLine status;
  return status;
}

void Erase() { std::fputs("\r\033[K", stderr); }

void Draw(const std::string& text) {
  std::fprintf(stderr, "\r%s\033[K", text.c_str());  // in place, erasing a longer old line's tail
  std::fflush(stderr);
}

//! stderr's color sink behind the status line: each log line erases the line first and draws it
//! again after. Owned by the "webindex" logger; any thread.
class StatusLineSink : public spdlog::sinks::sink {
 public:
  StatusLineSink() : inner_(std::make_unique<spdlog::sinks::stderr_color_sink_mt>()) {}

  void log(const spdlog::details::log_msg& msg) override {
    StatusLine& status = TheStatusLine();
    std::lock_guard<std::mutex> lock(status.mu);
    if (!status.text.empty()) Erase();
    inner_->log(msg);
    if (!status.text.empty()) Draw(status.text);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  std::unique_ptr<spdlog::sinks::stderr_color_sink_mt> inner_;
};

}  // namespace

void InitLogging(const std::string& level) {
  auto logger = spdlog::get("webindex");
  if (!logger) {
    logger = std::make_shared<spdlog::logger>("webindex", std::make_shared<StatusLineSink>());
    spdlog::register_logger(logger);
    spdlog::set_default_logger(logger);
  }
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  spdlog::set_level(spdlog::level::from_str(level));
}

void ShowStatusLine(std::string_view line) {
  StatusLine& status = TheStatusLine();
  std::lock_guard<std::mutex> lock(status.mu);
  status.text.assign(line);
  if (status.text.empty()) status.text = " ";  // still a line to take away before the next log line
  Draw(status.text);
}

void ClearStatusLine() {
  StatusLine& status = TheStatusLine();
  std::lock_guard<std::mutex> lock(status.mu);
  if (status.text.empty()) return;
  status.text.clear();
  Erase();
  std::fflush(stderr);
}

}  // namespace webindex
