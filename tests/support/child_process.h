// A child process for tests that run the real `webindex` binary: start, SIGKILL, wait.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace webindex::testing {

class ChildProcess {
 public:
  //! Starts argv[0] with its arguments; stdout and stderr go to `log_path` (appended).
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int sig);
  //! Waits for the exit; returns the exit code, or 128 + signal number.
  int Wait();
  //! True while the process runs (reaps it when it has exited).
  bool Running();

 private:
  pid_t pid_ = -1;
  int status_ = -1;
};

//! Runs a command to completion, returning its exit code and its stdout.
int RunCommand(const std::vector<std::string>& argv, std::string* out, const std::string& log_path);

}  // namespace webindex::testing
