#include "http/http_client.h"

#include <simdjson.h>

#include <optional>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast.hpp>

namespace webindex::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

}  // namespace

//! Beast's stream timeouts bound only asynchronous operations, so each request runs them on
//! this connection's own io_context until they complete or the deadline closes the stream.
class HttpClient::Connection {
 public:
  Connection(const std::string& address, std::chrono::milliseconds timeout) : address_(address), timeout_(timeout) {}

  //! `form`: a POST with this form body, else a GET.
  Result<Response> Fetch(const std::string& target, const std::optional<std::string>& form, uint64_t max_body) {
    const bool reused = stream_.has_value();
    bool timed_out = false;
    auto response = Exchange(target, form, max_body, &timed_out);
    if (!response.ok() && reused && !timed_out) response = Exchange(target, form, max_body, &timed_out);
    return response;
  }

 private:
  //! Runs the operations started on ioc_ to completion (the stream's deadline ends them).
  void Run() {
    ioc_.restart();
    ioc_.run();
  }

  void Close() {
    if (stream_) {
      beast::error_code ignored;
      stream_->socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream_->close();
      stream_.reset();
    }
  }

  Status Connect(Clock::time_point deadline, bool* timed_out) {
    if (!endpoints_) {
      const size_t colon = address_.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == address_.size()) {
        return Status::Unavailable("the address is not host:port");
      }
      host_ = address_.substr(0, colon);
      if (host_.size() >= 2 && host_.front() == '[' && host_.back() == ']') host_ = host_.substr(1, host_.size() - 2);
      const std::string port = address_.substr(colon + 1);
      tcp::resolver resolver(ioc_);
      beast::error_code ec;
      bool done = false;
      tcp::resolver::results_type results;
      resolver.async_resolve(host_, port, [&](beast::error_code e, tcp::resolver::results_type r) {
        ec = e;
        results = std::move(r);
        done = true;
      });
      ioc_.restart();
      ioc_.run_until(deadline);
      if (!done) {
        resolver.cancel();
        Run();
        *timed_out = true;
        return Status::Unavailable("cannot resolve the host within " + std::to_string(timeout_.count()) + " ms");
      }
      if (ec) return Status::Unavailable("cannot resolve the host: " + ec.message());
      endpoints_ = std::move(results);
    }
    stream_.emplace(ioc_);
    stream_->expires_at(deadline);
    beast::error_code ec;
    stream_->async_connect(*endpoints_, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    Run();
    if (ec) {
      stream_.reset();
      *timed_out = ec == beast::error::timeout;
      return Status::Unavailable(*timed_out ? "no connection within " + std::to_string(timeout_.count()) + " ms"
                                            : "cannot connect: " + ec.message());
    }
    return Status::Ok();
  }

  Result<Response> Exchange(const std::string& target, const std::optional<std::string>& form, uint64_t max_body,
                            bool* timed_out) {
    const Clock::time_point deadline = Clock::now() + timeout_;
    if (!stream_) RETURN_IF_ERROR(Connect(deadline, timed_out));
    stream_->expires_at(deadline);
    bhttp::request<bhttp::string_body> request{form ? bhttp::verb::post : bhttp::verb::get, target, 11};
    request.set(bhttp::field::host, host_);
    if (form) {
      request.set(bhttp::field::content_type, "application/x-www-form-urlencoded");
      request.body() = *form;
    }
    request.prepare_payload();
    request.keep_alive(true);
    beast::error_code ec;
    bhttp::async_write(*stream_, request, [&](beast::error_code e, size_t) { ec = e; });
    Run();
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(max_body);
    if (!ec) {
      bhttp::async_read(*stream_, buffer_, parser, [&](beast::error_code e, size_t) { ec = e; });
      Run();
    }
    if (ec) {
      Close();
      buffer_.clear();
      *timed_out = ec == beast::error::timeout;
      return Status::Unavailable(*timed_out ? "no answer within " + std::to_string(timeout_.count()) + " ms"
                                            : "the request failed: " + ec.message());
    }
    bhttp::response<bhttp::string_body> response = parser.release();
    if (!response.keep_alive()) Close();
    return Response{static_cast<int>(response.result_int()), std::move(response.body())};
  }

  const std::string& address_;
  const std::chrono::milliseconds timeout_;
  net::io_context ioc_{1};
  std::optional<tcp::resolver::results_type> endpoints_;
  std::string host_;
  std::optional<beast::tcp_stream> stream_;
  beast::flat_buffer buffer_;
};

HttpClient::HttpClient(std::string address, std::chrono::milliseconds timeout)
    : address_(std::move(address)), timeout_(timeout) {}

HttpClient::~HttpClient() = default;

Result<HttpClient::Response> HttpClient::Get(const std::string& target, uint64_t max_body) {
  if (!connection_) connection_ = std::make_unique<Connection>(address_, timeout_);
  return connection_->Fetch(target, std::nullopt, max_body);
}

Result<HttpClient::Response> HttpClient::PostForm(const std::string& target, const std::string& form,
                                                  uint64_t max_body) {
  if (!connection_) connection_ = std::make_unique<Connection>(address_, timeout_);
  return connection_->Fetch(target, form, max_body);
}

std::string ErrorMessageOf(const std::string& body) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(body);
  simdjson::ondemand::document doc;
  std::string_view message;
  if (!parser.iterate(padded).get(doc) && !doc.find_field("error").get_string().get(message)) {
    return std::string(message);
  }
  return body.substr(0, 200);
}

}  // namespace webindex::http
