// Progress of a long-running read (`load`, a replay's bulk build) on stderr: on a terminal one line
// rewritten about 4 times a second below the log lines (ShowStatusLine); otherwise a log line
// every 5 s. Owned and called by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace webindex {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::string unit = "records";
    uint64_t total_bytes = 0;      //!< 0: unknown (stdin), no percentage or ETA
    //! With total_bytes 0: the records to come, for the percentage and ETA (0: unknown).
    uint64_t total_records = 0;
    //! Put before the numbers ("bulk graph build, read: ..."); "": none.
    std::string label;
    std::optional<bool> terminal;  //!< default: whether stderr is a terminal
    std::chrono::milliseconds terminal_interval{250};
    std::chrono::milliseconds log_interval{5000};
    //! Receives each status line instead of stderr / the log (tests).
    std::function<void(const std::string&)> sink;
  };

  explicit Progress(Options options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  //! Work done so far; prints when the refresh interval has passed. Cheap enough per record.
  //! `note`, when given, is called only then, and what it returns ends the line.
  void Update(uint64_t records, uint64_t bytes, const std::function<std::string()>& note = {});
  //! Clears the terminal line so that other output can follow; the next Update draws it again.
  void Finish();
  double elapsed_seconds() const;
  bool terminal() const { return terminal_; }

  //! The status text, e.g. "1200 records, 12.3 MB read, 400 records/s, 4.1 MB/s, 25%, ETA 0:09".
  std::string Line(uint64_t records, uint64_t bytes, double elapsed_s) const;

 private:
  Options options_;
  bool terminal_;
  bool line_shown_ = false;
  Clock::time_point start_;
  Clock::time_point next_;
};

//! Sum of the files' sizes, for Options::total_bytes; 0 (unknown) when one is stdin ("-") or not
//! a regular file.
uint64_t TotalFileBytes(const std::vector<std::string>& files);

//! "m:ss" or "h:mm:ss".
std::string FormatDuration(double seconds);

}  // namespace webindex
