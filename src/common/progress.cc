#include "common/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "common/log.h"

namespace webindex {

std::string FormatDuration(double seconds) {
  const auto s = static_cast<uint64_t>(std::max(0.0, std::round(seconds)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

Progress::Progress(Options options)
    : options_(std::move(options)),
      terminal_(options_.terminal.value_or(isatty(STDERR_FILENO) == 1)),
      start_(Clock::now()),
      next_(start_ + (terminal_ ? options_.terminal_interval : options_.log_interval)) {}

Progress::~Progress() { Finish(); }

double Progress::elapsed_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::string Progress::Line(uint64_t records, uint64_t bytes, double elapsed_s) const {
  const double mb = static_cast<double>(bytes) / 1e6;
  const double secs = std::max(elapsed_s, 1e-3);
  std::string line = fmt::format("{}{}{} {}, {:.1f} MB read, {:.0f} {}/s, {:.1f} MB/s", options_.label,
                                 options_.label.empty() ? "" : ": ", records, options_.unit, mb,
                                 static_cast<double>(records) / secs, options_.unit, mb / secs);
  // The share done and the time left, by bytes when their total is known, else by records.
  const bool by_bytes = options_.total_bytes > 0;
  const uint64_t total = by_bytes ? options_.total_bytes : options_.total_records;
  const uint64_t done = by_bytes ? bytes : records;
  if (total > 0) {
    line += fmt::format(", {:.0f}%", std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) * 100);
    if (done > 0) {
      const double left = static_cast<double>(total - std::min(done, total));
      line += ", ETA " + FormatDuration(left / (static_cast<double>(done) / secs));
    }
  }
  return line;
}

void Progress::Update(uint64_t records, uint64_t bytes, const std::function<std::string()>& note) {
  const Clock::time_point now = Clock::now();
  if (now < next_) return;
  next_ = now + (terminal_ ? options_.terminal_interval : options_.log_interval);
  std::string line = Line(records, bytes, std::chrono::duration<double>(now - start_).count());
  if (note) line += ", " + note();
  if (options_.sink) {
    options_.sink(line);
  } else if (terminal_) {
    ShowStatusLine(line);  // log lines from any thread take it away and draw it again
  } else {
    LOG_INFO("{}", line);
  }
  line_shown_ = terminal_;
}

void Progress::Finish() {
  if (!line_shown_) return;
  line_shown_ = false;
  if (!options_.sink) ClearStatusLine();
}

uint64_t TotalFileBytes(const std::vector<std::string>& files) {
  uint64_t total = 0;
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = f == "-" ? 0 : std::filesystem::file_size(f, ec);
    if (f == "-" || ec) return 0;
    total += size;
  }
  return total;
}

}  // namespace webindex
