#include "examples/serve/server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

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
// An answer is written in pieces of at most this much, each within ServerOptions::timeout.
constexpr std::size_t kWritePiece = std::size_t{64} << 10;

// The heavy requests' own threads, with a bounded queue.
class HeavyPool {
 public:
  HeavyPool(int threads, int max_queued) : max_queued_(max_queued) {
    for (int i = 0; i < threads; ++i) {
      try {
        threads_.emplace_back([this] { Loop(); });
      } catch (const std::system_error&) {
        break;  // run on the threads that did start
      }
    }
  }
  ~HeavyPool() { Stop(); }

  // Queues `job`; false when the queue is full (or no thread could start, or stopped).
  bool TrySubmit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ || threads_.empty() || static_cast<int>(queue_.size()) >= max_queued_) {
      return false;
    }
    queue_.push_back(std::move(job));
    cv_.notify_one();
    return true;
  }

  // Runs what is queued (its jobs see the server's cancellation and end soon), then joins.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopped_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  const int max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopped_ = false;
  std::vector<std::thread> threads_;
};

class Session;

// What every session shares: the options, the Api, the global limits and the live sessions.
struct Shared {
  Shared(const ServerOptions& o, const Api& a, int heavy_threads)
      : options(o), api(a), heavy(heavy_threads, o.max_queued_heavy) {}

  const ServerOptions options;
  const Api& api;
  HeavyPool heavy;
  std::atomic<int> connections{0};
  std::atomic<std::size_t> buffered{0};
  std::atomic<bool> draining{false};
  std::atomic<bool> cancelled{false};
  std::mutex sessions_mu;
  std::map<uint64_t, std::weak_ptr<Session>> sessions;
  uint64_t next_id = 0;

  // Reserves `bytes` of the request-byte budget; false when it would pass the limit.
  bool Reserve(std::size_t bytes) {
    std::size_t now = buffered.load();
    do {
      if (bytes > options.max_buffered_bytes || now > options.max_buffered_bytes - bytes) {
        return false;
      }
    } while (!buffered.compare_exchange_weak(now, now + bytes));
    return true;
  }
  void Release(std::size_t bytes) { buffered.fetch_sub(bytes); }

  std::vector<std::shared_ptr<Session>> Live() {
    std::lock_guard<std::mutex> lock(sessions_mu);
    std::vector<std::shared_ptr<Session>> live;
    for (auto& [id, weak] : sessions) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
    return live;
  }
};

// The host part of a Host header, lower case, without the port: "127.0.0.1:8080" -> "127.0.0.1",
// "[::1]:8080" -> "::1", "Example.COM" -> "example.com"; "" when what follows the name is not a
// port (":8080@evil.example") or a bracket is not closed.
std::string HostName(absl::string_view host) {
  host = absl::StripAsciiWhitespace(host);
  absl::string_view name, rest;
  if (absl::StartsWith(host, "[")) {
    const std::size_t close = host.find(']');
    if (close == absl::string_view::npos) return "";
    name = host.substr(1, close - 1);
    rest = host.substr(close + 1);
  } else {
    const std::size_t colon = host.find(':');
    name = host.substr(0, colon);
    rest = colon == absl::string_view::npos ? "" : host.substr(colon);
  }
  if (!rest.empty()) {
    if (!absl::ConsumePrefix(&rest, ":") || rest.size() > 5 ||
        !std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return "";
    }
  }
  std::string lower(name);
  absl::AsciiStrToLower(&lower);
  return lower;
}

// The most of a request body one read takes (the connection's buffer is grown to it for a body).
constexpr std::size_t kBodyReadBytes = std::size_t{16} << 10;

// One client connection: read a request, answer it, and again while the client keeps it alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Shared& shared)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        buffer_(shared.options.max_header_bytes + (std::size_t{16} << 10)),
        shared_(shared),
        options_(shared.options) {}

  ~Session() {
    // Destroyed mid-answer (the server stopped): a reset, so the client cannot take what it got
    // for the whole answer.
    if (writing_ && socket_.is_open()) Abort();
    if (reserved_ > 0) shared_.Release(reserved_);
    shared_.connections.fetch_sub(1);
  }

  void Start() {
    beast::error_code ec;
    const tcp::endpoint local = socket_.local_endpoint(ec);
    if (!ec) {
      net::ip::address a = local.address();
      // "::ffff:127.0.0.1" (an IPv4 client of a dual-stack socket) is the IPv4 address.
      if (a.is_v6() && a.to_v6().is_v4_mapped()) {
        a = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
      }
      local_address_ = a.to_string();
    }
    net::dispatch(socket_.get_executor(),
                  beast::bind_front_handler(&Session::ReadHeader, shared_from_this()));
  }

  // Drain(): an idle connection closes now, a busy one after its answer.
  void OnDrain() {
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] {
      self->close_after_ = true;
      if (self->idle_) self->Close();
    });
  }
  // Stop() or the end of the drain: whatever is in progress is aborted.
  void OnAbort() {
    net::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->Abort(); });
  }

 private:
  enum class Phase { kNone, kRead, kWrite, kLinger };

  // One timer per session; a firing meant for an earlier phase is ignored.
  void Arm(Phase phase, std::chrono::milliseconds after) {
    phase_ = phase;
    const uint64_t generation = ++generation_;
    timer_.expires_after(after);
    timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
      if (ec || generation != self->generation_) return;
      self->OnTimer();
    });
  }
  void Disarm() {
    ++generation_;
    phase_ = Phase::kNone;
    timer_.cancel();
  }

  void OnTimer() {
    switch (phase_) {
      case Phase::kRead: {
        // Cancelling the read ends it with operation_aborted; OnReadError then answers 408 (part
        // of a request arrived) or just closes (an idle kept-alive connection).
        // A read between two of its pieces (its handler queued) is not cancelled: try again
        // shortly until it has ended.
        timed_out_ = true;
        beast::error_code ignored;
        socket_.cancel(ignored);
        Arm(Phase::kRead, std::chrono::milliseconds(50));
        break;
      }
      case Phase::kWrite:
        Abort();  // the client took no part of the answer for a whole timeout
        break;
      case Phase::kLinger:
        Close();
        break;
      case Phase::kNone:
        break;
    }
  }

  void ReleaseReservation() {
    if (reserved_ > 0) shared_.Release(reserved_);
    reserved_ = 0;
  }

  void ReadHeader() {
    if (!socket_.is_open()) return;
    ReleaseReservation();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser_->body_limit(options_.max_body_bytes);
    timed_out_ = false;
    idle_ = buffer_.size() == 0;
    if (idle_ && close_after_) return Close();
    Arm(Phase::kRead, options_.timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    idle_ = false;
    if (ec) return OnReadError(ec);
    const auto& req = parser_->get();
    // A coding other than chunked leaves the body's length unknown: answered, then closed.
    if (const auto te = req.find(http::field::transfer_encoding); te != req.end()) {
      std::string coding(absl::StripAsciiWhitespace(View(te->value())));
      absl::AsciiStrToLower(&coding);
      if (coding != "chunked") {
        return Reply(ErrorResponse(501, absl::StrCat("unsupported Transfer-Encoding \"",
                                                     View(te->value()).substr(0, 40),
                                                     "\": only chunked is understood")),
                     /*close=*/true);
      }
    }
    // Refused by its declared length, before a byte of the body is read.
    const auto length = parser_->content_length();
    if (length && *length > options_.max_body_bytes) return Reply(TooLarge(), /*close=*/true);
    // The body's bytes are reserved from the budget all connections share before any is read: a
    // chunked body (no length up front) as the largest one allowed.
    const std::size_t want = length
                                 ? static_cast<std::size_t>(*length)
                                 : (parser_->chunked() ? options_.max_body_bytes : std::size_t{0});
    if (want > 0) {
      if (!shared_.Reserve(want)) {
        return Reply(
            ErrorResponse(503, absl::StrCat("the server holds as many request bytes as it may (",
                                            options_.max_buffered_bytes >> 20,
                                            " MiB across all connections): retry shortly")),
            /*close=*/true);
      }
      reserved_ = want;
    }
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      continue_.emplace(http::status::continue_, req.version());
      Arm(Phase::kWrite, options_.timeout);
      http::async_write(socket_, *continue_,
                        [self = shared_from_this()](beast::error_code ec, std::size_t) {
                          if (!ec) self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    if (parser_->is_done()) return Answer();
    // The parser moves each read's body bytes out of the buffer, so the buffer never grows past
    // its first 512 bytes by itself: a 15 KB plan took ~30 reads (each a system call) where one
    // or two do.
    const std::size_t room = std::min(buffer_.max_size(), kBodyReadBytes);
    if (buffer_.capacity() < room) buffer_.reserve(room);
    // The request's whole time, header included, runs on: the timer armed in ReadHeader stays.
    if (phase_ != Phase::kRead) Arm(Phase::kRead, options_.timeout);
    http::async_read(socket_, buffer_, *parser_,
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
    if (timed_out_) {
      // 408 when part of a request arrived; an idle kept-alive connection just closes.
      if (parser_->got_some() || buffer_.size() > 0) {
        return Reply(ErrorResponse(
                         408, absl::StrCat("the request did not arrive within ",
                                           options_.timeout.count(), " ms; the connection closes")),
                     /*close=*/true);
      }
      return Close();
    }
    // The client closed between requests or went away: nothing to answer.
    if (ec == http::error::end_of_stream ||
        ec.category() != beast::error_code(http::error::end_of_stream).category()) {
      return Close();
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

  // 403 for a request from somewhere it must not come from (see server.h), else nothing.
  std::optional<ApiResponse> CheckOrigin(const http::request<http::string_body>& req) const {
    const absl::string_view host_header = View(req[http::field::host]);
    if (req.count(http::field::host) > 1) {
      return ErrorResponse(400, "the request has more than one Host header");
    }
    if (host_header.empty()) {
      if (req.version() >= 11) {
        return ErrorResponse(400, "an HTTP/1.1 request needs a Host header");
      }
    } else {
      const std::string host = HostName(host_header);
      std::string bound = options_.address;
      absl::AsciiStrToLower(&bound);
      bool allowed =
          !host.empty() && (host == "localhost" || host == local_address_ || host == bound);
      for (const std::string& name : options_.allowed_hosts) {
        allowed = allowed || (!host.empty() && host == HostName(name));
      }
      if (!allowed) {
        return ErrorResponse(
            403, absl::StrCat("Host \"", host_header.substr(0, 80),
                              "\" is not this server's address (a guard against DNS rebinding): "
                              "use http://",
                              local_address_.find(':') != std::string::npos
                                  ? absl::StrCat("[", local_address_, "]")
                                  : local_address_,
                              "/, or start dcplan serve with --allow_host=", host.substr(0, 80)));
      }
    }
    const absl::string_view origin = View(req[http::field::origin]);
    if (!origin.empty()) {
      // The page's own requests come from http://<the Host it was loaded from>.
      bool allowed = !host_header.empty() && origin == absl::StrCat("http://", host_header);
      for (const std::string& o : options_.allowed_origins) {
        allowed = allowed || o == "*" || o == origin;
      }
      if (!allowed) {
        return ErrorResponse(
            403, absl::StrCat("cross-origin request from \"", origin.substr(0, 80),
                              "\" refused: only this server's own page may call the API; start "
                              "dcplan serve with --allow_origin=",
                              origin.substr(0, 80), " to allow it"));
      }
    }
    return std::nullopt;
  }

  void Answer() {
    Disarm();
    const http::request<http::string_body>& req = parser_->get();
    head_ = req.method() == http::verb::head;
    const bool close = !req.keep_alive() || shared_.draining.load();
    if (auto refused = CheckOrigin(req)) return Reply(*std::move(refused), close);
    ApiRequest request;
    request.method = View(req.method_string());
    request.target = View(req.target());
    request.content_type = View(req[http::field::content_type]);
    request.accept = View(req[http::field::accept]);
    request.body = req.body();
    request.cancelled = &shared_.cancelled;
    // Light work (the page, a plan without a workload or uncertain inputs) is answered here on the
    // connection's thread: handing a ~50 us plan to another thread and back cost more than the
    // plan.
    if (std::optional<ApiResponse> light = shared_.api.HandleIfLight(request)) {
      return Reply(*std::move(light), close);
    }
    // Heavy work on its own pool; the answer comes back to this connection's thread. The parser
    // (which `request` points into) stays as it is until then.
    auto self = shared_from_this();
    const bool queued = shared_.heavy.TrySubmit([self, request, close] {
      ApiResponse answer = self->shared_.api.Handle(request);
      net::post(self->socket_.get_executor(), [self, answer = std::move(answer), close]() mutable {
        self->Reply(std::move(answer), close);
      });
    });
    if (!queued) {
      Reply(ErrorResponse(503,
                          "the server is busy with as much heavy work as it queues "
                          "(--heavy_threads): retry shortly, or run the job with the CLI"),
            close);
    }
  }

  void Reply(ApiResponse answer, bool close) {
    if (!socket_.is_open()) return;
    Disarm();
    if (shared_.draining.load()) close = true;
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
    serializer_.emplace(res_);
    serializer_->limit(kWritePiece);
    writing_ = true;
    WriteSome();
  }

  // One piece of the answer, within the timeout: the deadline follows progress, so a slow reader
  // gets the whole answer and a stalled one is cut off (Abort) a timeout after its last progress.
  void WriteSome() {
    Arm(Phase::kWrite, options_.timeout);
    http::async_write_some(socket_, *serializer_,
                           beast::bind_front_handler(&Session::OnWriteSome, shared_from_this()));
  }

  void OnWriteSome(beast::error_code ec, std::size_t) {
    if (ec) return Abort();  // the client went away, or the piece timed out
    if (!serializer_->is_done()) return WriteSome();
    writing_ = false;
    Disarm();
    serializer_.reset();
    ReleaseReservation();
    if (close_ || close_after_) return Linger();
    ReadHeader();
  }

  void Linger() {
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    Arm(Phase::kLinger, kLingerTime);
    drain_.resize(64 << 10);
    Drain();
  }

  void Drain() {
    socket_.async_read_some(net::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (!ec && self->drained_ < kLingerBytes) return self->Drain();
                              self->Close();
                            });
  }

  // Ends the connection politely (after a complete answer, or between requests).
  void Close() {
    Disarm();
    beast::error_code ignored;
    socket_.close(ignored);
  }

  // Ends the connection with a reset: an answer in progress must not look complete.
  void Abort() {
    Disarm();
    if (!socket_.is_open()) return;
    beast::error_code ignored;
    socket_.set_option(net::socket_base::linger(true, 0), ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  http::response<http::string_body> res_;
  std::optional<http::serializer<false, http::string_body>> serializer_;
  std::vector<char> drain_;
  std::size_t drained_ = 0;
  std::size_t reserved_ = 0;
  uint64_t generation_ = 0;
  Phase phase_ = Phase::kNone;
  std::string local_address_;
  bool head_ = false;
  bool close_ = false;
  bool close_after_ = false;  // draining: close once the answer is written
  bool idle_ = false;         // waiting for a request of which nothing has arrived
  bool timed_out_ = false;
  bool writing_ = false;
  Shared& shared_;
  const ServerOptions& options_;
};

int HeavyThreads(const ServerOptions& o) {
  if (o.heavy_threads > 0) return o.heavy_threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));  // one per core
}

int ConnectionThreads(const ServerOptions& o) {
  if (o.threads > 0) return o.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));  // one per core
}

// One io_context per connection thread, each run by that thread alone (concurrency hint 1): a
// connection lives on one of them, so its handlers need no strand and its reads, writes and
// timers never wake another thread.
std::vector<std::unique_ptr<net::io_context>> Contexts(int n) {
  std::vector<std::unique_ptr<net::io_context>> contexts;
  for (int i = 0; i < n; ++i) contexts.push_back(std::make_unique<net::io_context>(1));
  return contexts;
}

}  // namespace

struct Server::Impl {
  Impl(const ServerOptions& o, const Api* a)
      : shared(o, *a, HeavyThreads(o)),
        contexts(Contexts(ConnectionThreads(o))),
        acceptor(*contexts[0]),
        retry(*contexts[0]),
        drain_timer(*contexts[0]) {
    for (auto& c : contexts) guards.push_back(net::make_work_guard(*c));
  }

  ~Impl() {
    // Heavy work first (it posts to the io_context), then the sessions still held by handlers
    // (aborted with a reset if mid-answer) when the io_context goes.
    shared.cancelled = true;
    shared.heavy.Stop();
  }

  void Accept() {
    // Connections go round the contexts whose threads run.
    net::io_context& next = *contexts[next_context];
    next_context = (next_context + 1) % std::max(1, running.load());
    acceptor.async_accept(next, [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      if (ec) {
        // Out of file descriptors or the like: try again shortly rather than spin.
        retry.expires_after(std::chrono::milliseconds(50));
        retry.async_wait([this](beast::error_code) {
          if (acceptor.is_open()) Accept();
        });
        return;
      }
      if (shared.connections.load() >= shared.options.max_connections) {
        // Over the cap: a short 503 into the empty send buffer, and the connection ends.
        static const std::string kBusy = [] {
          const std::string body =
              "{\"error\": \"the server has as many connections as it takes (--max_connections): "
              "retry shortly\"}\n";
          return absl::StrCat(
              "HTTP/1.1 503 Service Unavailable\r\nServer: dcplan\r\nContent-Type: "
              "application/json\r\nConnection: close\r\nContent-Length: ",
              body.size(), "\r\n\r\n", body);
        }();
        beast::error_code ignored;
        socket.non_blocking(true, ignored);
        socket.write_some(net::buffer(kBusy), ignored);
        socket.shutdown(tcp::socket::shutdown_send, ignored);
        socket.close(ignored);
      } else {
        shared.connections.fetch_add(1);
        auto session = std::make_shared<Session>(std::move(socket), shared);
        {
          std::lock_guard<std::mutex> lock(shared.sessions_mu);
          const uint64_t id = ++shared.next_id;
          // Forget sessions that ended (the map holds weak pointers; pruned as it grows).
          if (shared.sessions.size() >
              2 * static_cast<std::size_t>(shared.connections.load()) + 64) {
            for (auto it = shared.sessions.begin(); it != shared.sessions.end();) {
              it = it->second.expired() ? shared.sessions.erase(it) : std::next(it);
            }
          }
          shared.sessions[id] = session;
        }
        session->Start();
      }
      Accept();
    });
  }

  void StopAccepting() {
    beast::error_code ignored;
    acceptor.close(ignored);
    retry.cancel();
  }

  void AbortAllAndStop() {
    shared.cancelled = true;
    for (auto& s : shared.Live()) s->OnAbort();
    // The aborts run on the sessions' threads; then the io_contexts stop.
    drain_timer.expires_after(std::chrono::milliseconds(50));
    drain_timer.async_wait([this](beast::error_code) { StopContexts(); });
  }

  // Every 20 ms: done when no connection is left; past the deadline, abort the rest.
  void WaitDrained(std::chrono::steady_clock::time_point deadline) {
    if (shared.connections.load() == 0) return StopContexts();
    if (std::chrono::steady_clock::now() >= deadline) return AbortAllAndStop();
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([this, deadline](beast::error_code ec) {
      if (!ec) WaitDrained(deadline);
    });
  }

  void StopContexts() {
    for (auto& c : contexts) c->stop();
  }

  Shared shared;  // before the io_contexts: sessions they destroy refer to it
  std::vector<std::unique_ptr<net::io_context>> contexts;
  // Keep every context's run() going while it has no connection (until StopContexts()).
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  // How many contexts have a thread; the acceptor's handler (on contexts[0]) picks the next.
  std::atomic<int> running{1};
  int next_context = 0;
  tcp::acceptor acceptor;
  net::steady_timer retry;
  net::steady_timer drain_timer;
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
  const std::string& a = impl_->shared.options.address;
  const bool v6 = a.find(':') != std::string::npos;
  return absl::StrCat("http://", v6 ? "[" : "", a, v6 ? "]" : "", ":", impl_->port, "/");
}

void Server::Run() {
  std::vector<std::thread> extra;
  for (std::size_t i = 1; i < impl_->contexts.size(); ++i) {
    try {
      net::io_context* context = impl_->contexts[i].get();
      extra.emplace_back([context] { context->run(); });
    } catch (const std::system_error&) {
      break;  // serve on the threads that did start
    }
  }
  impl_->running = static_cast<int>(extra.size()) + 1;
  impl_->contexts[0]->run();
  for (std::thread& t : extra) t.join();
  // Heavy work still running was told to stop (cancelled) when the server stopped.
  impl_->shared.cancelled = true;
  impl_->shared.heavy.Stop();
}

void Server::Stop() {
  impl_->shared.cancelled = true;
  impl_->shared.draining = true;
  net::post(*impl_->contexts[0], [this] {
    impl_->StopAccepting();
    impl_->AbortAllAndStop();
  });
  // Before Run(): nothing runs the posted handler; stop at once (Run returns at once).
  if (impl_->contexts[0]->stopped() || impl_->shared.connections.load() == 0) {
    impl_->StopContexts();
  }
}

void Server::Drain(std::chrono::milliseconds grace) {
  net::post(*impl_->contexts[0], [this, grace] {
    impl_->shared.draining = true;
    impl_->StopAccepting();
    for (auto& s : impl_->shared.Live()) s->OnDrain();
    impl_->WaitDrained(std::chrono::steady_clock::now() + grace);
  });
}

void Server::StopOnSignals() {
  impl_->signals.emplace(*impl_->contexts[0], SIGINT, SIGTERM);
  impl_->signals->async_wait([this](beast::error_code ec, int) {
    if (!ec) Drain(impl_->shared.options.drain_timeout);
  });
}

}  // namespace dcplan::serve
