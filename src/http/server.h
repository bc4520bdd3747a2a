// Server: the HTTP/1.1 front of the Api on Boost.Beast — an acceptor and keep-alive sessions
// served by an io_context that `threads` threads run. Owned by the command that serves;
// Start/Stop from one thread, both idempotent; Stop closes the acceptor and every connection
// and returns once no handler runs, so the store can close right after.
//
// Connection limits never lock new clients out behind idle ones: at a limit, the connection
// idle longest (waiting for its next request, or for its first) is closed to admit the new
// one; a connection reading a request or writing a response is never closed for this. With
// nothing idle to close, the new connection gets 503 (server limit) or 429 (client limit)
// with Retry-After and is closed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "http/api.h"

namespace webindex::http {

struct ServerOptions {
  std::string listen;  //!< required: "host:port", ":port" or "port" (loopback), "[v6]:port"
  int threads = 2;
  std::chrono::milliseconds read_timeout{10000};  //!< to receive a whole request once it began; per write
  std::chrono::milliseconds idle_timeout{30000};  //!< keep-alive wait for the next request
  size_t header_limit = size_t{8} << 10;
  size_t body_limit = size_t{1} << 20;
  //! Open connections at most; a new one beyond closes the connection idle longest.
  size_t max_connections = 1024;
  //! Open connections per remote IP address (0: no limit); a client beyond closes its own
  //! connection idle longest, never another client's.
  size_t max_connections_per_client = 64;
  bool per_client_limit_on_loopback = true;  //!< false: a local reverse proxy is not limited
  //! Above this share of max_connections, connections going idle wait at most
  //! idle_timeout_under_pressure for their next request.
  double pressure_fraction = 0.75;
  std::chrono::milliseconds idle_timeout_under_pressure{5000};
  //! /sparql: time budget and result cap.
  SparqlOptions sparql;
};

//! Host and port of a listen address; InvalidArgument with the reason.
struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};
Result<ListenAddress> ParseListenAddress(const std::string& text);

class Server {
 public:
  Server(state::Store& store, ServerOptions options, Api::MetricsSource metrics = {}, Api::StatusSource status = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  //! Binds, listens and starts the threads. Aborted after Stop.
  Status Start();
  void Stop();
  //! The bound port (after Start; the real one when listening on port 0).
  uint16_t port() const;
  Api& api();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace webindex::http
