// CliCluster: the real `webindex` binary as child processes — `webindex broker` in a process
// of its own, so that topics outlive every processor, and `run`, `replay`, `dump` against it —
// plus a producer for test events. For the crash and replay tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "child_process.h"
#include "event_generator.h"
#include "kafka/producer.h"

namespace webindex::testing {

//! Waits up to 10 s for a file to hold a non-empty first line; returns it ("" on timeout).
std::string WaitForFile(const std::string& path);

class CliCluster {
 public:
  //! Starts `binary broker` with `partitions` partitions per topic in a new temp dir.
  CliCluster(std::string binary, const std::string& name, int partitions);
  //! Stops the broker; removes the temp dir unless `keep` or WEBINDEX_KEEP_TEST_DIR.
  ~CliCluster();
  void Keep() { keep_ = true; }
  //! False when the broker or the producer did not start (the reason is in log()).
  bool ok() const { return producer_ != nullptr; }

  const std::string& dir() const { return dir_; }
  const std::string& log() const { return log_; }
  const std::string& brokers() const { return brokers_; }
  std::string data_dir() const { return dir_ + "/data"; }

  //! Produces to `pages` (each event to its partition hint) and waits for the acknowledgements.
  ::testing::AssertionResult Produce(const std::vector<GeneratedEvent>& events);
  //! Produces records as they are (topic, partition, headers) and waits for the acknowledgements.
  ::testing::AssertionResult ProduceRecords(const std::vector<OutRecord>& records);
  //! Starts `binary args...`; output goes to log(). `env`: "NAME=value" pairs for the child,
  //! separated by spaces, or "".
  std::unique_ptr<ChildProcess> Start(const std::vector<std::string>& args, const std::string& env = "");
  std::unique_ptr<ChildProcess> StartRun(bool exit_when_idle, const std::string& env = "");
  //! Runs `binary args...` to completion; returns its exit code, its stdout in `out`.
  int Run(const std::vector<std::string>& args, std::string* out = nullptr);
  //! `webindex dump` of data_dir(), as lines.
  std::vector<std::string> Dump();
  //! Waits up to `timeout_ms` for log() to contain `needle` at or after byte `from`.
  bool WaitForLog(const std::string& needle, int timeout_ms, size_t from = 0);
  //! The log's size now: a `from` for WaitForLog that skips what is there already.
  size_t LogSize() const;
  //! "see LOG" and the log's last `lines` lines: a failure's reason in the test's own output,
  //! where CI shows it after the test directory is gone.
  std::string LogTail(size_t lines = 15) const;
  //! The data dir's GENERATION file, trimmed ("" when missing).
  std::string CurrentGeneration() const;
  //! The gen-<N> directories of the data dir, sorted.
  std::vector<std::string> GenerationDirs() const;
  //! The `webindex broker` process (to pause it as a stalled broker would be).
  ChildProcess& broker() { return *broker_; }

 private:
  std::string binary_, dir_, log_, brokers_;
  bool keep_ = false;
  std::unique_ptr<ChildProcess> broker_;
  std::unique_ptr<kafka::Producer> producer_;
};

}  // namespace webindex::testing
