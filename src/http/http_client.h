// HttpClient: GET and form POST requests to another member's API (a table shard's routes, a forwarded
// question) on one keep-alive HTTP/1.1 connection, each bounded by a timeout: connecting,
// sending and receiving the answer. Owned by one reader; one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"

namespace webindex::http {

class HttpClient {
 public:
  struct Response {
    int status = 0;
    std::string body;
  };

  //! `address`: "host:port" ("[v6]:port"). Connects on the first request.
  HttpClient(std::string address, std::chrono::milliseconds timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  //! The answer to GET `target`, whatever its status. Unavailable, saying why, when there is none
  //! (no connection, no answer within the timeout, a body over `max_body` bytes). A kept
  //! connection the member closed meanwhile (its idle timeout) is replaced once; a timeout is not
  //! retried.
  Result<Response> Get(const std::string& target, uint64_t max_body);
  //! As Get, a POST of `form` (application/x-www-form-urlencoded) to `target`: parameters of any
  //! length, where a request line is bounded by the server's header limit.
  Result<Response> PostForm(const std::string& target, const std::string& form, uint64_t max_body);

  const std::string& address() const { return address_; }

 private:
  class Connection;
  const std::string address_;
  const std::chrono::milliseconds timeout_;
  std::unique_ptr<Connection> connection_;
};

//! The message of an API error body ({"error":"..."}), else the body's start.
std::string ErrorMessageOf(const std::string& body);

}  // namespace webindex::http
