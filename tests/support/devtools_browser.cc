#include "devtools_browser.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include <simdjson.h>

#include "codec/json_writer.h"

namespace webindex::testing {
namespace {

constexpr std::chrono::seconds kCallTimeout{30};

std::string JsonString(std::string_view s) {
  std::string out;
  codec::AppendJsonString(&out, s);
  return out;
}

//! The DevTools key event fields of a named key.
struct Key {
  const char* key;
  int code;
};
constexpr Key kKeys[] = {{"ArrowDown", 40}, {"ArrowUp", 38}, {"Enter", 13}, {"Escape", 27}, {"Tab", 9}};

}  // namespace

std::vector<std::string> HeadlessChromiumFlags() {
  return {"--headless",       "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync"};
}

Result<std::unique_ptr<DevToolsBrowser>> DevToolsBrowser::Start(const std::string& chromium,
                                                                const std::string& profile_dir,
                                                                const std::string& log) {
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) return Status::IoError("pipe failed");
  std::vector<std::string> argv = {chromium};
  for (auto& flag : HeadlessChromiumFlags()) argv.push_back(std::move(flag));
  argv.insert(argv.end(), {"--window-size=1280,900", "--remote-debugging-pipe", "--user-data-dir=" + profile_dir,
                           "about:blank"});
  const pid_t pid = fork();
  if (pid < 0) return Status::IoError("fork failed");
  if (pid == 0) {
    // The protocol's pipe ends are fds 3 (commands in) and 4 (messages out).
    const int in = fcntl(to[0], F_DUPFD, 10), out = fcntl(from[1], F_DUPFD, 10);
    dup2(in, 3);
    dup2(out, 4);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    for (int f = 5; f < 1024; ++f) close(f);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  std::unique_ptr<DevToolsBrowser> b(new DevToolsBrowser(pid, to[1], from[0], profile_dir));
  ASSIGN_OR_RETURN(std::string created, b->Call("Target.createTarget", R"({"url":"about:blank"})", true));
  simdjson::dom::parser parser;
  std::string_view target;
  if (parser.parse(created)["result"]["targetId"].get(target) != simdjson::SUCCESS) {
    return Status::Internal("no targetId in " + created);
  }
  ASSIGN_OR_RETURN(std::string attached, b->Call("Target.attachToTarget",
                                                 R"({"targetId":)" + JsonString(target) + R"(,"flatten":true})", true));
  std::string_view session;
  if (parser.parse(attached)["result"]["sessionId"].get(session) != simdjson::SUCCESS) {
    return Status::Internal("no sessionId in " + attached);
  }
  b->session_ = std::string(session);
  return b;
}

DevToolsBrowser::~DevToolsBrowser() {
  close(to_);
  close(from_);
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 50 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (waitpid(pid_, &status, WNOHANG) == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(profile_, ec);
}

Result<std::string> DevToolsBrowser::Read(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (const size_t end = buffer_.find('\0'); end != std::string::npos) {
      std::string message = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      return message;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Status::Aborted("no answer from chromium in time");
    pollfd p{from_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(from_, chunk, sizeof chunk);
    if (n <= 0) return Status::IoError("chromium closed its DevTools pipe");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

Result<std::string> DevToolsBrowser::Call(const std::string& method, const std::string& params_json, bool browser) {
  const int id = next_id_++;
  std::string message =
      R"({"id":)" + std::to_string(id) + R"(,"method":)" + JsonString(method) + R"(,"params":)" + params_json;
  if (!browser) message += R"(,"sessionId":)" + JsonString(session_);
  message += "}";
  message.push_back('\0');
  for (std::string_view rest = message; !rest.empty();) {
    const ssize_t n = write(to_, rest.data(), rest.size());
    if (n <= 0) return Status::IoError("cannot write to chromium's DevTools pipe");
    rest.remove_prefix(static_cast<size_t>(n));
  }
  const auto deadline = std::chrono::steady_clock::now() + kCallTimeout;
  simdjson::dom::parser parser;
  for (;;) {
    ASSIGN_OR_RETURN(std::string reply, Read(deadline));
    int64_t got = 0;
    if (parser.parse(reply)["id"].get(got) != simdjson::SUCCESS || got != id) continue;  // an event
    if (reply.find(R"("error":)") != std::string::npos && reply.find(R"("result":)") == std::string::npos) {
      return Status::Internal(method + " failed: " + reply);
    }
    return reply;
  }
}

Status DevToolsBrowser::Open(const std::string& url) {
  return Call("Page.navigate", R"({"url":)" + JsonString(url) + "}").status();
}

Result<std::string> DevToolsBrowser::Eval(const std::string& expression) {
  ASSIGN_OR_RETURN(std::string reply, Call("Runtime.evaluate", R"({"expression":)" + JsonString(expression) +
                                                                   R"(,"awaitPromise":true,"returnByValue":true})"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(reply).get(doc) != simdjson::SUCCESS) return Status::Internal("bad reply: " + reply);
  simdjson::dom::element details;
  if (doc["result"]["exceptionDetails"].get(details) == simdjson::SUCCESS) {
    return Status::InvalidArgument("the expression threw: " + simdjson::to_string(details));
  }
  simdjson::dom::element value;
  if (doc["result"]["result"]["value"].get(value) != simdjson::SUCCESS) return std::string("undefined");
  std::string_view text;
  if (value.get(text) == simdjson::SUCCESS) return std::string(text);
  return simdjson::to_string(value);
}

Status DevToolsBrowser::WaitFor(const std::string& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto v = Eval("Boolean(" + condition + ")");
    if (v.ok() && *v == "true") return Status::Ok();
    last = v.ok() ? *v : v.status().message();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Aborted("still not true after " + std::to_string(timeout.count()) + " ms: " + condition + " (" + last +
                         ")");
}

Status DevToolsBrowser::Type(const std::string& text) {
  return Call("Input.insertText", R"({"text":)" + JsonString(text) + "}").status();
}

Status DevToolsBrowser::Press(const std::string& key, int modifiers) {
  for (const Key& k : kKeys) {
    if (key != k.key) continue;
    const std::string fields = R"("key":)" + JsonString(k.key) + R"(,"code":)" + JsonString(k.key) +
                               R"(,"windowsVirtualKeyCode":)" + std::to_string(k.code) +
                               R"(,"modifiers":)" + std::to_string(modifiers);
    const std::string text = k.code == 13 ? R"(,"text":"\r")" : "";
    RETURN_IF_ERROR(Call("Input.dispatchKeyEvent", R"({"type":"keyDown",)" + fields + text + "}").status());
    return Call("Input.dispatchKeyEvent", R"({"type":"keyUp",)" + fields + "}").status();
  }
  return Status::InvalidArgument("no such key: " + key);
}

}  // namespace webindex::testing
