// POST /v1/plan with uncertain inputs: the plan at their medians with its distributions.
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "examples/serve/api.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "proto/io.h"
#include "proto/plan.pb.h"
#include "proto/service.pb.h"
#include "proto/training.pb.h"

namespace dcplan::serve {
namespace {

using ::testing::HasSubstr;

// The seed preset at 14 MW with `uncertain` (one entry, as text format) and 20,000 samples, as
// JSON.
std::string SeedJson(absl::string_view uncertain) {
  PlanRequest r = LoadPreset("seed").value();
  r.mutable_constraints()->set_power_cap_watts(14e6);
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(std::string(uncertain), r.add_uncertain()));
  r.mutable_monte_carlo()->set_samples(20000);
  return SerializeMessage(r, Encoding::kJson).value();
}

TEST(ApiUncertainty, PlanCarriesTheDistributions) {
  const Api api;
  const ApiResponse r = api.Handle({"POST", "/v1/plan", kJsonType, "",
                                    SeedJson(R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb")});
  ASSERT_EQ(r.status, 200) << r.body;
  Plan plan;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &plan).ok()) << r.body;
  // Seed: GPUs = 8 x floor(14 MW / (1.4 kW x PUE x 8)): PUE 1.5 (the median) gives 6,664; the P10
  // of GPUs is at PUE 1.9 (5,256) and the P90 at PUE 1.1 (9,088), each within 1%.
  EXPECT_EQ(plan.counts().gpu_count(), 6664u);
  EXPECT_EQ(plan.distribution().samples(), 20000u);
  EXPECT_NEAR(plan.distribution().gpu_count().p50(), 6664, 67);
  EXPECT_NEAR(plan.distribution().gpu_count().p10(), 5256, 53);
  EXPECT_NEAR(plan.distribution().gpu_count().p90(), 9088, 91);
  EXPECT_THAT(r.body, HasSubstr("\"distribution\""));
  EXPECT_THAT(r.body, HasSubstr("\"gpu_count\""));
}

TEST(ApiUncertainty, ABadDistributionIsA400NamingThePath) {
  const Api api;
  const ApiResponse r = api.Handle(
      {"POST", "/v1/plan", kJsonType, "", SeedJson(R"pb(path: "site.pue"
                                                        uniform { low: 2 high: 1.5 })pb")});
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("uncertain[0] (site.pue): uniform low 2 must be <= high 1.5"));
}

TEST(ApiUncertainty, SamplesArePricedAgainstTheWorkBudget) {
  // 20,000 patched samples (the PUE only patches the model) at 16 a unit: 1,250 units, plus 1 for
  // the plan: 1,251, over a budget of 1,000 and under one of 2,000.
  ApiOptions small;
  small.max_work_units = 1000;
  const std::string body = SeedJson(R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb");
  const ApiResponse over = Api(small).Handle({"POST", "/v1/plan", kJsonType, "", body});
  EXPECT_EQ(over.status, 422) << over.body;
  EXPECT_THAT(over.body, HasSubstr("asks for 1251 work units (a plan and 20000 Monte Carlo "
                                   "samples, 16 a unit)"));
  small.max_work_units = 2000;
  EXPECT_EQ(Api(small).Handle({"POST", "/v1/plan", kJsonType, "", body}).status, 200);
  // A field the model is rebuilt for (the GPU's TDP): a whole plan per sample, 20,001 units.
  const ApiResponse rebuilt = Api(small).Handle(
      {"POST", "/v1/plan", kJsonType, "", SeedJson(R"pb(path: "hardware.accelerator.tdp_watts"
                                                        text: "uniform(900 W, 1100 W)")pb")});
  EXPECT_EQ(rebuilt.status, 422) << rebuilt.body;
  EXPECT_THAT(rebuilt.body, HasSubstr("asks for 20001 work units"));
}

TEST(ApiUncertainty, TheDeadlineStopsAMonteCarloRun) {
  ApiOptions late;
  late.max_request_time = std::chrono::milliseconds(0);
  const ApiResponse r =
      Api(late).Handle({"POST", "/v1/plan", kJsonType, "",
                        SeedJson(R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb")});
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_THAT(r.body, HasSubstr("ran past this server's limit"));
}

TEST(ApiUncertainty, MoreThreadsGiveTheSameDistributions) {
  ApiOptions two;
  two.monte_carlo_threads = 2;
  const std::string body = SeedJson(R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb");
  const ApiResponse a = Api().Handle({"POST", "/v1/plan", kJsonType, "", body});
  const ApiResponse b = Api(two).Handle({"POST", "/v1/plan", kJsonType, "", body});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.body, b.body);
}

TEST(ApiUncertainty, PlanCarriesTheMfuIntervalAndTheSampledModelError) {
  const ApiResponse r = Api().Handle({"POST", "/v1/plan", kJsonType, "",
                                      SeedJson(R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb")});
  ASSERT_EQ(r.status, 200) << r.body;
  Plan plan;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &plan).ok()) << r.body;
  EXPECT_LT(plan.mfu_interval().p10(), plan.compute().mfu());
  EXPECT_GT(plan.mfu_interval().p90(), plan.compute().mfu());
  EXPECT_GT(plan.distribution().mfu_error_sigma(), 0);
  EXPECT_THAT(plan.distribution().mfu_error_basis(), HasSubstr("log-linear"));
}

TEST(ApiUncertainty, TrainCarriesTheDistributionsAndIsPriced) {
  // Llama 3 8B on 64 H100s with uncertain tokens: the split is searched once (4,000 units) and each
  // of 500 samples evaluates it (1 unit): 4,500 units, refused under a budget of 4,000.
  TrainRequest t;
  t.set_gpus(64);
  *t.mutable_request() = LoadPreset("h100-dgx").value();
  *t.mutable_request()->mutable_workload() = LoadModel("llama3-8b").value();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(path: "workload.train_tokens"
                                                                 text: "uniform(1e12, 3e12)")pb",
                                                            t.mutable_request()->add_uncertain()));
  t.mutable_request()->mutable_monte_carlo()->set_samples(500);
  const std::string body = SerializeMessage(t, Encoding::kJson).value();
  const ApiResponse r = Api().Handle({"POST", "/v1/train", kJsonType, "", body});
  ASSERT_EQ(r.status, 200) << r.body;
  TrainingPlan plan;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &plan).ok()) << r.body;
  EXPECT_EQ(plan.distribution().samples(), 500u);
  EXPECT_LT(plan.distribution().time_to_train_seconds().p10(), plan.time_to_train_seconds());
  EXPECT_GT(plan.distribution().time_to_train_seconds().p90(), plan.time_to_train_seconds());
  EXPECT_LT(plan.mfu_interval().p10(), plan.mfu());
  ApiOptions small;
  small.max_work_units = 4000;
  const ApiResponse over = Api(small).Handle({"POST", "/v1/train", kJsonType, "", body});
  EXPECT_EQ(over.status, 422) << over.body;
  EXPECT_THAT(over.body, HasSubstr("asks for 4500 work units (a training plan and 500 Monte Carlo "
                                   "samples, 1 each)"));
}

// A ScaleRequest for the seed preset at `sizes` with site.pue = uniform(1.0, 2.0) and `samples`.
std::string SeedScaleJson(std::initializer_list<uint64_t> sizes, uint64_t samples) {
  ScaleRequest s;
  *s.mutable_request() = LoadPreset("seed").value();
  for (uint64_t g : sizes) s.add_gpu_counts(g);
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb", s.mutable_request()->add_uncertain()));
  s.mutable_request()->mutable_monte_carlo()->set_samples(samples);
  s.mutable_request()->mutable_monte_carlo()->set_model_mfu_error(false);
  return SerializeMessage(s, Encoding::kJson).value();
}

TEST(ApiUncertainty, ScaleRowsCarryTheirDistributions) {
  // 8,192 seed GPUs draw 8,192 x 1.4 kW = 11.4688 MW of IT power; facility = IT x PUE, so its
  // P10 (PUE 1.1) is 12.616 MW and its P90 (PUE 1.9) 21.791 MW, each within 1% on 20,000 samples.
  // No cap applies in scale: gpu_count is the size in every sample.
  const ApiResponse r =
      Api().Handle({"POST", "/v1/scale", kJsonType, "", SeedScaleJson({8192, 64}, 20000)});
  ASSERT_EQ(r.status, 200) << r.body;
  ScaleReport report;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &report).ok()) << r.body;
  ASSERT_EQ(report.rows_size(), 2);
  const Distributions& d = report.rows(0).distribution();
  EXPECT_EQ(d.samples(), 20000u);
  EXPECT_EQ(d.gpu_count().p10(), 8192);
  EXPECT_EQ(d.gpu_count().p90(), 8192);
  EXPECT_NEAR(d.facility_power_watts().p10(), 12.61568e6, 0.01 * 12.61568e6);
  EXPECT_NEAR(d.facility_power_watts().p90(), 21.79072e6, 0.01 * 21.79072e6);
  EXPECT_EQ(report.rows(1).distribution().gpu_count().p50(), 64);
  // The efficiency model's interval on every row (the seed's log-linear curve has one).
  EXPECT_LT(report.rows(0).mfu_interval().p10(), report.rows(0).compute().mfu());
  EXPECT_GT(report.rows(0).mfu_interval().p90(), report.rows(0).compute().mfu());
}

TEST(ApiUncertainty, ScaleSamplesArePricedAndBounded) {
  // 2 sizes x (1 unit for the row + 20,000 patched samples at 16 a unit = 1,250): 2,502 units.
  ApiOptions small;
  small.max_work_units = 2000;
  const ApiResponse over =
      Api(small).Handle({"POST", "/v1/scale", kJsonType, "", SeedScaleJson({8192, 64}, 20000)});
  EXPECT_EQ(over.status, 422) << over.body;
  EXPECT_THAT(over.body, HasSubstr("asks for 2502 work units (2 sizes, each a row and 20000 Monte "
                                   "Carlo samples, 16 a unit)"));
  // 101 sizes x 1,000,000 samples is over the bound of 10^8 evaluations, whatever the budget.
  ScaleRequest s;
  ASSERT_TRUE(ParseMessage(SeedScaleJson({8}, 1000000), Encoding::kJson, &s).ok());
  for (int i = 2; i <= 101; ++i) s.add_gpu_counts(8 * i);
  const ApiResponse big = Api().Handle(
      {"POST", "/v1/scale", kJsonType, "", SerializeMessage(s, Encoding::kJson).value()});
  EXPECT_EQ(big.status, 400) << big.body;
  EXPECT_THAT(big.body, HasSubstr("gpu_counts (101 sizes) x monte_carlo.samples (1000000)"));
}

TEST(ApiUncertainty, CompareRanksAtTheMediansWithProbabilityOfBest) {
  // Two seed options at 14 MW: "fixed" with PUE uniform(1.4, 1.4) (8 x floor(1250 / 1.4) = 7,136
  // GPUs) and "open" with PUE uniform(1.0, 2.0) (6,664 at its median PUE 1.5, so ranked second).
  // "open" has more GPUs than "fixed" when PUE <= 1250 / 893 = 1.39978 (compare_monte_carlo_test
  // works it out): its P(best) is 0.39978, within 0.01 on 20,000 samples. The top-level
  // monte_carlo sets the samples for both.
  CompareRequest c;
  PlanRequest open = LoadPreset("seed").value();
  open.set_name("open");
  open.mutable_constraints()->set_power_cap_watts(14e6);
  PlanRequest fixed = open;
  fixed.set_name("fixed");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb", open.add_uncertain()));
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.4, 1.4)")pb", fixed.add_uncertain()));
  *c.add_requests() = open;
  *c.add_requests() = fixed;
  c.mutable_monte_carlo()->set_samples(20000);
  const ApiResponse r = Api().Handle(
      {"POST", "/v1/compare", kJsonType, "", SerializeMessage(c, Encoding::kJson).value()});
  ASSERT_EQ(r.status, 200) << r.body;
  Comparison got;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &got).ok()) << r.body;
  ASSERT_EQ(got.plans_size(), 2);
  EXPECT_EQ(got.plans(0).name(), "fixed");
  EXPECT_EQ(got.plans(0).counts().gpu_count(), 7136u);
  EXPECT_EQ(got.plans(1).distribution().samples(), 20000u);
  ASSERT_EQ(got.p_best_size(), 2);
  EXPECT_NEAR(got.p_best(1), 0.39978, 0.01);
  // A top-level input for every entry: a preset list with one shared PUE range.
  CompareRequest shared;
  shared.add_presets("seed");
  shared.mutable_constraints()->set_power_cap_watts(14e6);
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb", shared.add_uncertain()));
  shared.mutable_monte_carlo()->set_samples(1000);
  const ApiResponse one = Api().Handle(
      {"POST", "/v1/compare", kJsonType, "", SerializeMessage(shared, Encoding::kJson).value()});
  ASSERT_EQ(one.status, 200) << one.body;
  ASSERT_TRUE(ParseMessage(one.body, Encoding::kJson, &got).ok());
  EXPECT_EQ(got.p_best_size(), 1);
  EXPECT_DOUBLE_EQ(got.p_best(0), 1.0);  // alone, always the best
  EXPECT_NEAR(got.plans(0).distribution().gpu_count().p10(), 5256, 53);
}

TEST(ApiUncertainty, SweepPointsCarryTheirDistributions) {
  // Seed with PUE uniform(1.0, 2.0) over power 14 MW and 28 MW: GPUs = 8 x floor(P / (1.4 kW x PUE
  // x 8)); at 28 MW the median (PUE 1.5) is 8 x 1,666 = 13,328, the P10 (PUE 1.9) 8 x 1,315 =
  // 10,520, the P90 (PUE 1.1) 8 x 2,272 = 18,176, each within 1% on 20,000 samples.
  SweepRequest s;
  *s.mutable_request() = LoadPreset("seed").value();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(path: "pue" text: "uniform(1.0, 2.0)")pb", s.mutable_request()->add_uncertain()));
  s.mutable_request()->mutable_monte_carlo()->set_samples(20000);
  s.add_vary("power=14MW,28MW");
  const ApiResponse r = Api().Handle(
      {"POST", "/v1/sweep", kJsonType, "", SerializeMessage(s, Encoding::kJson).value()});
  ASSERT_EQ(r.status, 200) << r.body;
  SweepResult got;
  ASSERT_TRUE(ParseMessage(r.body, Encoding::kJson, &got).ok()) << r.body;
  ASSERT_EQ(got.points_size(), 2);
  EXPECT_EQ(got.points(1).gpu_count(), 13328u);
  EXPECT_NEAR(got.points(1).distribution().gpu_count().p10(), 10520, 105);
  EXPECT_NEAR(got.points(1).distribution().gpu_count().p90(), 18176, 182);
  // An axis that is also uncertain: a 400 naming the input.
  s.set_vary(0, "pue=1.1,1.2");
  const ApiResponse bad = Api().Handle(
      {"POST", "/v1/sweep", kJsonType, "", SerializeMessage(s, Encoding::kJson).value()});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_THAT(bad.body, HasSubstr("uncertain[0] (site.pue) is also a sweep axis"));
}

}  // namespace
}  // namespace dcplan::serve
