// dcplan serve: the planner over HTTP on this machine: the interactive page at / and the JSON (or
// binary proto) API under /v1/ (examples/serve/). Binds to loopback unless --address says
// otherwise; Ctrl-C or SIGTERM stops it.
#include <csignal>
#include <cstdint>
#include <iostream>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "examples/cli/commands.h"
#include "examples/serve/api.h"
#include "examples/serve/server.h"

ABSL_FLAG(std::string, port, "8080", "serve: the TCP port to listen on (0 picks a free one)");
ABSL_FLAG(std::string, address, "127.0.0.1",
          "serve: the address to listen on; the default is loopback only (0.0.0.0 is everyone)");
ABSL_DECLARE_FLAG(int, threads);

namespace dcplan::cli {

absl::Status RunServe() {
  const std::string port_text = absl::GetFlag(FLAGS_port);
  uint32_t port = 0;
  if (!absl::SimpleAtoi(port_text, &port) || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--port: expected a whole number from 0 to 65535, got \"", port_text.substr(0, 80), "\""));
  }
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0 || threads > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: expected 0 (one per core) to 256, got ", threads));
  }
  serve::ServerOptions options;
  options.address = absl::GetFlag(FLAGS_address);
  options.port = static_cast<uint16_t>(port);
  options.threads = threads;
  // A client that goes away mid-answer must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  const serve::Api api;
  auto server = serve::Server::Start(options, &api);
  if (!server.ok()) return server.status();
  (*server)->StopOnSignals();
  std::cout << "dcplan: serving on " << (*server)->url() << std::endl;
  if (options.address != "127.0.0.1" && options.address != "::1" &&
      options.address.rfind("127.", 0) != 0) {
    std::cerr << "dcplan: listening on " << options.address
              << ", not only loopback: anyone who reaches this address can use the planner\n";
  }
  (*server)->Run();
  std::cerr << "dcplan: stopped\n";
  return absl::OkStatus();
}

}  // namespace dcplan::cli
