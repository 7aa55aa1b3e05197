// dcplan serve: the planner over HTTP on this machine: the interactive page at / and the JSON (or
// binary proto) API under /v1/ (examples/serve/). Binds to loopback unless --address says
// otherwise; Ctrl-C or SIGTERM drains it (answers in progress get a few seconds, then it stops).
// Limits (examples/serve/server.h, api.h): a work budget and a time limit per request, a pool for
// heavy requests apart from the page's, caps on connections and buffered bytes, Host and Origin
// checks (README: "Threat model").
#include <chrono>
#include <csignal>
#include <cstdint>
#include <iostream>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "examples/cli/commands.h"
#include "examples/serve/api.h"
#include "examples/serve/server.h"

ABSL_FLAG(std::string, port, "8080", "serve: the TCP port to listen on (0 picks a free one)");
ABSL_FLAG(std::string, address, "127.0.0.1",
          "serve: the address to listen on; the default is loopback only (0.0.0.0 is everyone)");
ABSL_FLAG(std::string, allow_host, "",
          "serve: host names accepted in the Host header besides this server's address and "
          "localhost (comma-separated), e.g. the name a reverse proxy forwards");
ABSL_FLAG(std::string, allow_origin, "",
          "serve: web origins allowed to call the API besides the page's own (comma-separated, "
          "e.g. https://tools.example.com; * allows any)");
ABSL_FLAG(std::string, max_request_seconds, "10",
          "serve: how long one request's work may run (503 past it)");
ABSL_FLAG(std::string, max_work_units, "300000",
          "serve: the most work one request may ask for (422 past it; a solve is 1 unit, with a "
          "workload 4,000 per point and 40,000 per plan)");
ABSL_FLAG(
    std::string, heavy_threads, "0",
    "serve: threads for heavy POST requests (all but plain plans), apart from the connections' "
    "(0 = one per core)");
ABSL_FLAG(std::string, max_connections, "1024", "serve: connections served at once");
ABSL_FLAG(std::string, monte_carlo_threads, "1",
          "serve: threads one request with uncertain inputs may use for its Monte Carlo samples "
          "(1 = its own thread only)");
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
  options.allowed_hosts =
      absl::StrSplit(absl::GetFlag(FLAGS_allow_host), ',', absl::SkipWhitespace());
  options.allowed_origins =
      absl::StrSplit(absl::GetFlag(FLAGS_allow_origin), ',', absl::SkipWhitespace());
  serve::ApiOptions api_options;
  double seconds = 0;
  const std::string seconds_text = absl::GetFlag(FLAGS_max_request_seconds);
  if (!absl::SimpleAtod(seconds_text, &seconds) || !(seconds >= 0.01 && seconds <= 86400)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_request_seconds: expected a number of seconds in [0.01, 86400], got \"",
                     seconds_text.substr(0, 80), "\""));
  }
  api_options.max_request_time = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  struct Whole {
    const char* name;
    std::string text;
    int64_t low, high;
    int64_t* out;
  };
  int64_t heavy = 0, connections = 0, mc_threads = 1;
  for (const Whole& w :
       {Whole{"max_work_units", absl::GetFlag(FLAGS_max_work_units), 1, int64_t{1} << 50,
              &api_options.max_work_units},
        Whole{"heavy_threads", absl::GetFlag(FLAGS_heavy_threads), 0, 256, &heavy},
        Whole{"max_connections", absl::GetFlag(FLAGS_max_connections), 1, 100000, &connections},
        Whole{"monte_carlo_threads", absl::GetFlag(FLAGS_monte_carlo_threads), 1, 256,
              &mc_threads}}) {
    if (!absl::SimpleAtoi(w.text, w.out) || *w.out < w.low || *w.out > w.high) {
      return absl::InvalidArgumentError(absl::StrCat("--", w.name, ": expected a whole number in [",
                                                     w.low, ", ", w.high, "], got \"",
                                                     w.text.substr(0, 80), "\""));
    }
  }
  options.heavy_threads = static_cast<int>(heavy);
  api_options.monte_carlo_threads = static_cast<int>(mc_threads);
  options.max_connections = static_cast<int>(connections);
  // A client that goes away mid-answer must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  const serve::Api api(api_options);
  auto server = serve::Server::Start(options, &api);
  if (!server.ok()) return server.status();
  (*server)->StopOnSignals();
  std::cout << "dcplan: serving on " << (*server)->url() << std::endl;
  if (options.address != "127.0.0.1" && options.address != "::1" &&
      options.address.rfind("127.", 0) != 0) {
    std::cerr << "dcplan: listening on " << options.address
              << ", not only loopback: anyone who reaches this address can use the planner\n";
  }
  if (options.address != "127.0.0.1" && options.address != "::1" &&
      options.address.rfind("127.", 0) != 0) {
    std::cerr << "dcplan: there is no authentication: put a reverse proxy with it in front "
                 "(README: Threat model)\n";
  }
  (*server)->Run();
  std::cerr << "dcplan: stopped\n";
  return absl::OkStatus();
}

}  // namespace dcplan::cli
