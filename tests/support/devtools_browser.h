// A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe): one
// tab that opens a URL, evaluates JavaScript, and types and presses keys as a user does, for
// what a DOM dump cannot show (suggestions while typing, keyboard use). One thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace webindex::testing {

//! The flags every headless Chromium of the tests runs with: no sandbox, GPU, QUIC, first-run
//! dialog, background networking, component updates or sync.
std::vector<std::string> HeadlessChromiumFlags();

class DevToolsBrowser {
 public:
  //! Starts `chromium` headless with its profile in `profile_dir` (removed when the browser
  //! goes); its output to `log`.
  static Result<std::unique_ptr<DevToolsBrowser>> Start(const std::string& chromium, const std::string& profile_dir,
                                                        const std::string& log);
  ~DevToolsBrowser();
  DevToolsBrowser(const DevToolsBrowser&) = delete;
  DevToolsBrowser& operator=(const DevToolsBrowser&) = delete;

  //! Opens `url` in the tab (returns once the navigation is committed).
  Status Open(const std::string& url);
  //! The value of a JavaScript expression (a promise is awaited), as a string: strings as they
  //! are, anything else as JSON. InvalidArgument with the message when it throws.
  Result<std::string> Eval(const std::string& expression);
  //! Polls `condition` (an expression) until it is true; DeadlineExceeded-like Aborted after `timeout`.
  Status WaitFor(const std::string& condition, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  //! Types `text` into the focused element (input events, as a keyboard would).
  Status Type(const std::string& text);
  //! The DevTools protocol's modifier bits, for Press.
  static constexpr int kCtrl = 2;
  //! Presses and releases a key: "ArrowDown", "ArrowUp", "Enter", "Escape"; with `modifiers`
  //! (kCtrl) held.
  Status Press(const std::string& key, int modifiers = 0);

 private:
  DevToolsBrowser(pid_t pid, int to, int from, std::string profile)
      : pid_(pid), to_(to), from_(from), profile_(std::move(profile)) {}
  //! Sends a command (to the tab's session unless `browser`) and returns its response message.
  Result<std::string> Call(const std::string& method, const std::string& params_json, bool browser = false);
  Result<std::string> Read(std::chrono::steady_clock::time_point deadline);

  pid_t pid_;
  int to_, from_;
  std::string profile_;
  int next_id_ = 1;
  std::string session_;
  std::string buffer_;
};

}  // namespace webindex::testing
