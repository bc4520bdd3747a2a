#include "http/server.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast.hpp>

#include <fmt/format.h>

#include "common/log.h"
#include "http/hangup_watch.h"

namespace webindex::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr unsigned kHttp11 = 11;  // version of replies to requests that did not parse
constexpr size_t kFirstReadBytes = 4096;
constexpr size_t kMaxLingerBytes = 1 << 20;
constexpr std::chrono::seconds kLinger{1};
constexpr std::chrono::seconds kWarnEvery{10};  // at most one connection-limit warning per period
constexpr size_t kRefuseDrainBytes = 16 << 10;

class Session;

std::string_view View(beast::string_view s) { return {s.data(), s.size()}; }

//! The version of a well-formed request line whose HTTP version is not 1.0 or 1.1 ("2.0"), for
//! a 505; nullopt when the line is malformed (a 400). Beast reports both as bad_version.
std::optional<std::string> UnsupportedVersion(const beast::flat_buffer& buffer) {
  const auto data = buffer.data();
  const std::string_view bytes(static_cast<const char*>(data.data()), data.size());
  const size_t eol = bytes.find("\r\n");
  if (eol == std::string_view::npos) return std::nullopt;
  const std::string_view line = bytes.substr(0, eol);
  const size_t space = line.rfind(' ');
  if (space == std::string_view::npos || line.find(' ') == space) return std::nullopt;  // method target version
  const std::string_view version = line.substr(space + 1);
  if (version.size() != 8 || !version.starts_with("HTTP/") || !std::isdigit(static_cast<unsigned char>(version[5])) ||
      version[6] != '.' || !std::isdigit(static_cast<unsigned char>(version[7]))) {
    return std::nullopt;
  }
  if (version == "HTTP/1.0" || version == "HTTP/1.1") return std::nullopt;
  return std::string(version.substr(5));
}

//! The limit a new connection reached.
enum class Limit { kServer, kClient };

//! The open connections: which of them wait for a request (idle), since when, and how many
//! each client address holds; picks the idle connection that makes room for a new one.
//! Not thread-safe: Shared::mu guards it.
class Connections {
 public:
  struct Admission {
    bool admitted = false;
    std::optional<Limit> limit;   //!< the limit the new connection reached, if any
    std::weak_ptr<Session> shed;  //!< the idle connection to close for it
  };

  Connections(const ServerOptions& o, ConnectionStats& stats) : options_(o), stats_(stats) {}

  //! Registers a new connection (idle until its first byte), closing another if at a limit.
  Admission Admit(const std::shared_ptr<Session>& session, const net::ip::address& client);
  //! The session waits for its next request; returns how long it may, decided as it went
  //! idle (a new connection: as it was admitted).
  std::chrono::milliseconds GoIdle(const Session* session);
  //! The session reads a request; false if it was shed meanwhile (it must close).
  bool GoBusy(const Session* session);
  void Remove(const Session* session);
  std::vector<std::shared_ptr<Session>> All() const;

 private:
  struct Entry {
    std::weak_ptr<Session> session;
    net::ip::address client;
    uint64_t idle_since = 0;  //!< position in idle_; 0: reading or answering a request
    std::chrono::milliseconds idle_timeout{0};
    bool shed = false;  //!< closing to make room; no longer counted
  };
  struct Client {
    size_t open = 0;
    std::set<uint64_t> idle;  //!< positions in idle_
  };

  bool ClientLimited(const net::ip::address& client) const {
    return options_.max_connections_per_client > 0 && (options_.per_client_limit_on_loopback || !client.is_loopback());
  }
  std::chrono::milliseconds IdleTimeout() const {
    const bool pressure = static_cast<double>(counted_) > options_.pressure_fraction * options_.max_connections;
    return pressure ? std::min(options_.idle_timeout, options_.idle_timeout_under_pressure) : options_.idle_timeout;
  }
  void Publish() {
    stats_.open = static_cast<int64_t>(counted_);
    stats_.idle = static_cast<int64_t>(idle_.size());
  }
  //! Stops counting the idle connection at `idle_since` and returns it, to be closed.
  std::weak_ptr<Session> Shed(uint64_t idle_since);
  void Uncount(const Entry& e);

  const ServerOptions& options_;
  ConnectionStats& stats_;
  std::unordered_map<const Session*, Entry> open_;
  std::map<uint64_t, const Session*> idle_;  //!< oldest idle first
  std::map<net::ip::address, Client> clients_;
  size_t counted_ = 0;  //!< open_ without the shed ones still closing
  uint64_t next_idle_ = 0;
};

Connections::Admission Connections::Admit(const std::shared_ptr<Session>& session, const net::ip::address& client) {
  Admission a;
  auto c = clients_.find(client);
  if (ClientLimited(client) && c != clients_.end() && c->second.open >= options_.max_connections_per_client) {
    a.limit = Limit::kClient;
    if (c->second.idle.empty()) return a;
    a.shed = Shed(*c->second.idle.begin());  // its own, never another client's
  } else if (counted_ >= options_.max_connections) {
    a.limit = Limit::kServer;
    if (idle_.empty()) return a;
    a.shed = Shed(idle_.begin()->first);
  }
  const uint64_t since = ++next_idle_;
  ++counted_;
  open_.emplace(session.get(), Entry{session, client, since, IdleTimeout()});
  idle_.emplace(since, session.get());
  Client& mine = clients_[client];
  ++mine.open;
  mine.idle.insert(since);
  Publish();
  a.admitted = true;
  return a;
}

std::weak_ptr<Session> Connections::Shed(uint64_t idle_since) {
  Entry& e = open_.at(idle_.at(idle_since));
  Uncount(e);
  e.shed = true;
  return e.session;
}

void Connections::Uncount(const Entry& e) {
  if (e.shed) return;
  auto c = clients_.find(e.client);
  if (e.idle_since != 0) {
    idle_.erase(e.idle_since);
    c->second.idle.erase(e.idle_since);
  }
  if (--c->second.open == 0) clients_.erase(c);
  --counted_;
  Publish();
}

std::chrono::milliseconds Connections::GoIdle(const Session* session) {
  auto it = open_.find(session);
  if (it == open_.end() || it->second.shed) return options_.idle_timeout;  // closing anyway
  Entry& e = it->second;
  if (e.idle_since == 0) {
    e.idle_since = ++next_idle_;
    e.idle_timeout = IdleTimeout();
    idle_.emplace(e.idle_since, session);
    clients_.at(e.client).idle.insert(e.idle_since);
    Publish();
  }
  return e.idle_timeout;
}

bool Connections::GoBusy(const Session* session) {
  auto it = open_.find(session);
  if (it == open_.end() || it->second.shed) return false;
  Entry& e = it->second;
  if (e.idle_since != 0) {
    idle_.erase(e.idle_since);
    clients_.at(e.client).idle.erase(e.idle_since);
    e.idle_since = 0;
    Publish();
  }
  return true;
}

void Connections::Remove(const Session* session) {
  auto it = open_.find(session);
  if (it == open_.end()) return;
  Uncount(it->second);
  open_.erase(it);
}

std::vector<std::shared_ptr<Session>> Connections::All() const {
  std::vector<std::shared_ptr<Session>> all;
  for (const auto& [key, e] : open_) {
    if (auto s = e.session.lock()) all.push_back(std::move(s));
  }
  return all;
}

//! What the sessions share: the routes, the limits, and the open connections.
struct Shared {
  Shared(Api& a, const ServerOptions& o) : api(a), options(o), connections(o, a.connection_stats()) {}
  Api& api;
  const ServerOptions& options;
  std::mutex mu;
  bool stopping = false;    //!< guarded by mu
  Connections connections;  //!< guarded by mu
  HangupWatch hangups;      //!< the connections of requests that may run long, while they run
};

// One connection. shared_ptr: the pending asynchronous operation's handler owns the session;
// every handler runs on the session's strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}
  ~Session() {
    std::lock_guard lock(shared_.mu);
    shared_.connections.Remove(this);
  }

  void Start() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::WaitForRequest, shared_from_this()));
  }
  //! Before Start, on the accepting strand: the socket, to refuse the connection.
  tcp::socket& socket() { return stream_.socket(); }
  //! Any thread: closes the connection on the session's strand.
  void Close() {
    net::post(stream_.get_executor(), [self = shared_from_this()] { self->DoClose(); });
  }

 private:
  //! Idle until the first byte of the next request (keep-alive), then the read timeout applies.
  void WaitForRequest() {
    if (buffer_.size() > 0) return ReadRequest();
    if (!stream_.socket().is_open()) return;  // shed or stopped before it started
    std::chrono::milliseconds timeout;
    {
      std::lock_guard lock(shared_.mu);
      timeout = shared_.connections.GoIdle(this);
    }
    stream_.expires_after(timeout);
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
  }

  void OnFirstBytes(beast::error_code ec, size_t n) {
    if (ec) return DoClose();
    {
      // Shed between the bytes' arrival and now: the request was not read, so the client
      // sees a keep-alive connection that closed before its request, which it may retry.
      std::lock_guard lock(shared_.mu);
      if (!shared_.connections.GoBusy(this)) return DoClose();
    }
    buffer_.commit(n);
    ReadRequest();
  }

  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(shared_.options.header_limit));
    parser_->body_limit(shared_.options.body_limit);
    stream_.expires_after(shared_.options.read_timeout);
    bhttp::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == beast::error::timeout) return DoClose();  // a slow client: the stream is closed already
    if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message) return DoClose();
    const auto& limits = shared_.options;
    if (ec == bhttp::error::header_limit) {
      return ReplyError(431, "request header larger than " + std::to_string(limits.header_limit) + " bytes");
    }
    if (ec == bhttp::error::body_limit) {
      return ReplyError(413, "request body larger than " + std::to_string(limits.body_limit) + " bytes");
    }
    if (ec == bhttp::error::bad_version) {
      if (auto version = UnsupportedVersion(buffer_)) {
        return ReplyError(505, "HTTP/" + *version + " is not supported; use HTTP/1.1 or HTTP/1.0");
      }
    }
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category()) {
      return ReplyError(400, "malformed HTTP request: " + ec.message());
    }
    if (ec) return DoClose();
    const auto& req = parser_->get();
    const auto length = parser_->content_length();
    ApiRequest request{View(req.method_string()), View(req.target()),
                       !req.body().empty() || parser_->chunked() || (length && *length > 0),
                       View(req[bhttp::field::accept]), View(req[bhttp::field::content_type]), req.body()};
    std::atomic<bool> client_gone{false};
    std::optional<HangupWatch::Registration> watching;
    if (MayRunLong(request)) {
      request.cancelled = &client_gone;
      watching.emplace(shared_.hangups, stream_.socket().native_handle(), &client_gone);
    }
    ApiResponse response = shared_.api.Handle(request);
    watching.reset();
    if (client_gone.load()) return DoClose();  // nobody to answer
    const bool close = !req.keep_alive() || response.close;
    Reply(std::move(response), req.version(), close, req.method() == bhttp::verb::head);
  }

  //! A request that did not parse: answer and close, since the stream position is lost.
  void ReplyError(int status, const std::string& message) {
    Reply(shared_.api.Error(status, message), kHttp11, /*close=*/true);
  }

  //! `head`: the headers a GET gets (Content-Length included), without the body (RFC 9110 9.3.2).
  void Reply(ApiResponse r, unsigned version, bool close, bool head = false) {
    response_ = {};
    response_.result(static_cast<unsigned>(r.status));
    response_.version(version);
    response_.set(bhttp::field::server, "webindex");
    response_.set(bhttp::field::content_type, r.content_type);
    response_.set(bhttp::field::cache_control, r.cache_control);
    if (!r.allow.empty()) response_.set(bhttp::field::allow, r.allow);
    response_.keep_alive(!close);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
    if (head) response_.body().clear();  // Content-Length stays the GET's
    stream_.expires_after(shared_.options.read_timeout);
    bhttp::async_write(stream_, response_,
                       [self = shared_from_this(), close](beast::error_code ec, size_t) { self->OnWrite(ec, close); });
  }

  void OnWrite(beast::error_code ec, bool close) {
    if (ec) return DoClose();
    if (close) return Linger();
    WaitForRequest();
  }

  //! After an error reply: stop sending, and read what the client still sends (up to a limit)
  //! so that closing does not reset the connection before the client has read the reply.
  void Linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return DoClose();
    stream_.expires_after(kLinger);
    ReadAndDiscard();
  }

  void ReadAndDiscard() {
    stream_.async_read_some(net::buffer(discard_), [self = shared_from_this()](beast::error_code ec, size_t n) {
      self->lingered_ += n;
      if (ec || self->lingered_ > kMaxLingerBytes) return self->DoClose();
      self->ReadAndDiscard();
    });
  }

  void DoClose() {
    if (!stream_.socket().is_open()) return;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  Shared& shared_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> response_;
  std::array<char, 4096> discard_;
  size_t lingered_ = 0;
};

}  // namespace

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress out{"127.0.0.1", 0};
  std::string_view port = text;
  if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
    std::string host = text.substr(0, colon);
    port = std::string_view(text).substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (!host.empty()) out.host = host == "localhost" ? "127.0.0.1" : host;
  }
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size()) {
    return Status::InvalidArgument("listen address '" + text + "' is not [host:]port");
  }
  beast::error_code bad;
  net::ip::make_address(out.host, bad);
  if (bad) return Status::InvalidArgument("listen address '" + text + "': host must be an IP address or localhost");
  return out;
}

struct Server::Impl {
  Impl(state::Store& store, ServerOptions opts, Api::MetricsSource metrics, Api::StatusSource status)
      : options(std::move(opts)),
        api(store, std::move(metrics), std::move(status), options.sparql),
        shared(api, options) {}

  Status Listen();
  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  //! Registers a new session, closing an idle one at a limit. Not admitted: refused at
  //! `limit`, or stopping (no limit).
  Connections::Admission Admit(const std::shared_ptr<Session>& session, const net::ip::address& client);
  //! At most one warning per kWarnEvery about connections shed or refused (acceptor strand).
  void WarnAtLimit(Limit limit, bool refused);

  ServerOptions options;
  Api api;
  Shared shared;
  bool started = false, stopped = false;
  uint16_t port = 0;
  std::vector<std::thread> threads;
  // Since the last warning; acceptor strand only.
  std::chrono::steady_clock::time_point last_warning{};
  uint64_t shed_since_warning = 0, refused_since_warning = 0;
  // Declared last, destroyed first: handlers still queued release their sessions while
  // `shared` is alive.
  net::io_context ioc;
  tcp::acceptor acceptor{net::make_strand(ioc)};
  net::steady_timer retry{acceptor.get_executor()};
};

Status Server::Impl::Listen() {
  ASSIGN_OR_RETURN(ListenAddress addr, ParseListenAddress(options.listen));
  beast::error_code ec;
  const tcp::endpoint endpoint(net::ip::make_address(addr.host, ec), addr.port);
  auto fail = [&](const char* what) {
    return Status::IoError(std::string(what) + " " + options.listen + ": " + ec.message());
  };
  if (acceptor.open(endpoint.protocol(), ec); ec) return fail("cannot open a socket for");
  if (acceptor.set_option(net::socket_base::reuse_address(true), ec); ec) return fail("cannot set options on");
  if (acceptor.bind(endpoint, ec); ec) return fail("cannot bind");
  if (acceptor.listen(net::socket_base::max_listen_connections, ec); ec) return fail("cannot listen on");
  port = acceptor.local_endpoint(ec).port();
  return Status::Ok();
}

void Server::Impl::Accept() {
  acceptor.async_accept(net::make_strand(ioc), beast::bind_front_handler(&Impl::OnAccept, this));
}

//! The client address a limit counts: IPv4 clients of a dual-stack socket as IPv4.
net::ip::address ClientAddress(const tcp::socket& socket) {
  beast::error_code ec;
  net::ip::address a = socket.remote_endpoint(ec).address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
  return a;
}

//! Turns a new connection away at once: a 503 (server limit) or 429 (client limit) written
//! without waiting (it fits the empty send buffer), then closed. Reads what the client sent
//! already, so that closing does not reset the connection before it reads the reply.
void Refuse(tcp::socket& socket, Limit limit, Api& api) {
  const bool server = limit == Limit::kServer;
  const ApiResponse r = api.Error(server ? 503 : 429, server ? "too many connections, retry later"
                                                             : "too many connections from this client, retry later");
  const std::string reply = fmt::format(
      "HTTP/1.1 {} {}\r\nServer: webindex\r\nContent-Type: {}\r\nCache-Control: no-store\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
      r.status, server ? "Service Unavailable" : "Too Many Requests", r.content_type, r.body.size(), r.body);
  beast::error_code ec;
  socket.non_blocking(true, ec);
  std::array<char, 4096> sink;
  for (size_t drained = 0; !ec && drained < kRefuseDrainBytes;) drained += socket.read_some(net::buffer(sink), ec);
  ec = {};
  net::write(socket, net::buffer(reply), ec);  // would_block leaves a truncated reply; best effort
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

Connections::Admission Server::Impl::Admit(const std::shared_ptr<Session>& session, const net::ip::address& client) {
  Connections::Admission a;
  {
    std::lock_guard lock(shared.mu);
    if (shared.stopping) return a;
    a = shared.connections.Admit(session, client);
  }
  if (a.limit) {
    auto& stats = api.connection_stats();
    const bool server = *a.limit == Limit::kServer;
    ++(a.admitted ? (server ? stats.shed_server : stats.shed_client)
                  : (server ? stats.refused_server : stats.refused_client));
    WarnAtLimit(*a.limit, !a.admitted);
  }
  if (auto shed = a.shed.lock()) shed->Close();
  return a;
}

void Server::Impl::WarnAtLimit(Limit limit, bool refused) {
  ++(refused ? refused_since_warning : shed_since_warning);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_warning < kWarnEvery) return;
  LOG_WARN(
      "http: at the {} connection limit (max_connections {}, max_connections_per_client {}): {} idle "
      "connections closed for new ones, {} new ones refused since the last warning",
      limit == Limit::kServer ? "server" : "per-client", options.max_connections, options.max_connections_per_client,
      shed_since_warning, refused_since_warning);
  last_warning = now;
  shed_since_warning = refused_since_warning = 0;
}

void Server::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (!acceptor.is_open() || ec == net::error::operation_aborted) return;
  if (ec) {
    // Out of descriptors and the like: wait a little instead of spinning.
    LOG_WARN("http: accept failed: {}", ec.message());
    retry.expires_after(std::chrono::milliseconds(100));
    retry.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec && acceptor.is_open()) Accept();
    });
    return;
  }
  beast::error_code opt_ec;
  socket.set_option(tcp::no_delay(true), opt_ec);  // small responses: no Nagle delay; best effort
  const net::ip::address client = ClientAddress(socket);
  auto session = std::make_shared<Session>(std::move(socket), shared);
  if (const auto a = Admit(session, client); a.admitted) {
    session->Start();
  } else if (a.limit) {
    Refuse(session->socket(), *a.limit, api);
  }  // else stopping: it closes as it goes
  Accept();
}

Server::Server(state::Store& store, ServerOptions options, Api::MetricsSource metrics, Api::StatusSource status)
    : impl_(std::make_unique<Impl>(store, std::move(options), std::move(metrics), std::move(status))) {}

Server::~Server() { Stop(); }

Status Server::Start() {
  if (impl_->stopped) return Status::Aborted("the HTTP server was stopped");
  if (impl_->started) return Status::Ok();
  const ServerOptions& o = impl_->options;
  if (o.threads < 1) return Status::InvalidArgument("http threads must be >= 1");
  if (o.max_connections < 1) return Status::InvalidArgument("http max_connections must be >= 1");
  if (!(o.pressure_fraction > 0 && o.pressure_fraction <= 1)) {
    return Status::InvalidArgument("http pressure_fraction must be in (0, 1]");
  }
  RETURN_IF_ERROR(impl_->Listen());
  impl_->started = true;
  impl_->Accept();
  for (int i = 0; i < impl_->options.threads; ++i) {
    impl_->threads.emplace_back([impl = impl_.get()] {
      for (;;) {
        try {
          impl->ioc.run();
          return;
        } catch (const std::exception& e) {
          LOG_ERROR("http: handler failed: {}", e.what());
        }
      }
    });
  }
  LOG_INFO("http: serving the query API on {} (port {})", impl_->options.listen, impl_->port);
  return Status::Ok();
}

void Server::Stop() {
  if (!impl_->started || impl_->stopped) {
    impl_->stopped = true;
    return;
  }
  impl_->stopped = true;
  std::vector<std::shared_ptr<Session>> open;
  {
    std::lock_guard lock(impl_->shared.mu);
    impl_->shared.stopping = true;
    open = impl_->shared.connections.All();
  }
  net::post(impl_->acceptor.get_executor(), [impl = impl_.get()] {
    beast::error_code ec;
    impl->acceptor.close(ec);
    impl->retry.cancel();
  });
  for (auto& s : open) s->Close();
  open.clear();
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
  LOG_INFO("http: stopped");
}

uint16_t Server::port() const { return impl_->port; }

Api& Server::api() { return impl_->api; }

}  // namespace webindex::http
