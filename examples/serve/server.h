// File: examples/serve/server.h
//
// The socket side of `dcplan serve`: an HTTP/1.1 server on Boost.Beast (header-only) that hands
// every request to an Api (api.h) and writes its answer back. It binds to loopback unless told
// otherwise, keeps connections alive, and protects itself and the machine it runs on:
//   - bodies: over the limit is 413 as soon as the Content-Length (or the chunks) say so; every
//     body's bytes are reserved from a budget shared by all connections (max_buffered_bytes) before
//     it is read, 503 when the budget is spent; at most max_connections at once (503 past it);
//   - time: a request that has not arrived within `timeout` gets 408 and the connection closes (an
//     idle kept-alive connection just closes); an answer must make progress: each piece of at most
//     64 KiB must be taken within `timeout`, however long the whole answer takes; an answer that
//     cannot be finished (the client stalls, the server stops) is aborted with a reset, so the
//     client sees an error, never a complete-looking short answer;
//   - work: each connection lives on one of `threads` threads (an io_context each), which answers
//     the page, the presets and light plans (Api::HandleIfLight: no workload, no uncertain inputs,
//     ~50 us) itself; other POSTs under /v1/ run on a small pool of their own (heavy_threads, at
//     most max_queued_heavy waiting, 503 past it), so the page and /v1/presets stay fast while
//     heavy work runs; the Api prices and times each request (ApiOptions);
//   - origin: a Host that is not this server's address (the bound or connected IP, localhost, or a
//     name in allowed_hosts) is refused with 403 (DNS rebinding), and so is an Origin other than
//     the page's own or one in allowed_origins (a web page posting to the API); a Transfer-Encoding
//     other than chunked closes the connection (501); malformed HTTP gets 400.
// Drain() (what SIGTERM does) stops accepting, lets answers in progress finish for a bounded time,
// then aborts what is left and returns from Run().
//
// Example:
//   dcplan::serve::Api api;
//   DCPLAN_ASSIGN_OR_RETURN(auto server, dcplan::serve::Server::Start({.port = 0}, &api));
//   std::cout << server->url() << "\n";   // http://127.0.0.1:41234/
//   server->Run();                        // until Stop() or Drain() (another thread, a signal)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "examples/serve/api.h"

namespace dcplan::serve {

struct ServerOptions {
  // Where to listen: loopback unless the user names another address.
  std::string address = "127.0.0.1";
  // 0 picks a free port (see Server::port()).
  uint16_t port = 8080;
  // Threads that run the connections, each its own connections (given to them in turn); 0 = one
  // per core.
  int threads = 0;
  // Threads for heavy requests (POSTs under /v1/ other than light plans), apart from the
  // connections' threads; 0 = one per core. At most max_queued_heavy more wait for one (503 past
  // that).
  int heavy_threads = 0;
  int max_queued_heavy = 64;
  // The largest request body read (413 past it) and the largest request header (431 past it).
  std::size_t max_body_bytes = std::size_t{1} << 20;
  std::size_t max_header_bytes = std::size_t{16} << 10;
  // Request body bytes held across all connections at once (503 past it), and connections at once.
  std::size_t max_buffered_bytes = std::size_t{64} << 20;
  int max_connections = 1024;
  // How long one request may take to arrive (408 past it), how long a kept-alive connection may sit
  // idle, and how long each piece (64 KiB) of an answer may take to be taken by the client.
  std::chrono::milliseconds timeout{10000};
  // How long Drain() (SIGTERM) lets answers in progress finish before aborting them.
  std::chrono::milliseconds drain_timeout{5000};
  // Host names accepted besides this server's address and localhost (e.g. a reverse proxy's name),
  // and Origins accepted besides the page's own ("https://tools.example.com"; "*" accepts any).
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
};

class Server {
 public:
  // Binds and listens (errors name the address: in use, not an address of this machine ...); the
  // connections are served once Run() is called. `api` must outlive the server.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options,
                                                       const Api* api);
  ~Server();

  // The port listened on (the chosen one when options.port was 0) and the page's URL.
  uint16_t port() const;
  std::string url() const;

  // Serves on options.threads threads (the caller's among them) until Stop() or Drain(); returns
  // then, once the heavy pool has stopped.
  void Run();
  // Stops serving at once: answers in progress are aborted (reset), heavy work is told to stop.
  // Safe from any thread, also before Run().
  void Stop();
  // Stops accepting and closes idle connections; answers in progress may finish within `grace`
  // (each then closes its connection); what is left after it is aborted as by Stop().
  void Drain(std::chrono::milliseconds grace);
  // Drains (options.drain_timeout) on SIGINT or SIGTERM (installs handlers for the server's
  // lifetime).
  void StopOnSignals();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dcplan::serve
