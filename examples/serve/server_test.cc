// dcplan serve over real sockets on loopback: every endpoint, the error statuses, and what a
// hostile or careless client does (load, stalls, disconnects, huge bodies, malformed HTTP).
#include "examples/serve/server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "examples/serve/api.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "proto/io.h"
#include "proto/plan.pb.h"
#include "proto/service.pb.h"

namespace dcplan::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using ::testing::HasSubstr;
using Response = http::response<http::string_body>;

// A server on a free loopback port, serving on its own threads for the test's lifetime.
class Running {
 public:
  explicit Running(ServerOptions options = TestOptions(), ApiOptions api_options = {},
                   bool on_signals = false)
      : api_(api_options) {
    server_ = Server::Start(options, &api_).value();
    if (on_signals) server_->StopOnSignals();
    thread_ = std::thread([this] {
      server_->Run();
      returned_ = std::chrono::steady_clock::now();
    });
  }
  ~Running() {
    server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  static ServerOptions TestOptions() {
    ServerOptions o;
    o.port = 0;
    o.threads = 2;
    o.timeout = std::chrono::milliseconds(1000);
    return o;
  }
  uint16_t port() const { return server_->port(); }
  const Api& api() const { return api_; }
  Server& server() { return *server_; }
  // Waits for Run() to return; when it did.
  std::chrono::steady_clock::time_point Join() {
    if (thread_.joinable()) thread_.join();
    return returned_;
  }

 private:
  Api api_;
  std::chrono::steady_clock::time_point returned_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

// A blocking keep-alive HTTP/1.1 client.
class Client {
 public:
  explicit Client(uint16_t port) : socket_(ioc_) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }

  Response Send(http::verb method, const std::string& target, const std::string& body = "",
                const std::string& type = "application/json", const std::string& accept = "") {
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!body.empty() && !type.empty()) req.set(http::field::content_type, type);
    if (!accept.empty()) req.set(http::field::accept, accept);
    req.body() = body;
    req.prepare_payload();
    http::write(socket_, req);
    return Read();
  }

  // Sends bytes as they are (half requests, garbage).
  void Raw(const std::string& bytes) { net::write(socket_, net::buffer(bytes)); }

  Response Read() {
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{1} << 30);
    http::read(socket_, buffer_, parser);
    return parser.release();
  }

  // Whether the server has closed the connection: a read that ends (EOF or reset) at once.
  bool ClosedByServer() {
    char byte;
    beast::error_code ec;
    socket_.read_some(net::buffer(&byte, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
  }

  tcp::socket& socket() { return socket_; }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

std::string Json(const google::protobuf::Message& m) {
  return SerializeMessage(m, Encoding::kJson).value();
}

PlanRequest Seed(double watts) {
  PlanRequest r = LoadPreset("seed").value();
  r.mutable_constraints()->set_power_cap_watts(watts);
  return r;
}

ErrorBody ErrorOf(const Response& r) {
  ErrorBody e;
  EXPECT_TRUE(ParseMessage(r.body(), Encoding::kJson, &e).ok()) << r.body();
  return e;
}

TEST(Server, AnswersEveryEndpointAsTheLibraryDoes) {
  Running server;
  Client c(server.port());
  Response r = c.Send(http::verb::get, "/v1/presets");
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_THAT(r.body(), HasSubstr("\"name\": \"seed\""));
  r = c.Send(http::verb::get, "/v1/presets/seed");
  EXPECT_EQ(r.result_int(), 200);
  PlanRequest seed;
  ASSERT_TRUE(ParseMessage(r.body(), Encoding::kJson, &seed).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(seed, LoadPreset("seed").value()));

  // 45.9 MW / 11.2 kW per seed server: 4,098 servers, 32,784 GPUs (README).
  r = c.Send(http::verb::post, "/v1/plan", Json(Seed(45.9e6)));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_EQ(r[http::field::content_type], "application/json");
  Plan plan;
  ASSERT_TRUE(ParseMessage(r.body(), Encoding::kJson, &plan).ok());
  EXPECT_EQ(plan.counts().gpu_count(), 32784u);
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(plan, SolvePlan(Seed(45.9e6)).value()));

  // Binary both ways on the same connection.
  std::string binary;
  ASSERT_TRUE(Seed(45.9e6).SerializeToString(&binary));
  r = c.Send(http::verb::post, "/v1/plan", binary, "application/x-protobuf",
             "application/x-protobuf");
  ASSERT_EQ(r.result_int(), 200);
  EXPECT_EQ(r[http::field::content_type], "application/x-protobuf");
  Plan from_binary;
  ASSERT_TRUE(from_binary.ParseFromString(r.body()));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(plan, from_binary));

  ScaleRequest scale;
  *scale.mutable_request() = LoadPreset("seed").value();
  scale.add_gpu_counts(32768);
  r = c.Send(http::verb::post, "/v1/scale", Json(scale));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  ScaleReport report;
  ASSERT_TRUE(ParseMessage(r.body(), Encoding::kJson, &report).ok());
  // MFU 0.62 - 0.02 log2(32,768) = 0.32.
  EXPECT_NEAR(report.rows(0).compute().mfu(), 0.32, 1e-12);

  CompareRequest compare;
  compare.add_presets("seed");
  compare.mutable_constraints()->set_power_cap_watts(45.9e6);
  r = c.Send(http::verb::post, "/v1/compare", Json(compare));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_THAT(r.body(), HasSubstr("\"gpu_count\": \"32784\""));

  SweepRequest sweep;
  *sweep.mutable_request() = LoadPreset("seed").value();
  sweep.add_vary("power=10MW,50MW");
  r = c.Send(http::verb::post, "/v1/sweep", Json(sweep));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  // 10 MW: 892 servers, 7,136 GPUs; 50 MW: 4,464 servers, 35,712 GPUs (README's sweep).
  EXPECT_THAT(r.body(), HasSubstr("\"gpu_count\": \"7136\""));
  EXPECT_THAT(r.body(), HasSubstr("\"gpu_count\": \"35712\""));

  TrainRequest train;
  *train.mutable_request() = LoadPreset("h100-dgx").value();
  train.mutable_request()->mutable_workload()->set_layers(32);
  train.mutable_request()->mutable_workload()->set_hidden(4096);
  train.mutable_request()->mutable_workload()->set_heads(32);
  train.mutable_request()->mutable_workload()->set_vocab(50257);
  train.mutable_request()->mutable_workload()->set_seq_len(2048);
  train.mutable_request()->mutable_workload()->set_global_batch_tokens(4194304);
  train.set_gpus(64);
  r = c.Send(http::verb::post, "/v1/train", Json(train));
  ASSERT_EQ(r.result_int(), 200) << r.body();
  EXPECT_THAT(r.body(), HasSubstr("\"mfu\""));

  // The page, and HEAD: the same headers, no body.
  r = c.Send(http::verb::get, "/");
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_EQ(r[http::field::content_type], "text/html; charset=utf-8");
  const std::string page_length(r[http::field::content_length]);
  {
    http::request<http::empty_body> head{http::verb::head, "/", 11};
    head.set(http::field::host, "127.0.0.1");
    http::write(c.socket(), head);
    beast::flat_buffer buffer;
    http::response_parser<http::empty_body> parser;
    parser.skip(true);  // a HEAD answer has no body whatever its Content-Length
    http::read(c.socket(), buffer, parser);
    EXPECT_EQ(parser.get().result_int(), 200);
    EXPECT_EQ(std::string(parser.get()[http::field::content_length]), page_length);
  }
  // Still alive after all that.
  EXPECT_EQ(c.Send(http::verb::get, "/v1/presets").result_int(), 200);
}

TEST(Server, GivesEveryErrorStatusWithItsMessage) {
  Running server;
  Client c(server.port());
  PlanRequest bad = Seed(50e6);
  bad.mutable_site()->set_pue(0.9);
  Response r = c.Send(http::verb::post, "/v1/plan", Json(bad));
  EXPECT_EQ(r.result_int(), 400);
  EXPECT_EQ(ErrorOf(r).error(), "site.pue must be >= 1.0, got 0.9");
  EXPECT_EQ(ErrorOf(r).field(), "site.pue");
  EXPECT_TRUE(r.keep_alive());  // a bad body does not cost the connection
  r = c.Send(http::verb::get, "/v1/nothing");
  EXPECT_EQ(r.result_int(), 404);
  EXPECT_THAT(ErrorOf(r).error(), HasSubstr("no such path: /v1/nothing"));
  r = c.Send(http::verb::put, "/v1/plan", "{}");
  EXPECT_EQ(r.result_int(), 405);
  EXPECT_EQ(r[http::field::allow], "POST");
  r = c.Send(http::verb::post, "/v1/plan", "<xml/>", "application/xml");
  EXPECT_EQ(r.result_int(), 415);
  EXPECT_THAT(ErrorOf(r).error(), HasSubstr("unsupported Content-Type \"application/xml\""));
  r = c.Send(http::verb::post, "/v1/plan", "{not json");
  EXPECT_EQ(r.result_int(), 400);
  // 413: a body over the limit (1 MiB), refused by its Content-Length.
  r = c.Send(http::verb::post, "/v1/plan", std::string((1 << 20) + 1, ' '));
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_THAT(ErrorOf(r).error(), HasSubstr("larger than this server's limit of 1048576 bytes"));
  EXPECT_FALSE(r.keep_alive());
  EXPECT_TRUE(c.ClosedByServer());
}

TEST(Server, RefusesAHundredMebibyteBodyWithoutReadingIt) {
  Running server;
  Client c(server.port());
  // The header announces 100 MiB; only 64 KiB follow, and the answer comes anyway: the server
  // did not wait for (or read) the rest.
  c.Raw(
      "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 104857600\r\n\r\n");
  c.Raw(std::string(64 << 10, ' '));
  Response r = c.Read();
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_FALSE(r.keep_alive());
  // A chunked body has no length up front: refused once its chunks pass the limit.
  Client chunked(server.port());
  chunked.Raw(
      "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = absl::StrCat("10000\r\n", std::string(0x10000, ' '), "\r\n");
  beast::error_code ec;
  for (int i = 0; i < 17 && !ec; ++i) net::write(chunked.socket(), net::buffer(chunk), ec);
  r = chunked.Read();
  EXPECT_EQ(r.result_int(), 413);
}

TEST(Server, AnswersMalformedHttpAndHugeHeadersWithAnError) {
  Running server;
  {
    Client c(server.port());
    c.Raw("THIS IS NOT HTTP\r\n\r\n");
    const Response r = c.Read();
    EXPECT_EQ(r.result_int(), 400);
    EXPECT_THAT(r.body(), HasSubstr("malformed HTTP request"));
  }
  {
    Client c(server.port());
    c.Raw(absl::StrCat("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ", std::string(20000, 'a'),
                       "\r\n\r\n"));
    EXPECT_EQ(c.Read().result_int(), 431);
  }
  {
    // Expect: 100-continue (curl's habit for bodies over 1 KiB): the go-ahead, then the answer.
    Client c(server.port());
    const std::string body = Json(Seed(45.9e6));
    c.Raw(absl::StrCat(
        "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Expect: 100-continue\r\nContent-Length: ",
        body.size(), "\r\n\r\n"));
    std::string interim(25, '\0');
    net::read(c.socket(), net::buffer(interim));
    EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    c.Raw(body);
    const Response r = c.Read();
    EXPECT_EQ(r.result_int(), 200);
    EXPECT_THAT(r.body(), HasSubstr("\"gpu_count\": \"32784\""));
  }
}

TEST(Server, TimesOutAStalledClientWithoutHoldingUpOthers) {
  Running server;  // timeout 1 s
  Client stalled(server.port());
  stalled.Raw(
      "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"na");
  // Others are answered at once meanwhile, on both threads.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    Client other(server.port());
    EXPECT_EQ(other.Send(http::verb::get, "/v1/presets").result_int(), 200);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  // The stalled one gets 408 after the timeout (well before the test's own limit), as server.h
  // promises, and the connection closes.
  const Response timed_out = stalled.Read();
  EXPECT_EQ(timed_out.result_int(), 408);
  EXPECT_THAT(ErrorOf(timed_out).error(),
              HasSubstr("the request did not arrive within 1000 ms; the connection closes"));
  EXPECT_FALSE(timed_out.keep_alive());
  EXPECT_TRUE(stalled.ClosedByServer());
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(900));
  EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST(Server, SurvivesClientsThatLeaveMidAnswer) {
  Running server;
  SweepRequest sweep;
  *sweep.mutable_request() = LoadPreset("seed").value();
  sweep.add_vary("power=1MW:5GW:log20000");  // an answer of several MB
  const std::string body = Json(sweep);
  for (int i = 0; i < 10; ++i) {
    Client leaver(server.port());
    leaver.Raw(
        absl::StrCat("POST /v1/sweep HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     "application/json\r\nContent-Length: ",
                     body.size(), "\r\n\r\n", body));
    char some[4096];
    beast::error_code ec;
    leaver.socket().read_some(net::buffer(some), ec);  // the answer has begun
    // Reset rather than close politely: the server's next write fails at once.
    leaver.socket().set_option(net::socket_base::linger(true, 0));
    leaver.socket().close();
  }
  Client after(server.port());
  EXPECT_EQ(after.Send(http::verb::post, "/v1/plan", Json(Seed(45.9e6))).result_int(), 200);
}

// 64 concurrent keep-alive clients, 10,000 requests in all over every endpoint, some of them
// malformed: every answer is the one the API gives for that request (worked out before the load
// starts, the plan's against the seed's 32,784 GPUs by hand), none is lost.
TEST(Server, ServesSixtyFourConcurrentClientsWithoutAWrongAnswer) {
  Running server;
  struct Call {
    http::verb method;
    std::string target, body, type;
    int status;
    std::string expected;
  };
  std::vector<Call> calls;
  auto add = [&](http::verb method, std::string target, std::string body, std::string type) {
    const ApiResponse a =
        server.api().Handle({method == http::verb::get ? "GET" : "POST", target, type, "", body});
    calls.push_back(
        {method, std::move(target), std::move(body), std::move(type), a.status, a.body});
  };
  for (double mw : {10.0, 45.9, 50.0, 100.0}) {
    add(http::verb::post, "/v1/plan", Json(Seed(mw * 1e6)), "application/json");
  }
  EXPECT_THAT(calls[1].expected, HasSubstr("\"gpu_count\": \"32784\""));
  add(http::verb::get, "/v1/presets", "", "");
  add(http::verb::get, "/v1/presets/h100-dgx", "", "");
  ScaleRequest scale;
  *scale.mutable_request() = LoadPreset("seed").value();
  for (uint64_t g : {1, 8, 512, 8192, 32768}) scale.add_gpu_counts(g);
  add(http::verb::post, "/v1/scale", Json(scale), "application/json");
  PlanRequest bad = Seed(50e6);
  bad.mutable_site()->set_pue(0.9);
  add(http::verb::post, "/v1/plan", Json(bad), "application/json");       // 400
  add(http::verb::post, "/v1/plan", "{\"site\": [", "application/json");  // 400, not JSON
  add(http::verb::post, "/v1/plan", "x", "text/plain");                   // 415
  add(http::verb::get, "/v1/nope", "", "");                               // 404
  add(http::verb::get, "/v1/plan", "", "");                               // 405
  ASSERT_EQ(calls.size(), 12u);

  constexpr int kClients = 64;
  constexpr int kRequests = 10000;
  std::atomic<int> next{0}, ok{0}, wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&] {
      try {
        Client c(server.port());
        for (int i; (i = next.fetch_add(1)) < kRequests;) {
          const Call& call = calls[static_cast<size_t>(i) % calls.size()];
          const Response r = c.Send(call.method, call.target, call.body, call.type);
          if (r.result_int() == call.status && r.body() == call.expected) {
            ++ok;
          } else {
            ++wrong;
          }
        }
      } catch (const std::exception& e) {
        ++failed;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ok.load(), kRequests);
}

TEST(Server, SaysWhyItCannotListen) {
  Api api;
  ServerOptions options = Running::TestOptions();
  options.address = "not-an-address";
  auto bad = Server::Start(options, &api);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("\"not-an-address\" is not an IP address"));
  // The port of a running server is taken.
  Running server;
  options.address = "127.0.0.1";
  options.port = server.port();
  auto taken = Server::Start(options, &api);
  ASSERT_FALSE(taken.ok());
  EXPECT_THAT(taken.status().message(),
              HasSubstr(absl::StrCat("cannot listen on 127.0.0.1:", server.port())));
}

TEST(Server, StopsWhenAskedEvenBeforeRunning) {
  Api api;
  auto server = Server::Start(Running::TestOptions(), &api).value();
  EXPECT_NE(server->port(), 0);
  EXPECT_EQ(server->url(), absl::StrCat("http://127.0.0.1:", server->port(), "/"));
  server->Stop();
  server->Run();  // returns at once
}

// --- limits: work, time, memory, connections
// ------------------------------------------------------

// The 126-layer workload of the hostile review (a Llama-3-405B shape) on h100-dgx.
PlanRequest With405B() {
  PlanRequest r = LoadPreset("h100-dgx").value();
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(layers: 126
           hidden: 16384
           heads: 128
           kv_heads: 8
           ffn_hidden: 53248
           gated_mlp: true
           vocab: 128256
           seq_len: 8192
           global_batch_tokens: 16777216)pb",
      r.mutable_workload()));
  return r;
}

std::string SweepJson(const PlanRequest& base, const std::string& vary) {
  SweepRequest sweep;
  *sweep.mutable_request() = base;
  sweep.add_vary(vary);
  return Json(sweep);
}

// Milliseconds `f` takes.
template <typename F>
double Millis(F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(Server, RefusesTheTwoStallingSweepsByTheirPriceAtOnce) {
  // Two POST /v1/sweep of a 126-layer workload over 100,000 power points kept both threads busy
  // for hours. Priced first: 100,000 points x 4,000 units per point with a workload = 4 x 10^8
  // units against the default budget of 300,000: 422 before any work, naming the limit and the CLI.
  Running server;
  const std::string body = SweepJson(With405B(), "power=1MW:100000MW:1MW");
  std::vector<std::thread> posts;
  std::vector<Response> answers(2);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    posts.emplace_back([&, i] {
      Client c(server.port());
      answers[i] = c.Send(http::verb::post, "/v1/sweep", body);
    });
  }
  double page_ms = 0;
  {
    Client page(server.port());
    page_ms = Millis([&] { EXPECT_EQ(page.Send(http::verb::get, "/").result_int(), 200); });
  }
  for (std::thread& t : posts) t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_LT(page_ms, 1000);
  for (const Response& r : answers) {
    EXPECT_EQ(r.result_int(), 422);
    EXPECT_EQ(ErrorOf(r).error(),
              "this request asks for 400000000 work units (100000 points x 4000 per point with a "
              "workload); this server does at most 300000 per request (--max_work_units): run it "
              "with the CLI instead: `dcplan sweep --request=FILE --vary=...`");
  }
  // /v1/scale and /v1/train: priced the same way (1,000 sizes x 4,000 = 4,000,000 units).
  ScaleRequest scale;
  *scale.mutable_request() = With405B();
  for (int g = 1; g <= 1000; ++g) scale.add_gpu_counts(static_cast<uint64_t>(g) * 1024);
  Client c(server.port());
  const Response r = c.Send(http::verb::post, "/v1/scale", Json(scale));
  EXPECT_EQ(r.result_int(), 422);
  EXPECT_THAT(
      ErrorOf(r).error(),
      HasSubstr("asks for 4000000 work units (1000 sizes x 4000 per size with a workload)"));
}

TEST(Server, HeavyWorkRunsApartFromThePageAndStopsAtItsDeadline) {
  // Within the budget but slow: 20,000 workload points (a 405B search at each size, ~1 ms each
  // since the search skips what cannot be the best: ~20 s) with the budget raised
  // so the deadline (1.5 s here) is what stops them, on one heavy thread: the second sweep waits
  // for the first. GET / and /v1/presets meanwhile take milliseconds, on the connection threads.
  ServerOptions options = Running::TestOptions();
  options.heavy_threads = 1;
  options.timeout = std::chrono::milliseconds(10000);
  ApiOptions api;
  api.max_work_units = int64_t{1} << 40;
  api.max_request_time = std::chrono::milliseconds(1500);
  Running server(options, api);
  const std::string body = SweepJson(With405B(), "power=1GW:20000GW:1GW");
  std::vector<Response> answers(2);
  std::vector<double> took(2);
  std::vector<std::chrono::steady_clock::time_point> ended(2);
  std::vector<std::thread> posts;
  for (int i = 0; i < 2; ++i) {
    posts.emplace_back([&, i] {
      Client c(server.port());
      took[i] = Millis([&] { answers[i] = c.Send(http::verb::post, "/v1/sweep", body); });
      ended[i] = std::chrono::steady_clock::now();
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // both sent, one running
  double slowest = 0;
  for (int i = 0; i < 10; ++i) {
    Client page(server.port());
    slowest = std::max(slowest, Millis([&] {
                         EXPECT_EQ(page.Send(http::verb::get, "/").result_int(), 200);
                         EXPECT_EQ(page.Send(http::verb::get, "/v1/presets").result_int(), 200);
                       }));
  }
  for (std::thread& t : posts) t.join();
  std::printf("GET / and /v1/presets while two heavy sweeps ran: slowest pair %.1f ms\n", slowest);
  EXPECT_LT(slowest, 500);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(answers[i].result_int(), 503);
    EXPECT_EQ(ErrorOf(answers[i]).error(),
              "this request ran past this server's limit of 1.5 s per request "
              "(--max_request_seconds) and was stopped: run it with the CLI instead: `dcplan sweep "
              "--request=FILE --vary=...`");
  }
  // Each stops within a block (4 points, milliseconds) of its 1.5 s; the second started after the
  // first stopped, so it ended about 1.5 s after the first (both clients' clocks start when they
  // send, a few milliseconds apart, so the second's own time is only about 3 s).
  const double first = std::min(took[0], took[1]), second = std::max(took[0], took[1]);
  const double apart =
      std::abs(std::chrono::duration<double, std::milli>(ended[1] - ended[0]).count());
  std::printf("the two sweeps were stopped after %.0f and %.0f ms, %.0f ms apart\n", first, second,
              apart);
  EXPECT_GE(first, 1500);
  EXPECT_LT(first, 4000);
  EXPECT_GE(second, 2900);
  EXPECT_GE(apart, 1400);
  EXPECT_LT(second, 8000);
}

// A plan without a workload or uncertain inputs (~50 us) is answered on the connection's own
// thread, not handed to the heavy pool and back: with a pool that queues nothing (every heavy job
// refused with 503), plain plans still get their answers, on both connection threads, while the
// same plan with uncertain inputs (a Monte Carlo run) and a sweep are refused.
TEST(Server, PlainPlansAreAnsweredOnTheConnectionsThreads) {
  ServerOptions options = Running::TestOptions();
  options.max_queued_heavy = 0;
  Running server(options);
  const std::string body = Json(Seed(45.9e6));
  const std::string expected = server.api().Handle({"POST", "/v1/plan", kJsonType, "", body}).body;
  // Four connections: the server hands them to its two threads in turn.
  for (int i = 0; i < 4; ++i) {
    Client c(server.port());
    for (int j = 0; j < 2; ++j) {
      const Response r = c.Send(http::verb::post, "/v1/plan", body);
      ASSERT_EQ(r.result_int(), 200) << r.body();
      EXPECT_EQ(r.body(), expected);
    }
  }
  PlanRequest uncertain = Seed(45.9e6);
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 1.2)")pb", uncertain.add_uncertain()));
  Client c(server.port());
  for (const auto& [target, heavy] :
       {std::pair<std::string, std::string>{"/v1/plan", Json(uncertain)},
        {"/v1/sweep", SweepJson(Seed(45.9e6), "power=10MW:20MW:5MW")}}) {
    const Response r = c.Send(http::verb::post, target, heavy);
    EXPECT_EQ(r.result_int(), 503) << target;
    EXPECT_THAT(ErrorOf(r).error(), HasSubstr("the server is busy with as much heavy work"))
        << target;
  }
}

// An answer read by a raw socket: what arrived, and whether it was whole.
struct RawAnswer {
  std::string head;          // status line and headers
  std::size_t declared = 0;  // Content-Length
  std::size_t body = 0;      // body bytes received
  bool whole = false;        // body == declared
  std::string error;         // why reading stopped early ("" when whole)
};

// Sends `request` on a new connection with a small receive buffer, then reads at about
// `bytes_per_second` (0: reads nothing for `stall` first). `on_first_bytes` runs once some of the
// answer has arrived.
RawAnswer ReadSlowly(uint16_t port, const std::string& request, double bytes_per_second,
                     std::chrono::milliseconds stall = std::chrono::milliseconds(0),
                     const std::function<void()>& on_first_bytes = nullptr) {
  RawAnswer a;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int small = 32 << 10;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    a.error = "connect failed";
    ::close(fd);
    return a;
  }
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::this_thread::sleep_for(stall);
  std::string data;
  char buffer[8192];
  std::size_t header_end = std::string::npos;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0) {
      a.error = std::strerror(errno);
      break;
    }
    if (n == 0) {
      a.error = "closed early";
      break;
    }
    data.append(buffer, static_cast<std::size_t>(n));
    if (header_end == std::string::npos &&
        (header_end = data.find("\r\n\r\n")) != std::string::npos) {
      a.head = data.substr(0, header_end);
      const std::size_t at = a.head.find("Content-Length: ");
      if (at != std::string::npos) {
        absl::SimpleAtoi(a.head.substr(at + 16, a.head.find("\r\n", at) - at - 16), &a.declared);
      }
      if (on_first_bytes) on_first_bytes();
    }
    if (header_end != std::string::npos) {
      a.body = data.size() - header_end - 4;
      if (a.body >= a.declared) break;
    }
    if (bytes_per_second > 0) {
      // Paced: never ahead of bytes_per_second since the start.
      const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(data.size() / bytes_per_second));
      std::this_thread::sleep_until(due);
    }
  }
  a.whole = header_end != std::string::npos && a.body == a.declared;
  if (a.whole) a.error.clear();
  ::close(fd);
  return a;
}

std::string PostText(uint16_t port, const std::string& target, const std::string& body) {
  return absl::StrCat("POST ", target, " HTTP/1.1\r\nHost: 127.0.0.1:", port,
                      "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(),
                      "\r\n\r\n", body);
}

TEST(Server, ASlowReaderGetsTheWholeAnswer) {
  // 10,000 sweep points (~4.5 MB of JSON) read at 1.5 MB/s take ~3 s, three times the 1 s timeout:
  // the deadline follows progress (each 64 KiB piece within 1 s), not the whole answer.
  Running server;
  const RawAnswer a = ReadSlowly(
      server.port(),
      PostText(server.port(), "/v1/sweep", SweepJson(Seed(1e6), "power=1MW:10000MW:1MW")), 1.5e6);
  std::printf("slow reader: %zu of %zu bytes, %s\n", a.body, a.declared, a.error.c_str());
  EXPECT_TRUE(absl::StartsWith(a.head, "HTTP/1.1 200 OK")) << a.head;
  EXPECT_GT(a.declared, std::size_t{4000000});
  EXPECT_TRUE(a.whole) << a.error;
}

TEST(Server, AStalledReaderIsCutOffWithAResetNeverAShort200) {
  // The client reads nothing for 3 s: after one timeout (1 s) without progress the server aborts
  // the connection (reset). What the client then reads ends in an error before Content-Length.
  Running server;
  const RawAnswer a = ReadSlowly(
      server.port(),
      PostText(server.port(), "/v1/sweep", SweepJson(Seed(1e6), "power=1MW:10000MW:1MW")), 0,
      std::chrono::milliseconds(3000));
  std::printf("stalled reader: %zu of %zu bytes, then: %s\n", a.body, a.declared, a.error.c_str());
  EXPECT_FALSE(a.whole);
  EXPECT_EQ(a.error, "Connection reset by peer");
  // The server is fine.
  Client after(server.port());
  EXPECT_EQ(after.Send(http::verb::get, "/v1/presets").result_int(), 200);
}

TEST(Server, SigtermDrainsForABoundedTimeAndAbortsWhatIsLeft) {
  // A slow reader (300 KB/s) of a ~4.5 MB answer would need 15 s; SIGTERM comes once it has begun.
  // The server stops accepting, gives answers in progress 500 ms, then aborts: the client sees a
  // reset, never a complete-looking 200, and Run() returns soon after.
  ServerOptions options = Running::TestOptions();
  options.drain_timeout = std::chrono::milliseconds(500);
  options.timeout = std::chrono::milliseconds(5000);
  Running server(options, {}, /*on_signals=*/true);
  std::chrono::steady_clock::time_point signalled;
  const RawAnswer a = ReadSlowly(
      server.port(),
      PostText(server.port(), "/v1/sweep", SweepJson(Seed(1e6), "power=1MW:10000MW:1MW")), 3e5,
      std::chrono::milliseconds(0), [&] {
        signalled = std::chrono::steady_clock::now();
        ::kill(::getpid(), SIGTERM);
      });
  const auto returned = server.Join();
  const double stop_ms = std::chrono::duration<double, std::milli>(returned - signalled).count();
  std::printf("SIGTERM mid-answer: %zu of %zu bytes, then: %s; Run() returned after %.0f ms\n",
              a.body, a.declared, a.error.c_str(), stop_ms);
  EXPECT_TRUE(absl::StartsWith(a.head, "HTTP/1.1 200 OK")) << a.head;
  EXPECT_FALSE(a.whole);
  EXPECT_EQ(a.error, "Connection reset by peer");
  EXPECT_GE(stop_ms, 450);
  EXPECT_LT(stop_ms, 3000);
}

// Resident memory of this process, in bytes (VmRSS).
std::size_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    std::size_t kb = 0;
    if (absl::StartsWith(line, "VmRSS:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(6, line.size() - 9)), &kb)) {
      return kb << 10;
    }
  }
  return 0;
}

// How much resident memory 2,000 stalled bodies may add (they added 2.07 GB before the budget).
// Under AddressSanitizer its shadow memory and the quarantine of freed blocks move the figure by
// tens of MB from run to run (+106 to +202 MB seen, the bodies being the same 64 MiB).
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kStalledBodiesGrowthBound = 300'000'000;
#else
constexpr std::size_t kStalledBodiesGrowthBound = 200'000'000;
#endif

TEST(Server, TwoThousandStalledBodiesStayWithinTheByteBudget) {
  // 2,000 connections each send a header for a 1 MiB body and all but one byte of it, then stall
  // (they held 2.07 GB before). Bodies are reserved from a 64 MiB budget before they are read: 64
  // of them fit (64 x 1 MiB), wait, and get 408 at the 5 s timeout; every other connection gets 503
  // (byte budget, or the 1,024-connection cap) or is reset while still sending. Resident memory
  // grows by less than 200 MB (300 MB under AddressSanitizer).
  constexpr int kClients = 2000;
  struct rlimit files;
  ::getrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_cur < 2 * kClients + 256) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 2 * kClients + 256);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  if (files.rlim_cur < 2 * kClients + 256) GTEST_SKIP() << "too few file descriptors allowed";
  ServerOptions options = Running::TestOptions();
  options.timeout = std::chrono::milliseconds(5000);
  Running server(options);
  const std::size_t before = ResidentBytes();
  const std::string head = absl::StrCat(
      "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 1048576\r\n\r\n");
  const std::string body((1 << 20) - 1, ' ');
  std::vector<int> fds;
  std::vector<std::size_t> sent(kClients, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server.port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kClients; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0) << i;
    ::fcntl(fd, F_SETFL, O_NONBLOCK);
    ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    fds.push_back(fd);
  }
  // Up to three rounds of sending what each socket takes, without blocking.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kClients; ++i) {
      while (sent[i] < body.size()) {
        const ssize_t n =
            ::send(fds[i], body.data() + sent[i], body.size() - sent[i], MSG_NOSIGNAL);
        if (n <= 0) break;
        sent[i] += static_cast<std::size_t>(n);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Whether every connection was made and fed before the first body could time out.
  const bool sent_within_timeout = std::chrono::steady_clock::now() - start < options.timeout;
  const std::size_t during = ResidentBytes();
  std::printf("2,000 stalled bodies: resident %.1f MB before, %.1f MB while stalled (+%.1f MB)\n",
              before / 1e6, during / 1e6, (during - std::min(during, before)) / 1e6);
  EXPECT_LT(during, before + kStalledBodiesGrowthBound);
  // Every connection's outcome, read from all of them at once for at most 25 s.
  std::vector<std::string> got(kClients);
  std::vector<bool> open(kClients, true), was_reset(kClients, false);
  int pending = kClients;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(25);
  while (pending > 0 && std::chrono::steady_clock::now() < give_up) {
    std::vector<pollfd> polls;
    std::vector<int> which;
    for (int i = 0; i < kClients; ++i) {
      if (open[i]) {
        polls.push_back({fds[i], POLLIN, 0});
        which.push_back(i);
      }
    }
    if (::poll(polls.data(), polls.size(), 200) <= 0) continue;
    for (std::size_t k = 0; k < polls.size(); ++k) {
      if (polls[k].revents == 0) continue;
      const int i = which[k];
      char buffer[4096];
      const ssize_t n = ::recv(fds[i], buffer, sizeof(buffer), 0);
      if (n > 0) {
        got[i].append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      was_reset[i] = n < 0;
      open[i] = false;
      --pending;
    }
  }
  int timed_out = 0, refused = 0, reset = 0, other = 0;
  for (int i = 0; i < kClients; ++i) {
    if (absl::StartsWith(got[i], "HTTP/1.1 408 ")) {
      ++timed_out;
    } else if (absl::StartsWith(got[i], "HTTP/1.1 503 ")) {
      ++refused;
    } else if (got[i].empty() && was_reset[i]) {
      ++reset;
    } else {
      ++other;
    }
    ::close(fds[i]);
  }
  std::printf(
      "2,000 stalled bodies: %d x 408, %d x 503, %d reset, %d other (%d still open), in "
      "%.1f s\n",
      timed_out, refused, reset, other, pending,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // 64 bodies fit the budget. When making the 2,000 connections took longer than the timeout (a
  // loaded machine, the sanitizers), the first 64 time out before the last connections arrive and
  // free their reservations for later ones: more 408s then, never fewer.
  if (sent_within_timeout) {
    EXPECT_EQ(timed_out, 64);
  } else {
    EXPECT_GE(timed_out, 64);
  }
  EXPECT_EQ(timed_out + refused + reset, kClients);
  EXPECT_EQ(other, 0);
  Client after(server.port());
  EXPECT_EQ(after.Send(http::verb::get, "/v1/presets").result_int(), 200);
}

TEST(Server, CapsConnections) {
  ServerOptions options = Running::TestOptions();
  options.max_connections = 4;
  Running server(options);
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<Client>(server.port()));
    EXPECT_EQ(held.back()->Send(http::verb::get, "/v1/presets").result_int(), 200);
  }
  Client fifth(server.port());
  const Response r = fifth.Read();
  EXPECT_EQ(r.result_int(), 503);
  EXPECT_EQ(ErrorOf(r).error(),
            "the server has as many connections as it takes (--max_connections): retry shortly");
  held.pop_back();  // one leaves: a new one is served
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Client sixth(server.port());
  EXPECT_EQ(sixth.Send(http::verb::get, "/v1/presets").result_int(), 200);
}

// --- origin safety ------------------------------------------------------------------------------

// Sends raw request text and reads the answer.
Response RawSend(uint16_t port, const std::string& text) {
  Client c(port);
  c.Raw(text);
  return c.Read();
}

TEST(Server, RefusesOtherHostsOriginsAndBodiesWithoutAType) {
  ServerOptions options = Running::TestOptions();
  options.allowed_hosts = {"planner.internal"};
  options.allowed_origins = {"https://tools.example.com"};
  Running server(options);
  const uint16_t port = server.port();
  const std::string plan = Json(Seed(45.9e6));
  auto post = [&](const std::string& host, const std::string& extra, const std::string& type) {
    return RawSend(port,
                   absl::StrCat("POST /v1/plan HTTP/1.1\r\nHost: ", host, "\r\n", extra,
                                type.empty() ? "" : absl::StrCat("Content-Type: ", type, "\r\n"),
                                "Content-Length: ", plan.size(), "\r\n\r\n", plan));
  };
  const std::string self = absl::StrCat("127.0.0.1:", port);
  // DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1.
  Response r = post(absl::StrCat("evil.example:", port), "", "application/json");
  EXPECT_EQ(r.result_int(), 403);
  EXPECT_EQ(
      ErrorOf(r).error(),
      absl::StrCat("Host \"evil.example:", port,
                   "\" is not this server's address (a guard against DNS rebinding): use "
                   "http://127.0.0.1/, or start dcplan serve with --allow_host=evil.example"));
  r = RawSend(port, absl::StrCat("GET /v1/presets HTTP/1.1\r\nHost: evil.example\r\n\r\n"));
  EXPECT_EQ(r.result_int(), 403);
  // This server's address, localhost and the allowed name are fine; HTTP/1.1 must name one.
  EXPECT_EQ(post(self, "", "application/json").result_int(), 200);
  EXPECT_EQ(post(absl::StrCat("localhost:", port), "", "application/json").result_int(), 200);
  EXPECT_EQ(post("Planner.Internal", "", "application/json").result_int(), 200);
  // Not a port after the name, two Hosts: refused.
  EXPECT_EQ(
      post(absl::StrCat("127.0.0.1:", port, "@evil.example"), "", "application/json").result_int(),
      403);
  r = RawSend(port, "GET /v1/presets HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n");
  EXPECT_EQ(r.result_int(), 400);
  EXPECT_EQ(ErrorOf(r).error(), "the request has more than one Host header");
  r = RawSend(port, "GET /v1/presets HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.result_int(), 400);
  EXPECT_EQ(ErrorOf(r).error(), "an HTTP/1.1 request needs a Host header");
  // A web page elsewhere posting (fetch with mode no-cors): its Origin is refused; the page's own
  // Origin (http://<the Host>) and an allowed one are not.
  r = post(self, "Origin: https://evil.example\r\n", "application/json");
  EXPECT_EQ(r.result_int(), 403);
  EXPECT_EQ(ErrorOf(r).error(),
            "cross-origin request from \"https://evil.example\" refused: only this server's own "
            "page may call the API; start dcplan serve with --allow_origin=https://evil.example to "
            "allow it");
  EXPECT_EQ(post(self, "Origin: null\r\n", "application/json").result_int(), 403);
  EXPECT_EQ(
      post(self, absl::StrCat("Origin: http://", self, "\r\n"), "application/json").result_int(),
      200);
  EXPECT_EQ(post(self, "Origin: https://tools.example.com\r\n", "application/json").result_int(),
            200);
  // A Blob body without a type (what no-cors fetch sends) or text/plain: not read (415).
  r = post(self, "", "");
  EXPECT_EQ(r.result_int(), 415);
  EXPECT_EQ(ErrorOf(r).error(),
            "a POST needs a Content-Type: send application/json or application/x-protobuf (a body "
            "without one is not read)");
  EXPECT_EQ(post(self, "", "text/plain").result_int(), 415);
  // A Transfer-Encoding other than chunked: 501, and the connection closes.
  Client c(port);
  c.Raw(absl::StrCat("POST /v1/plan HTTP/1.1\r\nHost: ", self,
                     "\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\nxyz"));
  r = c.Read();
  EXPECT_EQ(r.result_int(), 501);
  EXPECT_EQ(ErrorOf(r).error(),
            "unsupported Transfer-Encoding \"gzip\": only chunked is understood");
  EXPECT_FALSE(r.keep_alive());
  EXPECT_TRUE(c.ClosedByServer());
}

}  // namespace
}  // namespace dcplan::serve
