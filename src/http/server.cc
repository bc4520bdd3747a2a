#include "http/server.h"

#include <array>
#include <charconv>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast.hpp>

#include "common/log.h"

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

class Session;

std::string_view View(beast::string_view s) { return {s.data(), s.size()}; }

//! What the sessions share: the routes, the limits, and the open sessions Stop() closes.
struct Shared {
  Shared(Api& a, const ServerOptions& o) : api(a), options(o) {}
  Api& api;
  const ServerOptions& options;
  std::mutex mu;
  bool stopping = false;
  std::unordered_map<const Session*, std::weak_ptr<Session>> open;
};

// One connection. shared_ptr: the pending asynchronous operation's handler owns the session;
// every handler runs on the session's strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Shared& shared) : stream_(std::move(socket)), shared_(shared) {}
  ~Session() {
    std::lock_guard lock(shared_.mu);
    shared_.open.erase(this);
  }

  void Start() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::WaitForRequest, shared_from_this()));
  }
  //! Any thread: closes the connection on the session's strand.
  void Close() {
    net::post(stream_.get_executor(), [self = shared_from_this()] { self->DoClose(); });
  }

 private:
  //! Idle until the first byte of the next request (keep-alive), then the read timeout applies.
  void WaitForRequest() {
    if (buffer_.size() > 0) return ReadRequest();
    stream_.expires_after(shared_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
  }

  void OnFirstBytes(beast::error_code ec, size_t n) {
    if (ec) return DoClose();
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
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category()) {
      return ReplyError(400, "malformed HTTP request: " + ec.message());
    }
    if (ec) return DoClose();
    const auto& req = parser_->get();
    const auto length = parser_->content_length();
    ApiRequest request{View(req.method_string()), View(req.target()),
                       !req.body().empty() || parser_->chunked() || (length && *length > 0)};
    Reply(shared_.api.Handle(request), req.version(), !req.keep_alive());
  }

  //! A request that did not parse: answer and close, since the stream position is lost.
  void ReplyError(int status, const std::string& message) {
    Reply(shared_.api.Error(status, message), kHttp11, /*close=*/true);
  }

  void Reply(ApiResponse r, unsigned version, bool close) {
    response_ = {};
    response_.result(static_cast<unsigned>(r.status));
    response_.version(version);
    response_.set(bhttp::field::server, "webindex");
    response_.set(bhttp::field::content_type, r.content_type);
    response_.set(bhttp::field::cache_control, r.cache_control);
    if (r.allow_get) response_.set(bhttp::field::allow, "GET");
    response_.keep_alive(!close);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
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
  Impl(state::Store& store, ServerOptions opts, Api::MetricsSource metrics)
      : options(std::move(opts)), api(store, std::move(metrics)), shared(api, options) {}

  Status Listen();
  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  //! Registers a new session unless stopping or at the connection limit.
  bool Admit(const std::shared_ptr<Session>& session);

  ServerOptions options;
  Api api;
  Shared shared;
  bool started = false, stopped = false;
  uint16_t port = 0;
  std::vector<std::thread> threads;
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

bool Server::Impl::Admit(const std::shared_ptr<Session>& session) {
  std::lock_guard lock(shared.mu);
  if (shared.stopping || shared.open.size() >= options.max_connections) return false;
  shared.open.emplace(session.get(), session);
  return true;
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
  auto session = std::make_shared<Session>(std::move(socket), shared);
  if (Admit(session)) session->Start();  // otherwise it closes as it goes
  Accept();
}

Server::Server(state::Store& store, ServerOptions options, Api::MetricsSource metrics)
    : impl_(std::make_unique<Impl>(store, std::move(options), std::move(metrics))) {}

Server::~Server() { Stop(); }

Status Server::Start() {
  if (impl_->stopped) return Status::Aborted("the HTTP server was stopped");
  if (impl_->started) return Status::Ok();
  if (impl_->options.threads < 1) return Status::InvalidArgument("http threads must be >= 1");
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
    for (auto& [key, weak] : impl_->shared.open) {
      if (auto s = weak.lock()) open.push_back(std::move(s));
    }
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
