#include "examples/serve/server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dcplan::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

absl::string_view View(beast::string_view s) { return absl::string_view(s.data(), s.size()); }

// After an answer that ends the connection, what the client may still send is read and dropped
// for at most this long and this much, so the answer reaches it rather than a connection reset.
constexpr std::chrono::milliseconds kLingerTime{1000};
constexpr std::size_t kLingerBytes = std::size_t{4} << 20;

// One client connection: read a request, answer it, and again while the client keeps it alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, const Api& api, const ServerOptions& options)
      : stream_(std::move(socket)), api_(api), options_(options) {}

  void Start() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::ReadHeader, shared_from_this()));
  }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    stream_.expires_after(options_.timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec);
    // Refused by its declared length, before a byte of the body is read.
    if (const auto length = parser_->content_length();
        length && *length > options_.max_body_bytes) {
      return Reply(TooLarge(), /*close=*/true);
    }
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      continue_.emplace(http::status::continue_, parser_->get().version());
      http::async_write(stream_, *continue_,
                        [self = shared_from_this()](beast::error_code ec, std::size_t) {
                          if (!ec) self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    if (parser_->is_done()) return Answer();
    stream_.expires_after(options_.timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnBody, shared_from_this()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec);
    Answer();
  }

  ApiResponse TooLarge() const {
    return ErrorResponse(413,
                         absl::StrCat("the request body is larger than this server's limit of ",
                                      options_.max_body_bytes, " bytes"));
  }

  void OnReadError(beast::error_code ec) {
    // The client closed between requests, went away, or stalled (tcp_stream closed the socket on
    // the timeout): nothing to answer, the session ends and the socket with it.
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec.category() != beast::error_code(http::error::end_of_stream).category()) {
      return;
    }
    if (ec == http::error::body_limit) return Reply(TooLarge(), true);
    if (ec == http::error::header_limit) {
      return Reply(ErrorResponse(431, absl::StrCat("the request header is larger than ",
                                                   options_.max_header_bytes, " bytes")),
                   true);
    }
    // Malformed HTTP.
    Reply(ErrorResponse(400, absl::StrCat("malformed HTTP request: ", ec.message())), true);
  }

  void Answer() {
    const http::request<http::string_body>& req = parser_->get();
    ApiRequest request;
    request.method = View(req.method_string());
    request.target = View(req.target());
    request.content_type = View(req[http::field::content_type]);
    request.accept = View(req[http::field::accept]);
    request.body = req.body();
    head_ = req.method() == http::verb::head;
    Reply(api_.Handle(request), !req.keep_alive());
  }

  void Reply(ApiResponse answer, bool close) {
    res_ = {};
    res_.version(11);
    res_.result(static_cast<unsigned>(answer.status));
    res_.set(http::field::server, "dcplan");
    res_.set(http::field::content_type, answer.content_type);
    res_.set(http::field::cache_control, "no-store");
    res_.set("X-Content-Type-Options", "nosniff");
    if (!answer.allow.empty()) res_.set(http::field::allow, answer.allow);
    res_.body() = std::move(answer.body);
    res_.keep_alive(!close);
    res_.prepare_payload();
    if (head_) res_.body().clear();  // HEAD: the headers (Content-Length included) alone
    head_ = false;
    close_ = close;
    stream_.expires_after(options_.timeout);
    http::async_write(stream_, res_,
                      beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, std::size_t) {
    if (ec) return;  // the client went away mid-answer: its connection alone ends
    if (close_) return Linger();
    ReadHeader();
  }

  void Linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    drain_.resize(64 << 10);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(net::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (!ec && self->drained_ < kLingerBytes) self->Drain();
                            });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  http::response<http::string_body> res_;
  std::vector<char> drain_;
  std::size_t drained_ = 0;
  bool head_ = false;
  bool close_ = false;
  const Api& api_;
  const ServerOptions& options_;
};

}  // namespace

struct Server::Impl {
  Impl(const ServerOptions& o, const Api* a)
      : options(o), api(a), ioc(std::max(1, o.threads)), acceptor(ioc), retry(ioc) {}

  void Accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      if (ec) {
        // Out of file descriptors or the like: try again shortly rather than spin.
        retry.expires_after(std::chrono::milliseconds(50));
        retry.async_wait([this](beast::error_code) {
          if (acceptor.is_open()) Accept();
        });
        return;
      }
      std::make_shared<Session>(std::move(socket), *api, options)->Start();
      Accept();
    });
  }

  ServerOptions options;
  const Api* api;
  net::io_context ioc;
  tcp::acceptor acceptor;
  net::steady_timer retry;
  std::optional<net::signal_set> signals;
  uint16_t port = 0;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options,
                                                      const Api* api) {
  auto impl = std::make_unique<Impl>(options, api);
  beast::error_code ec;
  const net::ip::address address = net::ip::make_address(options.address, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat("--address: \"", options.address.substr(0, 80),
                                                   "\" is not an IP address (e.g. 127.0.0.1)"));
  }
  const tcp::endpoint endpoint(address, options.port);
  const std::string where = absl::StrCat(options.address, ":", options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", where, ": ", ec.message()));
  }
  impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", where, ": ", ec.message()));
  }
  impl->port = impl->acceptor.local_endpoint().port();
  impl->Accept();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

uint16_t Server::port() const { return impl_->port; }

std::string Server::url() const {
  const std::string& a = impl_->options.address;
  const bool v6 = a.find(':') != std::string::npos;
  return absl::StrCat("http://", v6 ? "[" : "", a, v6 ? "]" : "", ":", impl_->port, "/");
}

void Server::Run() {
  int threads = impl_->options.threads;
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> extra;
  for (int i = 1; i < threads; ++i) {
    try {
      extra.emplace_back([this] { impl_->ioc.run(); });
    } catch (const std::system_error&) {
      break;  // serve on the threads that did start
    }
  }
  impl_->ioc.run();
  for (std::thread& t : extra) t.join();
}

void Server::Stop() {
  net::post(impl_->ioc, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->retry.cancel();
  });
  impl_->ioc.stop();
}

void Server::StopOnSignals() {
  impl_->signals.emplace(impl_->ioc, SIGINT, SIGTERM);
  impl_->signals->async_wait([this](beast::error_code ec, int) {
    if (!ec) Stop();
  });
}

}  // namespace dcplan::serve
