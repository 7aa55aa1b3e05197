// dcplan serve over real sockets on loopback: every endpoint, the error statuses, and what a
// hostile or careless client does (load, stalls, disconnects, huge bodies, malformed HTTP).
#include "examples/serve/server.h"

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "examples/serve/api.h"
#include "gmock/gmock.h"
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
  explicit Running(ServerOptions options = TestOptions()) {
    server_ = Server::Start(options, &api_).value();
    thread_ = std::thread([this] { server_->Run(); });
  }
  ~Running() {
    server_->Stop();
    thread_.join();
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

 private:
  Api api_;
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
      "POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 104857600\r\n\r\n");
  c.Raw(std::string(64 << 10, ' '));
  Response r = c.Read();
  EXPECT_EQ(r.result_int(), 413);
  EXPECT_FALSE(r.keep_alive());
  // A chunked body has no length up front: refused once its chunks pass the limit.
  Client chunked(server.port());
  chunked.Raw(
      "POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
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
    c.Raw(
        absl::StrCat("GET / HTTP/1.1\r\nHost: x\r\nX-Big: ", std::string(20000, 'a'), "\r\n\r\n"));
    EXPECT_EQ(c.Read().result_int(), 431);
  }
  {
    // Expect: 100-continue (curl's habit for bodies over 1 KiB): the go-ahead, then the answer.
    Client c(server.port());
    const std::string body = Json(Seed(45.9e6));
    c.Raw(
        absl::StrCat("POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
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
  stalled.Raw("POST /v1/plan HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"na");
  // Others are answered at once meanwhile, on both threads.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    Client other(server.port());
    EXPECT_EQ(other.Send(http::verb::get, "/v1/presets").result_int(), 200);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  // The stalled one is cut off after the timeout (well before the test's own limit).
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
        absl::StrCat("POST /v1/sweep HTTP/1.1\r\nHost: x\r\nContent-Type: "
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

}  // namespace
}  // namespace dcplan::serve
