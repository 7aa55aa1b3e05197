// How fast dcplan serve answers POST /v1/plan: the API alone (parse, validate, solve, print JSON)
// and over HTTP/1.1 keep-alive connections on loopback, with the median and 99th-percentile
// latency of the HTTP requests as counters.
//
//   ./bazelw run -c opt //examples/serve:serve_benchmark
//   ./bazelw run -c opt //examples/serve:serve_benchmark -- --benchmark_filter=Http
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "examples/serve/api.h"
#include "examples/serve/server.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "proto/io.h"

namespace dcplan::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string PlanBody() {
  PlanRequest r = LoadPreset("h100-dgx").value();
  r.mutable_constraints()->set_power_cap_watts(50e6);
  return SerializeMessage(r, Encoding::kJson).value();
}

void BM_ApiPlan(benchmark::State& state) {
  const Api api;
  const std::string body = PlanBody();
  for (auto _ : state) {
    ApiResponse r = api.Handle({"POST", "/v1/plan", kJsonType, "", body});
    benchmark::DoNotOptimize(r.body.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ApiPlan);

// Its parts: reading the JSON request, solving it, writing the JSON plan.
void BM_ParseRequestJson(benchmark::State& state) {
  const std::string body = PlanBody();
  PlanRequest r;
  for (auto _ : state) benchmark::DoNotOptimize(ParseMessage(body, Encoding::kJson, &r).ok());
}
BENCHMARK(BM_ParseRequestJson);

void BM_SolvePlan(benchmark::State& state) {
  PlanRequest r;
  (void)ParseMessage(PlanBody(), Encoding::kJson, &r);
  for (auto _ : state) benchmark::DoNotOptimize(SolvePlan(r).ok());
}
BENCHMARK(BM_SolvePlan);

// The same into one Plan kept across calls, as the server answers (its strings stay allocated).
void BM_SolvePlanInto(benchmark::State& state) {
  PlanRequest r;
  (void)ParseMessage(PlanBody(), Encoding::kJson, &r);
  Plan plan;
  for (auto _ : state) benchmark::DoNotOptimize(SolvePlanInto(r, ExplainOptions(), &plan).ok());
}
BENCHMARK(BM_SolvePlanInto);

void BM_PrintPlanJson(benchmark::State& state) {
  PlanRequest r;
  (void)ParseMessage(PlanBody(), Encoding::kJson, &r);
  const Plan plan = SolvePlan(r).value();
  for (auto _ : state) benchmark::DoNotOptimize(SerializeMessage(plan, Encoding::kJson).ok());
}
BENCHMARK(BM_PrintPlanJson);

// CPU time (user and system) of the process (RUSAGE_SELF) or the calling thread (RUSAGE_THREAD).
double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// `clients` keep-alive clients, each sending `method` `target` with `body` and waiting for the
// answer, for about two seconds; the server runs on every core. Reports requests per second (wall
// time), the latency percentiles in microseconds and the CPU time a request cost the clients and
// the server.
void RunHttpClients(benchmark::State& state, int clients, http::verb method,
                    const std::string& target, const std::string& body, bool binary) {
  const Api api;
  ServerOptions options;
  options.port = 0;
  auto server = Server::Start(options, &api).value();
  std::thread serving([&] { server->Run(); });
  for (auto _ : state) {
    std::atomic<bool> stop{false};
    std::vector<std::vector<double>> latencies(clients);
    std::vector<double> client_cpu(clients);
    std::vector<std::thread> threads;
    const double process_cpu_start = CpuSeconds(RUSAGE_SELF);
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        struct Cpu {
          double* total;
          double start = CpuSeconds(RUSAGE_THREAD);
          ~Cpu() { *total = CpuSeconds(RUSAGE_THREAD) - start; }
        } cpu{&client_cpu[c]};
        net::io_context ioc;
        tcp::socket socket(ioc);
        socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server->port()));
        socket.set_option(tcp::no_delay(true));
        // Room for a whole answer per read, as curl or a browser reads: beast's parser empties
        // the buffer as it goes, which otherwise stays at 512 bytes (50 reads for a plan).
        beast::flat_buffer buffer;
        buffer.reserve(std::size_t{64} << 10);
        http::request<http::string_body> req{method, target, 11};
        req.set(http::field::host, "127.0.0.1");
        if (!body.empty()) {
          req.set(http::field::content_type, std::string(binary ? kProtobufType : kJsonType));
          req.body() = body;
        }
        if (binary) req.set(http::field::accept, std::string(kProtobufType));
        req.prepare_payload();
        while (!stop.load(std::memory_order_relaxed)) {
          const auto t0 = std::chrono::steady_clock::now();
          http::write(socket, req);
          http::response<http::string_body> res;
          http::read(socket, buffer, res);
          latencies[c].push_back(
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                  .count());
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    stop = true;
    for (std::thread& t : threads) t.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double process_cpu = CpuSeconds(RUSAGE_SELF) - process_cpu_start;
    double clients_cpu = 0;
    for (double c : client_cpu) clients_cpu += c;
    std::vector<double> all;
    for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    state.counters["requests_per_second"] = static_cast<double>(all.size()) / seconds;
    state.counters["median_us"] = all.empty() ? 0 : all[all.size() / 2];
    state.counters["p99_us"] = all.empty() ? 0 : all[all.size() * 99 / 100];
    state.counters["requests"] = static_cast<double>(all.size());
    // CPU time per request (user and system) of the clients' threads and of the rest of the
    // process (the server's threads): what a request costs the server whatever the clients cost.
    const double n = std::max<double>(1, static_cast<double>(all.size()));
    state.counters["client_cpu_us"] = 1e6 * clients_cpu / n;
    state.counters["server_cpu_us"] = 1e6 * (process_cpu - clients_cpu) / n;
  }
  server->Stop();
  serving.join();
}

// state.range(0) clients sending POST /v1/plan: JSON bodies, or binary protos both ways when
// state.range(1) is 1.
void BM_HttpPlan(benchmark::State& state) {
  const bool binary = state.range(1) != 0;
  std::string body = PlanBody();
  if (binary) {
    PlanRequest r;
    (void)ParseMessage(body, Encoding::kJson, &r);
    body = r.SerializeAsString();
  }
  RunHttpClients(state, static_cast<int>(state.range(0)), http::verb::post, "/v1/plan", body,
                 binary);
}
BENCHMARK(BM_HttpPlan)
    ->ArgNames({"clients", "binary"})
    ->ArgsProduct({{1, 8, 64}, {0, 1}})
    ->Iterations(1)
    ->UseRealTime();

// The floor under BM_HttpPlan on this machine: the same clients and server for requests that cost
// (almost) nothing to answer. GET /v1/columns is answered on the connections' threads, and so is a
// POST /v1/plan of `{}` (parsed, then refused at validation: 400), as a plain plan is.
void BM_HttpFloorGet(benchmark::State& state) {
  RunHttpClients(state, static_cast<int>(state.range(0)), http::verb::get, "/v1/columns", "",
                 false);
}
BENCHMARK(BM_HttpFloorGet)->ArgName("clients")->Arg(8)->Iterations(1)->UseRealTime();

void BM_HttpFloorPost(benchmark::State& state) {
  RunHttpClients(state, static_cast<int>(state.range(0)), http::verb::post, "/v1/plan", "{}",
                 false);
}
BENCHMARK(BM_HttpFloorPost)->ArgName("clients")->Arg(8)->Iterations(1)->UseRealTime();

// The same floor with a plan-sized answer: GET /v1/presets/h100-dgx, a 17.6 KB JSON body made
// once and copied per request, answered on the connections' threads (a JSON plan's answer is
// ~23 KB): what moving the bytes through Beast, loopback TCP and the clients costs.
void BM_HttpFloorPreset(benchmark::State& state) {
  RunHttpClients(state, static_cast<int>(state.range(0)), http::verb::get, "/v1/presets/h100-dgx",
                 "", false);
}
BENCHMARK(BM_HttpFloorPreset)->ArgName("clients")->Arg(8)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace dcplan::serve

BENCHMARK_MAIN();
