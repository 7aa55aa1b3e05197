// File: examples/serve/server.h
//
// The socket side of `dcplan serve`: an HTTP/1.1 server on Boost.Beast (header-only) that hands
// every request to an Api (api.h) and writes its answer back. It binds to loopback unless told
// otherwise, keeps connections alive, and protects itself: a request body over the limit is refused
// with 413 as soon as its Content-Length (or its chunks) say so, without reading it all; a client
// that sends half a request and stalls is timed out (408) without holding up anyone else; a client
// that goes away mid-answer costs its own connection only; malformed HTTP gets 400. It runs on a
// few threads (one per core by default), each request answered on the thread that read it.
//
// Example:
//   dcplan::serve::Api api;
//   DCPLAN_ASSIGN_OR_RETURN(auto server, dcplan::serve::Server::Start({.port = 0}, &api));
//   std::cout << server->url() << "\n";   // http://127.0.0.1:41234/
//   server->Run();                        // until Stop() (from another thread or a signal)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "examples/serve/api.h"

namespace dcplan::serve {

struct ServerOptions {
  // Where to listen: loopback unless the user names another address.
  std::string address = "127.0.0.1";
  // 0 picks a free port (see Server::port()).
  uint16_t port = 8080;
  // Threads that run the connections; 0 = one per core.
  int threads = 0;
  // The largest request body read (413 past it) and the largest request header (431 past it).
  std::size_t max_body_bytes = std::size_t{1} << 20;
  std::size_t max_header_bytes = std::size_t{16} << 10;
  // How long one request may take to arrive (and one answer to be taken), and how long a kept-alive
  // connection may sit idle.
  std::chrono::milliseconds timeout{10000};
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

  // Serves on options.threads threads (the caller's among them) until Stop(); returns then.
  void Run();
  // Stops serving: Run() returns soon after. Safe from any thread, also before Run().
  void Stop();
  // Stops on SIGINT or SIGTERM (installs handlers for the server's lifetime).
  void StopOnSignals();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dcplan::serve
