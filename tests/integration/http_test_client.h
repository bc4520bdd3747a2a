// Shared by the HTTP integration tests: a raw-socket HTTP client (so tests can send malformed
// requests) and a fixture serving a table the real pipeline built on 127.0.0.1:0.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include "http/server.h"
#include "pipeline_harness.h"
#include "query/query_json.h"
#include "query/query_service.h"

namespace webindex::testing {

using Clock = std::chrono::steady_clock;

inline constexpr char kBlog[] = "http://blog.stackoverflow.com/2009/06/attribution-required/";

//! A connected loopback socket with a receive timeout; closed on destruction. `from`: the
//! local address to connect from (127.0.0.2 is another client than 127.0.0.1).
class Conn {
 public:
  explicit Conn(uint16_t port, int timeout_s = 10, const char* from = nullptr) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{timeout_s, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (from != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      if (inet_pton(AF_INET, from, &local.sin_addr) != 1 ||
          bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
        return;
      }
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Conn() { close(fd_); }
  bool connected() const { return connected_; }
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  //! True if the peer closes (or resets) the connection within `limit` without sending.
  bool ClosedWithin(std::chrono::milliseconds limit) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
    char byte;
    return recv(fd_, &byte, 1, MSG_PEEK) <= 0;
  }
  //! True if nothing arrives (not even a close) within `limit`.
  bool SilentFor(std::chrono::milliseconds limit) {
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, static_cast<int>(limit.count())) == 0;
  }
  //! Reads until the peer closes (or the timeout); returns what arrived.
  std::string ReadToEnd() {
    std::string out;
    char buf[8192];
    for (;;) {
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  //! Reads one response with a Content-Length body (keep-alive); keeps what follows it.
  std::string ReadResponse() {
    char buf[8192];
    for (;;) {
      const size_t head_end = pending_.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::smatch m;
        const std::string head = pending_.substr(0, head_end);
        if (std::regex_search(head, m, std::regex("[Cc]ontent-[Ll]ength: (\\d+)")) &&
            pending_.size() >= head_end + 4 + std::stoul(m[1])) {
          const size_t end = head_end + 4 + std::stoul(m[1]);
          std::string out = pending_.substr(0, end);
          pending_.erase(0, end);
          return out;
        }
      }
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) return std::exchange(pending_, "");
      pending_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  std::string pending_;
  int fd_ = -1;
  bool connected_ = false;
};

struct Reply {
  int status = 0;
  std::string head, body;
};

inline Reply Parse(const std::string& raw) {
  Reply r;
  const size_t end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || end == std::string::npos) return r;
  r.status = std::stoi(raw.substr(9, 3));
  r.head = raw.substr(0, end);
  r.body = raw.substr(end + 4);
  return r;
}

//! Sends raw request bytes on a new connection and reads until the server closes it.
inline Reply Raw(uint16_t port, const std::string& request) {
  Conn c(port);
  EXPECT_TRUE(c.connected());
  c.Send(request);
  return Parse(c.ReadToEnd());
}

inline Reply Get(uint16_t port, const std::string& target) {
  return Raw(port, "GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
}

//! The port `webindex run --http 127.0.0.1:0` logged in `log`, or 0.
inline uint16_t LoggedPort(const std::string& log) {
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  if (std::regex_search(s, m, std::regex(R"(query API on \S+ \(port (\d+)\))"))) return std::stoi(m[1]);
  return 0;
}

inline std::optional<std::string> NextCursor(const std::string& body) {
  std::smatch m;
  if (std::regex_search(body, m, std::regex(R"("next":"([A-Za-z0-9_-]+)\")"))) return m[1].str();
  return std::nullopt;
}

inline std::string Encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

inline void ProduceSample(PipelineHarness& h) {
  std::vector<std::pair<std::string, std::string>> events;
  for (const auto& line : ReadLines(TestData("5-pages.txt"))) events.emplace_back("", line);
  events.emplace_back(
      "http://a.com/1",
      R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/1","anchorText":"b1"},)"
      R"({"url":"http://b.com/3","anchorText":"b3"},{"url":"http://c.com/1","anchorText":"c1 \"x\""}]})");
  h.Produce(events);
}

//! Serves the 5 sample pages and http://a.com/1 (through the pipeline) on 127.0.0.1:0 with
//! 1 s read and 2 s idle timeouts; the table is built once per test suite.
class HttpFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    harness_ = std::make_unique<PipelineHarness>(2);
    ProduceSample(*harness_);
    harness_->RunUntilIdle();
    auto store = harness_->OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  static void TearDownTestSuite() {
    store_.reset();
    harness_.reset();
  }
  void SetUp() override {
    metrics_.events = 42;
    server_ = std::make_unique<http::Server>(
        *store_, Options(), [this](http::PrometheusWriter& w) { http::WritePipelineMetrics(metrics_, w); });
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    port_ = server_->port();
    ASSERT_NE(port_, 0);
  }
  void TearDown() override { server_.reset(); }

  static http::ServerOptions Options() {
    http::ServerOptions o;
    o.listen = "127.0.0.1:0";
    o.threads = 3;
    o.read_timeout = std::chrono::milliseconds(1000);
    o.idle_timeout = std::chrono::milliseconds(2000);
    return o;
  }
  query::QueryService service() { return query::QueryService(*store_); }

  inline static std::unique_ptr<PipelineHarness> harness_;
  inline static std::unique_ptr<state::Store> store_;
  pipeline::Metrics metrics_;
  std::unique_ptr<http::Server> server_;
  uint16_t port_ = 0;
};

}  // namespace webindex::testing
