#include "examples/serve/api.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "examples/serve/page_data.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "proto/io.h"
#include "proto/plan.pb.h"
#include "proto/service.pb.h"
#include "proto/training.pb.h"

namespace dcplan::serve {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

std::string Json(const google::protobuf::Message& m) {
  return SerializeMessage(m, Encoding::kJson).value();
}

PlanRequest Seed(double power_cap_watts) {
  PlanRequest r = LoadPreset("seed").value();
  r.mutable_constraints()->set_power_cap_watts(power_cap_watts);
  return r;
}

template <typename T>
T Parse(const ApiResponse& r, Encoding encoding = Encoding::kJson) {
  T message;
  const absl::Status s = ParseMessage(r.body, encoding, &message);
  EXPECT_TRUE(s.ok()) << s << "\n" << r.body;
  return message;
}

ApiResponse Post(const Api& api, absl::string_view path, const std::string& body,
                 absl::string_view type = kJsonType, absl::string_view accept = "") {
  return api.Handle({"POST", path, type, accept, body});
}

ApiResponse Get(const Api& api, absl::string_view path) {
  return api.Handle({"GET", path, "", "", ""});
}

TEST(Api, ListsEveryPresetWithItsHeadlineFigures) {
  const Api api;
  const ApiResponse r = Get(api, "/v1/presets");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  const PresetList list = Parse<PresetList>(r);
  ASSERT_EQ(list.presets_size(), static_cast<int>(PresetNames().size()));
  for (int i = 0; i < list.presets_size(); ++i) {
    EXPECT_EQ(list.presets(i).name(), PresetNames()[i]);
  }
  // The seed: 8 GPUs of 1 PFLOP/s and 1.4 kW all-in, so 8 x 1.4 = 11.2 kW a server, PUE 1.
  for (const PresetList::Preset& p : list.presets()) {
    if (p.name() != "seed") continue;
    EXPECT_EQ(p.gpus_per_server(), 8u);
    EXPECT_DOUBLE_EQ(p.peak_flops_per_second_per_gpu(), 1e15);
    EXPECT_DOUBLE_EQ(p.server_power_watts(), 11200.0);
    EXPECT_THAT(p.summary(), HasSubstr("1.00 PFLOP/s per GPU, 11.2 kW per server, PUE 1.00"));
  }
}

TEST(Api, GivesAPresetAsTheRequestItIs) {
  const Api api;
  const ApiResponse r = Get(api, "/v1/presets/h100-dgx");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(MessageDifferencer::Equals(Parse<PlanRequest>(r), LoadPreset("h100-dgx").value()));
  const ApiResponse missing = Get(api, "/v1/presets/h900");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("unknown preset \\\"h900\\\"; known presets: a100-dgx"));
}

TEST(Api, PlanIsWhatFitSolves) {
  const Api api;
  // 45.9 MW / 11.2 kW per seed server = 4,098.2: 4,098 servers, 32,784 GPUs (README, cli_test).
  const ApiResponse r = Post(api, "/v1/plan", Json(Seed(45.9e6)));
  ASSERT_EQ(r.status, 200) << r.body;
  const Plan plan = Parse<Plan>(r);
  EXPECT_EQ(plan.counts().gpu_count(), 32784u);
  EXPECT_EQ(plan.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_TRUE(MessageDifferencer::Equals(plan, SolvePlan(Seed(45.9e6)).value()));
  // A query string is ignored; the JSON may carry a charset.
  EXPECT_EQ(Post(api, "/v1/plan?x=1", Json(Seed(45.9e6)), "application/json; charset=utf-8").body,
            r.body);
}

TEST(Api, TakesAndGivesBinaryProtos) {
  const Api api;
  std::string body;
  ASSERT_TRUE(Seed(46e6).SerializeToString(&body));
  const ApiResponse r = Post(api, "/v1/plan", body, kProtobufType, kProtobufType);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, kProtobufType);
  Plan plan;
  ASSERT_TRUE(plan.ParseFromString(r.body));
  // 46 MW / 11.2 kW = 4,107.1 servers: 32,856 GPUs (README).
  EXPECT_EQ(plan.counts().gpu_count(), 32856u);
  // Binary in, JSON out (no Accept), and JSON in, binary out.
  EXPECT_EQ(Post(api, "/v1/plan", body, kProtobufType).content_type, kJsonType);
  const ApiResponse b =
      Post(api, "/v1/plan", Json(Seed(46e6)), kJsonType, "text/html, application/x-protobuf");
  EXPECT_EQ(b.content_type, kProtobufType);
  Plan again;
  ASSERT_TRUE(again.ParseFromString(b.body));
  EXPECT_TRUE(MessageDifferencer::Equals(plan, again));
}

// What a server may answer on the connection's thread: the same answer Handle() gives for a plan
// without a workload or uncertain inputs (and for the page, a preset, an error), nothing for the
// rest, which a heavy thread answers.
TEST(Api, HandleIfLightAnswersPlainPlansAndLeavesHeavyWorkToThePool) {
  const Api api;
  auto light = [&](absl::string_view method, absl::string_view path, const std::string& body) {
    return api.HandleIfLight({method, path, kJsonType, "", body});
  };
  const std::string seed = Json(Seed(45.9e6));
  const std::optional<ApiResponse> plan = light("POST", "/v1/plan", seed);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->status, 200);
  EXPECT_EQ(plan->body, Post(api, "/v1/plan", seed).body);
  // 32,784 GPUs at 45.9 MW, as PlanIsWhatFitSolves works out.
  EXPECT_EQ(Parse<Plan>(*plan).counts().gpu_count(), 32784u);
  // ?explain= and ?set= are read as Handle() reads them.
  EXPECT_EQ(light("POST", "/v1/plan?explain=none&set=pue=1.2", seed)->body,
            Post(api, "/v1/plan?explain=none&set=pue=1.2", seed).body);
  // Not a plan, or refused before any work: answered as Handle() does.
  EXPECT_EQ(light("GET", "/v1/presets/seed", "")->body, Get(api, "/v1/presets/seed").body);
  EXPECT_EQ(light("POST", "/v1/plan", "{")->status, 400);
  // Heavy: a workload (a parallelism search), uncertain inputs (a Monte Carlo run), a sweep, and a
  // body past kLightBodyBytes.
  PlanRequest with_workload = Seed(45.9e6);
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "layers: 32 hidden: 4096 heads: 32 vocab: 50257 seq_len: 2048 global_batch_tokens: 4194304",
      with_workload.mutable_workload()));
  EXPECT_FALSE(light("POST", "/v1/plan", Json(with_workload)).has_value());
  PlanRequest uncertain = Seed(45.9e6);
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 1.2)")pb", uncertain.add_uncertain()));
  EXPECT_FALSE(light("POST", "/v1/plan", Json(uncertain)).has_value());
  EXPECT_FALSE(light("POST", "/v1/sweep", "{}").has_value());
  PlanRequest large = Seed(45.9e6);
  large.set_name(std::string(kLightBodyBytes, 'x'));
  EXPECT_FALSE(light("POST", "/v1/plan", Json(large)).has_value());
}

TEST(Api, ScaleGivesTheSeedChaptersRows) {
  const Api api;
  ScaleRequest request;
  *request.mutable_request() = LoadPreset("seed").value();
  request.add_gpu_counts(32768);
  request.add_gpu_counts(1);
  const ApiResponse r = Post(api, "/v1/scale", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  const ScaleReport report = Parse<ScaleReport>(r);
  ASSERT_EQ(report.rows_size(), 2);
  // 32,768 GPUs: 32.768 EFLOP/s peak, MFU 0.62 - 0.02 x 15 = 0.32, realized 10.486 EFLOP/s,
  // 32,768 x 1.4 kW = 45.875 MW. One GPU: MFU 0.62.
  const ScaleRow& big = report.rows(0);
  EXPECT_EQ(big.counts().gpu_count(), 32768u);
  EXPECT_DOUBLE_EQ(big.compute().peak_flops_per_second(), 32768e15);
  EXPECT_NEAR(big.compute().mfu(), 0.32, 1e-12);
  EXPECT_NEAR(big.compute().realized_flops_per_second(), 0.32 * 32768e15, 1e6);
  EXPECT_DOUBLE_EQ(big.power().facility_power_watts(), 32768 * 1400.0);
  EXPECT_NEAR(report.rows(1).compute().mfu(), 0.62, 1e-12);
}

TEST(Api, ScaleRefusesSizesOutOfRangeNamingTheSize) {
  const Api api({.max_sweep_points = 100000, .max_scale_sizes = 3});
  ScaleRequest request;
  *request.mutable_request() = LoadPreset("seed").value();
  request.add_gpu_counts(8);
  request.add_gpu_counts(0);
  ApiResponse r = Post(api, "/v1/scale", Json(request));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).field(), "gpu_counts[1]");
  EXPECT_THAT(r.body, HasSubstr("gpu_counts[1] must be in [1, 1000000000000], got 0"));
  for (int i = 0; i < 3; ++i) request.add_gpu_counts(8);
  r = Post(api, "/v1/scale", Json(request));
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("gpu_counts has 5 sizes; this server evaluates at most 3"));
  request.clear_gpu_counts();
  EXPECT_THAT(Post(api, "/v1/scale", Json(request)).body, HasSubstr("at least one cluster size"));
}

TEST(Api, CompareRanksPresetsUnderTheSameCaps) {
  const Api api;
  CompareRequest request;
  request.add_presets("h100-dgx");
  request.add_presets("b200-dgx");
  request.mutable_constraints()->set_power_cap_watts(100e6);
  const ApiResponse r = Post(api, "/v1/compare", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  const Comparison c = Parse<Comparison>(r);
  ASSERT_EQ(c.plans_size(), 2);
  // README's compare table at 100 MW: b200-dgx (32,608 GPUs) above h100-dgx (44,640), as
  // `dcplan compare` prints them.
  EXPECT_EQ(c.plans(0).name(), "b200-dgx");
  EXPECT_EQ(c.plans(0).counts().gpu_count(), 32608u);
  EXPECT_EQ(c.plans(1).counts().gpu_count(), 44640u);
  request.add_presets("h900");
  const ApiResponse bad = Post(api, "/v1/compare", Json(request));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(bad).field(), "presets[2]");
}

TEST(Api, TrainPlansAJobAsTheLibraryDoes) {
  const Api api;
  TrainRequest request;
  *request.mutable_request() = LoadPreset("h100-dgx").value();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "layers: 32 hidden: 4096 heads: 32 vocab: 50257 seq_len: 2048 global_batch_tokens: 4194304 "
      "parallelism { tp: 8 pp: 1 dp: 8 }",
      request.mutable_request()->mutable_workload()));
  request.set_gpus(64);
  const ApiResponse r = Post(api, "/v1/train", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  const TrainingPlan plan = Parse<TrainingPlan>(r);
  // The split asked for; MFU strictly between 0 and 1; the breakdown adds up to the step.
  EXPECT_EQ(plan.tp() * plan.pp() * plan.dp(), 64u);
  EXPECT_EQ(plan.tp(), 8u);
  EXPECT_GT(plan.mfu(), 0.05);
  EXPECT_LT(plan.mfu(), 1.0);
  request.set_gpus(0);
  const ApiResponse bad = Post(api, "/v1/train", Json(request));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(bad).field(), "gpus");
  request.set_gpus(64);
  request.mutable_request()->clear_workload();
  EXPECT_EQ(Parse<ErrorBody>(Post(api, "/v1/train", Json(request))).field(), "request.workload");
}

TEST(Api, SweepSolvesEveryPointWithinItsLimit) {
  const Api api({.max_sweep_points = 5, .max_scale_sizes = 10});
  SweepRequest request;
  *request.mutable_request() = LoadPreset("seed").value();
  request.add_vary("power=10MW:50MW:10MW");
  const ApiResponse r = Post(api, "/v1/sweep", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  const SweepResult result = Parse<SweepResult>(r);
  ASSERT_EQ(result.points_size(), 5);
  EXPECT_EQ(result.axes(0), "constraints.power_cap_watts");
  // 10 MW / 11.2 kW = 892.9 servers: 7,136 GPUs; 50 MW: 4,464 servers, 35,712 GPUs (README).
  EXPECT_EQ(result.points(0).gpu_count(), 7136u);
  EXPECT_EQ(result.points(0).values(0), "1e+07");  // watts, shortest exact form
  EXPECT_EQ(result.points(4).gpu_count(), 35712u);
  EXPECT_EQ(result.points(4).binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  // Six points are one over this server's limit of five.
  request.set_vary(0, "power=10MW:60MW:10MW");
  const ApiResponse big = Post(api, "/v1/sweep", Json(request));
  EXPECT_EQ(big.status, 400);
  EXPECT_THAT(big.body, HasSubstr("the grid has 6 points (6); a sweep may have at most 5"));
  EXPECT_EQ(Parse<ErrorBody>(big).field(), "vary");
  // 10^40 points, refused from the counts before any value is made (the test would run out of
  // memory otherwise).
  for (int i = 0; i < 5; ++i) request.add_vary("site.pue=1:2:0.0000001");
  const ApiResponse huge = Post(api, "/v1/sweep", Json(request));
  EXPECT_EQ(huge.status, 400);
  EXPECT_THAT(huge.body, HasSubstr("points (6 x 10000001 x"));
  request.clear_vary();
  request.add_vary("site.nothing=1,2");
  EXPECT_EQ(Parse<ErrorBody>(Post(api, "/v1/sweep", Json(request))).field(), "vary");
}

TEST(Api, BadRequestsGetTheValidatorsMessageAndTheField) {
  const Api api;
  PlanRequest request = Seed(50e6);
  request.mutable_site()->set_pue(0.9);
  const ApiResponse r = Post(api, "/v1/plan", Json(request));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.content_type, kJsonType);
  const ErrorBody error = Parse<ErrorBody>(r);
  EXPECT_EQ(error.error(), "site.pue must be >= 1.0, got 0.9");
  EXPECT_EQ(error.field(), "site.pue");
  // As written, for people reading curl's output: no "\u003e" for ">".
  EXPECT_EQ(r.body, "{\"error\": \"site.pue must be >= 1.0, got 0.9\", \"field\": \"site.pue\"}\n");
  // Inside a ScaleRequest the same field sits under "request".
  ScaleRequest scale;
  *scale.mutable_request() = request;
  scale.add_gpu_counts(8);
  EXPECT_EQ(Parse<ErrorBody>(Post(api, "/v1/scale", Json(scale))).field(), "request.site.pue");
  // No cap: a request-wide message, no field.
  const ApiResponse uncapped = Post(api, "/v1/plan", Json(LoadPreset("seed").value()));
  EXPECT_EQ(uncapped.status, 400);
  EXPECT_THAT(uncapped.body, HasSubstr("no cap to solve under"));
  EXPECT_EQ(uncapped.body.find("\"field\""), std::string::npos) << uncapped.body;
}

// ?set=PATH=VALUE takes --set's grammar (planner/request_edit.h) and errors carry the path the
// user typed as `field`: from the status's payload, not parsed out of its text.
TEST(Api, SetInTheQueryEditsTheRequestAsSetDoes) {
  const Api api;
  const PlanRequest seed = Seed(45.9e6);
  // 45.9 MW / (1.4 kW x 8 x 1.2) = 3,415.2 -> 3,415 servers = 27,320 GPUs at a PUE of 1.2.
  ApiResponse r = Post(api, "/v1/plan?set=site.pue%3D1.2", Json(seed));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse<Plan>(r).counts().gpu_count(), 27320u);
  r = Post(api, "/v1/plan?set=site.pue%3D0.9", Json(seed));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).field(), "site.pue");
  EXPECT_EQ(Parse<ErrorBody>(r).error(), "site.pue must be >= 1.0, got 0.9");
  r = Post(api, "/v1/plan?set=site.peu%3D1.2", Json(seed));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).field(), "site.peu");
  EXPECT_THAT(Parse<ErrorBody>(r).error(), HasSubstr("did you mean site.pue?"));
  r = Post(api, "/v1/plan?set=power%3D50000000", Json(seed));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).field(), "constraints.power_cap_watts");
  // The plan carries its assumptions ledger: the PUE the user set is the user's.
  r = Post(api, "/v1/plan?set=site.pue%3D1.2", Json(seed));
  bool found = false;
  const Plan plan = Parse<Plan>(r);
  for (const Assumption& a : plan.assumptions()) {
    if (a.path() == "site.pue") {
      found = true;
      EXPECT_EQ(a.origin(), ORIGIN_USER);
      EXPECT_EQ(a.value(), 1.2);
    }
  }
  EXPECT_TRUE(found);
  // ?explain=none: the same figures without the ledger, marginal values or next step.
  r = Post(api, "/v1/plan?explain=none", Json(seed));
  ASSERT_EQ(r.status, 200) << r.body;
  const Plan bare = Parse<Plan>(r);
  EXPECT_EQ(bare.counts().gpu_count(), 32784u);
  EXPECT_EQ(bare.assumptions_size(), 0);
  EXPECT_FALSE(bare.has_marginal());
  EXPECT_EQ(Post(api, "/v1/plan?explain=some", Json(seed)).status, 400);
}

TEST(Api, CompareAndSweepTakeSetForEveryEntryAndEditMakesACopy) {
  const Api api;
  // Two seeds at 45.9 MW, the second an edited copy at a PUE of 1.2: 32,784 GPUs at PUE 1.0
  // (45.9 MW / 11.2 kW = 4,098 servers) and 27,320 at 1.2 (SetInTheQuery... above).
  CompareRequest request;
  *request.add_requests() = Seed(45.9e6);
  ApiResponse r = Post(api, "/v1/compare?edit=site.pue%3D1.2", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  Comparison c = Parse<Comparison>(r);
  ASSERT_EQ(c.plans_size(), 2);
  EXPECT_EQ(c.plans(0).counts().gpu_count(), 32784u);
  EXPECT_EQ(c.plans(1).counts().gpu_count(), 27320u);
  EXPECT_EQ(c.plans(1).name(), "seed (edited: site.pue=1.2)");
  EXPECT_THAT(
      std::vector<std::string>(c.differing_assumptions().begin(), c.differing_assumptions().end()),
      ::testing::Contains("site.pue"));
  // set= applies to every entry: both at PUE 1.2, so both 27,320 GPUs.
  r = Post(api, "/v1/compare?set=pue%3D1.2&edit=site.pue%3D1.2", Json(request));
  ASSERT_EQ(r.status, 200) << r.body;
  c = Parse<Comparison>(r);
  EXPECT_EQ(c.plans(0).counts().gpu_count(), 27320u);
  EXPECT_EQ(c.plans(1).counts().gpu_count(), 27320u);
  r = Post(api, "/v1/compare?edit=site.peu%3D1.2", Json(request));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).field(), "edit");
  // Presets named in the body take set= too (their caps come from it): the seed at 45.9 MW.
  CompareRequest named;
  named.add_presets("seed");
  r = Post(api, "/v1/compare?set=power%3D45.9MW", Json(named));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse<Comparison>(r).plans(0).counts().gpu_count(), 32784u);
  // A sweep: set= edits the base request and every preset the preset axis loads.
  SweepRequest sweep;
  *sweep.mutable_request() = Seed(45.9e6);
  sweep.add_vary("preset=seed");
  r = Post(api, "/v1/sweep?set=power%3D45.9MW&set=pue%3D1.2", Json(sweep));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse<SweepResult>(r).points(0).gpu_count(), 27320u);
  // POST /v1/request: the body with the sets applied and validated.
  r = Post(api, "/v1/request?set=pue%3D1.2", Json(Seed(45.9e6)));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Parse<PlanRequest>(r).site().pue(), 1.2);
  r = Post(api, "/v1/request?set=pue%3D0.9", Json(Seed(45.9e6)));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Parse<ErrorBody>(r).error(), "site.pue must be >= 1.0, got 0.9");
}

TEST(Api, MalformedBodiesAndWrongMethodsAndTypes) {
  const Api api;
  ApiResponse r = Post(api, "/v1/plan", "{\"site\": {\"pue\": ");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("dcplan.PlanRequest"));
  r = Post(api, "/v1/plan", "{\"sight\": {}}");
  EXPECT_EQ(r.status, 400);
  r = Post(api, "/v1/plan", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("the request has no body"));
  r = Post(api, "/v1/plan", "\x01\x02\xff", kProtobufType);
  EXPECT_EQ(r.status, 400);
  r = Post(api, "/v1/plan", "a=1", "application/x-www-form-urlencoded");
  EXPECT_EQ(r.status, 415);
  r = api.Handle({"GET", "/v1/plan", "", "", ""});
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.allow, "POST");
  r = api.Handle({"POST", "/v1/presets", kJsonType, "", "{}"});
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.allow, "GET, HEAD");
  r = Get(api, "/v2/plan");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr("no such path: /v2/plan"));
}

TEST(Api, ServesTheEmbeddedPage) {
  const Api api;
  ASSERT_FALSE(PageAssets().empty());
  for (const PageAsset& asset : PageAssets()) {
    const ApiResponse r = Get(api, asset.path);
    EXPECT_EQ(r.status, 200) << asset.path;
    EXPECT_EQ(r.content_type, asset.content_type);
    EXPECT_EQ(r.body, asset.body);
  }
  EXPECT_EQ(Get(api, "/").content_type, "text/html; charset=utf-8");
}

TEST(ErrorResponse, IsJsonWhateverTheMessageHolds) {
  // Quotes, backslashes, control characters and broken UTF-8 (from a user's file name, say) all
  // come out as JSON that parses back to the message, the broken byte as U+FFFD.
  const ApiResponse r = ErrorResponse(400, "a \"b\" \\ \n\x01 caf\xc3\xa9 \xff!", "x");
  ErrorBody e;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &e).ok()) << r.body;
  EXPECT_EQ(e.error(), "a \"b\" \\ \n\x01 caf\xc3\xa9 \xef\xbf\xbd!");
  EXPECT_EQ(e.field(), "x");
}

}  // namespace
}  // namespace dcplan::serve
