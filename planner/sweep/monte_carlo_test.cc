#include "planner/sweep/monte_carlo.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/mfu_error.h"
#include "planner/mfu_error_data.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "planner/sweep/sensitivity.h"
#include "planner/test_requests.h"
#include "planner/uncertain.h"
#include "planner/validate.h"

namespace dcplan {
namespace {

using ::dcplan::testing::AddUncertain;
using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

ExplainOptions NoExplain() {
  ExplainOptions e;
  e.assumptions = e.influence = e.marginal = e.next_step = false;
  return e;
}

// The seed preset at 14 MW with site.pue = uniform(1.0, 2.0).
PlanRequest SeedPue(uint64_t samples, uint64_t seed) {
  PlanRequest r = testing::SeedUncertain("constraints { power_cap_watts: 14e6 }",
                                         "pue=uniform(1.0, 2.0)", samples);
  r.mutable_monte_carlo()->set_seed(seed);
  return r;
}

TEST(MonteCarlo, SeedPercentilesMatchTheHandFormula) {
  // 1.4 kW all-in per GPU, 8 per server: GPUs = 8 x floor(14 MW / (1.4 kW x PUE x 8)).
  //   PUE 1.5 (its P50): 8 x floor(833.3) = 6,664 GPUs (the P50 of GPUs);
  //   PUE 1.9 (its P90): 8 x floor(657.9) = 5,256 GPUs (the P10 of GPUs, GPUs fall as PUE rises);
  //   PUE 1.1 (its P10): 8 x floor(1136.4) = 9,088 GPUs (the P90).
  auto mc = MonteCarloRun::Create(SeedPue(100000, 1));
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_TRUE(mc->patched());
  auto d = mc->Summarize({});
  ASSERT_THAT(d.status(), IsOk());
  EXPECT_EQ(d->samples(), 100000u);
  EXPECT_NEAR(d->gpu_count().p50(), 6664, 0.01 * 6664);
  EXPECT_NEAR(d->gpu_count().p10(), 5256, 0.01 * 5256);
  EXPECT_NEAR(d->gpu_count().p90(), 9088, 0.01 * 9088);
  // The extremes: PUE 2.0 gives 8 x floor(625) = 5,000; PUE 1.0 gives 8 x 1,250 = 10,000.
  EXPECT_GE(d->gpu_count().min(), 5000);
  EXPECT_LE(d->gpu_count().max(), 10000);
  ASSERT_EQ(d->binding_size(), 1);
  EXPECT_EQ(d->binding(0).binding_constraint(), "BINDING_CONSTRAINT_FACILITY_POWER");
  EXPECT_DOUBLE_EQ(d->binding(0).fraction(), 1.0);
  EXPECT_FALSE(d->has_time_to_train_seconds());  // no workload
}

TEST(MonteCarlo, IsReproducibleAndTheSameOnAnyThreadCount) {
  auto mc = MonteCarloRun::Create(SeedPue(20000, 7));
  ASSERT_THAT(mc.status(), IsOk());
  std::string one, two, three;
  MonteCarloOptions o;
  o.threads = 1;
  o.block_samples = 3000;  // blocks that do not divide the samples
  ASSERT_TRUE(mc->Summarize(o)->SerializeToString(&one));
  o.threads = 2;
  ASSERT_TRUE(mc->Summarize(o)->SerializeToString(&two));
  o.threads = 3;
  o.block_samples = 1 << 15;
  ASSERT_TRUE(mc->Summarize(o)->SerializeToString(&three));
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  auto again = MonteCarloRun::Create(SeedPue(20000, 7));
  std::string four;
  ASSERT_TRUE(again->Summarize({})->SerializeToString(&four));
  EXPECT_EQ(one, four);
  // Another seed draws other samples: the mean moves.
  auto other = MonteCarloRun::Create(SeedPue(20000, 8));
  EXPECT_NE(mc->Summarize({})->gpu_count().mean(), other->Summarize({})->gpu_count().mean());
  EXPECT_NE(mc->InputValue(0, 0), other->InputValue(0, 0));
}

// Each patched sample is what SolvePlan says for the sampled request, output by output; with the
// efficiency model's error sampled (the default), MFU and realized compute are SolvePlan's times
// the sample's factor (capped at MFU 1) and the time to train SolvePlan's over it.
void ExpectSamplesMatchSolvePlan(const PlanRequest& request, int n) {
  auto mc = MonteCarloRun::Create(request);
  ASSERT_THAT(mc.status(), IsOk());
  std::vector<SampleResult> out(n);
  mc->SolveSamples(0, absl::MakeSpan(out));
  for (int i = 0; i < n; ++i) {
    auto plan = SolvePlan(mc->RequestAt(i), NoExplain());
    ASSERT_THAT(plan.status(), IsOk());
    ASSERT_TRUE(out[i].ok) << i;
    EXPECT_EQ(out[i].binding, plan->binding_constraint()) << i;
    const double mfu = plan->compute().mfu();
    const double f = mfu > 0 ? std::min(mc->MfuFactor(i), 1.0 / mfu) : 1.0;
    for (int k = 0; k < kNumSampleOutputs; ++k) {
      if (!plan->has_training() && (k == kOutTimeToTrainSeconds || k == kOutGoodput)) continue;
      double want = *PlanOutput(*plan, OutputName(k));
      if (k == kOutMfu || k == kOutRealizedFlopsPerSecond) want *= f;
      if (k == kOutTimeToTrainSeconds) want /= f;
      EXPECT_DOUBLE_EQ(out[i].outputs[k], want) << "sample " << i << " " << OutputName(k);
    }
  }
}

TEST(NormalQuantileApprox, MatchesTheStandardNormalTable) {
  // Standard normal table: z(0.9) = 1.2815515655, z(0.5) = 0, z(0.01) = -2.3263478740 (the tail
  // branch), z(0.999) = 3.0902323062.
  EXPECT_NEAR(NormalQuantileApprox(0.9), 1.2815515655, 1e-8);
  EXPECT_EQ(NormalQuantileApprox(0.5), 0.0);
  EXPECT_NEAR(NormalQuantileApprox(0.01), -2.3263478740, 1e-8);
  EXPECT_NEAR(NormalQuantileApprox(0.999), 3.0902323062, 1e-8);
}

TEST(MonteCarlo, ModelMfuErrorOffGivesSolvePlanExactly) {
  PlanRequest r = SeedPue(200, 3);
  r.mutable_monte_carlo()->set_model_mfu_error(false);
  auto mc = MonteCarloRun::Create(r);
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_EQ(mc->mfu_error_sigma(), 0.0);
  EXPECT_EQ(mc->MfuFactor(17), 1.0);
  ExpectSamplesMatchSolvePlan(r, 50);
  auto d = mc->Summarize({});
  ASSERT_THAT(d.status(), IsOk());
  EXPECT_EQ(d->mfu_error_sigma(), 0.0);
}

TEST(MonteCarlo, ModelMfuErrorIsLognormalAroundThePlan) {
  // The seed at 14 MW, PUE fixed at 1.5, only the electricity price uncertain: every sample has
  // 6,664 GPUs at the same MFU, so realized compute varies by the MFU factor alone. Its P10 and P90
  // are then the plan's times exp(-+1.2816 sigma) (a lognormal's quantiles), sigma the log-linear
  // curve's spread (planner/mfu_error_data.h); 100,000 samples put them within 1%.
  PlanRequest r = SeedWith("constraints { power_cap_watts: 14e6 } site { pue: 1.5 }");
  AddUncertain("electricity=uniform(0.05 USD/kWh, 0.10 USD/kWh)", &r);
  r.mutable_monte_carlo()->set_samples(100000);
  auto mc = MonteCarloRun::Create(r);
  ASSERT_THAT(mc.status(), IsOk());
  auto plan = SolvePlan(mc->median_request(), NoExplain());
  ASSERT_THAT(plan.status(), IsOk());
  auto d = mc->Summarize({});
  ASSERT_THAT(d.status(), IsOk());
  const double sigma = d->mfu_error_sigma();
  EXPECT_GT(sigma, 0.05);
  EXPECT_THAT(d->mfu_error_basis(), HasSubstr("log-linear"));
  const double realized = plan->compute().realized_flops_per_second();
  EXPECT_EQ(d->gpu_count().min(), d->gpu_count().max());
  EXPECT_NEAR(d->realized_flops_per_second().p50(), realized, 0.01 * realized);
  EXPECT_NEAR(d->realized_flops_per_second().p10(), realized * std::exp(-1.2815515655 * sigma),
              0.01 * realized);
  EXPECT_NEAR(d->realized_flops_per_second().p90(), realized * std::exp(1.2815515655 * sigma),
              0.01 * realized);
  // The plan's own interval says the same.
  EXPECT_NEAR(realized * plan->mfu_interval().p10() / plan->compute().mfu(),
              d->realized_flops_per_second().p10(), 0.01 * realized);
}

TEST(MonteCarlo, PatchedSamplesAreWhatSolvePlanGives) {
  auto base = LoadPreset("h100-dgx");
  ASSERT_THAT(base.status(), IsOk());
  PlanRequest power = *base;
  power.mutable_constraints()->set_power_cap_watts(50e6);
  AddUncertain("pue=triangular(1.1, 1.25, 1.5)", &power);
  AddUncertain("electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)", &power);
  AddUncertain("gpu_price=normal($27.5K, $3K)", &power);
  ExpectSamplesMatchSolvePlan(power, 300);
  PlanRequest budget = *base;
  budget.mutable_constraints()->set_budget_usd(2e9);
  AddUncertain("server_price=lognormal($300K, 0.1)", &budget);
  AddUncertain("wacc=discrete(6%:0.25, 8%:0.5, 10%:0.25)", &budget);
  AddUncertain("site.annual_pue=uniform(1.1, 1.2)", &budget);
  ExpectSamplesMatchSolvePlan(budget, 300);
}

TEST(MonteCarlo, RebuiltSamplesAreWhatSolvePlanGives) {
  auto base = LoadPreset("h100-dgx");
  ASSERT_THAT(base.status(), IsOk());
  base->mutable_constraints()->set_power_cap_watts(20e6);
  AddUncertain("hardware.server.overhead_watts=uniform(3.5kW, 6kW)", &*base);
  auto mc = MonteCarloRun::Create(*base);
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_FALSE(mc->patched());
  ExpectSamplesMatchSolvePlan(*base, 30);
}

TEST(MonteCarlo, NormalIsTruncatedToTheFieldsRange) {
  // site.pue must be >= 1: normal(1.0, 0.2) becomes the half normal above 1, whose median is
  // 1 + 0.2 x Phi^-1(0.75) = 1 + 0.2 x 0.674490 = 1.134898.
  PlanRequest r = SeedWith("constraints { power_cap_watts: 14e6 }");
  AddUncertain("pue=normal(1.0, 0.2)", &r);
  auto mc = MonteCarloRun::Create(r);
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_NEAR(mc->inputs()[0].Quantile(0.5), 1.134898, 1e-5);
  for (int i = 0; i < 2000; ++i) EXPECT_GE(mc->InputValue(i, 0), 1.0);
}

TEST(MonteCarlo, NormalQuantileMatchesTables) {
  // Standard normal table values.
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.9), 1.2815515655446004, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-9);
}

TEST(MonteCarlo, TriangularAndDiscreteQuantiles) {
  // triangular(1, 2, 4): F(2) = (2-1)/(4-1) = 1/3; its median solves (4-x)^2 / (3 x 2) = 1/2,
  // x = 4 - sqrt(3) = 2.267949.
  auto t = ParseUncertain("pue=triangular(1, 2, 4)");
  ASSERT_THAT(t.status(), IsOk());
  auto in = ResolveUncertain(*t);
  ASSERT_THAT(in.status(), IsOk());
  EXPECT_NEAR(in->Quantile(0.5), 4 - std::sqrt(3.0), 1e-12);
  EXPECT_DOUBLE_EQ(in->Quantile(1.0 / 3), 2.0);
  auto d = ResolveUncertain(*ParseUncertain("pue=discrete(1.4:0.5, 1.2:30%, 1.3:0.2)"));
  ASSERT_THAT(d.status(), IsOk());
  // Sorted: 1.2 (0.3), 1.3 (0.2, cumulative 0.5), 1.4 (0.5).
  EXPECT_DOUBLE_EQ(d->Quantile(0.1), 1.2);
  EXPECT_DOUBLE_EQ(d->Quantile(0.5), 1.3);
  EXPECT_DOUBLE_EQ(d->Quantile(0.9), 1.4);
}

TEST(MonteCarlo, TextWithUnitsIsReadInTheFieldsUnit) {
  auto u = ParseUncertain("electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)");
  ASSERT_THAT(u.status(), IsOk());
  EXPECT_EQ(u->path(), "costs.electricity_usd_per_kwh");
  EXPECT_DOUBLE_EQ(u->uniform().low(), 0.06);
  EXPECT_DOUBLE_EQ(u->uniform().high(), 0.12);
  auto p = ParseUncertain("power=uniform(40MW, 60MW)");
  ASSERT_THAT(p.status(), IsOk());
  EXPECT_DOUBLE_EQ(p->uniform().low(), 40e6);
  // The request file's text form is the same grammar.
  PlanRequest r = SeedWith(R"pb(constraints { power_cap_watts: 14e6 }
                                uncertain { path: "pue" text: "uniform(1.0, 2.0)" })pb");
  auto mc = MonteCarloRun::Create(r);
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_DOUBLE_EQ(mc->inputs()[0].Quantile(0.9), 1.9);
}

// Every kind of bad distribution, with its message.
TEST(MonteCarlo, BadDistributionsAreErrorsNamingThePath) {
  struct Case {
    const char* uncertain;
    const char* message;
  };
  const Case cases[] = {
      {R"pb(path: "site.pue"
            uniform { low: 2 high: 1.5 })pb",
       "uncertain[0] (site.pue): uniform low 2 must be <= high 1.5"},
      {R"pb(path: "pue"
            triangular { low: 1.2 mode: 1.6 high: 1.5 })pb",
       "uncertain[0] (site.pue): triangular needs low <= mode <= high, got 1.2, 1.6, 1.5"},
      {R"pb(path: "pue"
            normal { mean: 1.2 sd: -0.1 })pb",
       "uncertain[0] (site.pue): normal sd must be >= 0, got -0.1"},
      {R"pb(path: "pue"
            lognormal { median: 0 sigma: 0.1 })pb",
       "uncertain[0] (site.pue): lognormal median must be > 0, got 0"},
      {R"pb(path: "pue"
            lognormal { median: 1.2 sigma: -1 })pb",
       "uncertain[0] (site.pue): lognormal sigma must be >= 0, got -1"},
      {R"pb(path: "pue"
            discrete {})pb",
       "uncertain[0] (site.pue): discrete needs 1 to 1000 values, got 0"},
      {R"pb(path: "pue"
            discrete { values { value: 1.2 probability: 0 } })pb",
       "uncertain[0] (site.pue): discrete probability of 1.2 must be > 0, got 0"},
      {R"pb(path: "pue"
            discrete { values { value: 1.2 probability: 0.9 } })pb",
       "uncertain[0] (site.pue): discrete probabilities must sum to 1, got 0.9"},
      {R"pb(path: "pue")pb", "uncertain[0] (site.pue): no distribution given"},
      {R"pb(path: "site.cooling"
            uniform { low: 1 high: 2 })pb",
       "uncertain[0] (site.cooling): not a numeric field"},
      {R"pb(path: "site.peu"
            uniform { low: 1 high: 2 })pb",
       "uncertain[0]: no field \"site.peu\""},
      {R"pb(path: "pue"
            uniform { low: 0.5 high: 1.5 })pb",
       "uncertain[0] (site.pue): 0.5 is outside the field's range: site.pue"},
      {R"pb(path: "pue"
            normal { mean: 0.9 sd: 0.1 })pb",
       "uncertain[0] (site.pue): 0.9 is outside the field's range: site.pue"},
      {R"pb(path: "pue" text: "uniform(1.5)")pb",
       "uncertain[0]: site.pue: uniform takes 2 values, got \"1.5\""},
      {R"pb(path: "pue" text: "beta(1, 2)")pb",
       "uncertain[0]: site.pue: unknown distribution \"beta\""},
      {R"pb(path: "electricity" text: "uniform(0.06 USD/kWh, 12 MW)")pb",
       "uncertain[0]: costs.electricity_usd_per_kwh"},
  };
  for (const Case& c : cases) {
    PlanRequest r = SeedWith("constraints { power_cap_watts: 14e6 }");
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.uncertain, r.add_uncertain()));
    EXPECT_THAT(ValidateRequest(r),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.uncertain;
  }
  PlanRequest twice = SeedPue(10, 1);
  AddUncertain("site.pue=uniform(1.1, 1.2)", &twice);
  EXPECT_THAT(ValidateRequest(twice), StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("uncertain[1] (site.pue): given twice")));
}

TEST(MonteCarlo, ABillionSamplesAreRefused) {
  PlanRequest r = SeedPue(1000000000, 1);
  EXPECT_THAT(MonteCarloRun::Create(r).status(),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("monte_carlo.samples must be in [1, 1000000], got 1000000000")));
}

// The explicit fit of `request` with `path` set to `v`: its GPU count.
double GpusAt(PlanRequest request, absl::string_view path, double v) {
  request.clear_uncertain();
  request.clear_monte_carlo();
  auto f = ResolveField(path);
  EXPECT_THAT(SetNumber(*f, v, &request), IsOk());
  auto plan = SolvePlan(request, NoExplain());
  EXPECT_THAT(plan.status(), IsOk());
  return plan.ok() ? static_cast<double>(plan->counts().gpu_count()) : -1;
}

TEST(Sensitivity, PueLeadsUnderAPowerCapAndThePriceUnderABudget) {
  auto base = LoadPreset("h100-dgx");
  ASSERT_THAT(base.status(), IsOk());
  for (bool power_cap : {true, false}) {
    PlanRequest r = *base;
    if (power_cap) {
      r.mutable_constraints()->set_power_cap_watts(50e6);
    } else {
      r.mutable_constraints()->set_budget_usd(2e9);
    }
    AddUncertain("server_price=uniform($250K, $350K)", &r);
    AddUncertain("pue=uniform(1.1, 1.5)", &r);
    auto mc = MonteCarloRun::Create(r);
    ASSERT_THAT(mc.status(), IsOk());
    auto s = Sensitivity(*mc, "gpu_count");
    ASSERT_THAT(s.status(), IsOk());
    // The two inputs, then the MFU model's own error (h100-dgx's step model: the H100 spread),
    // which moves no GPU count under either cap and so stays last.
    ASSERT_EQ(s->size(), 3u);
    const SensitivityEntry& first = (*s)[0];
    const SensitivityEntry& second = (*s)[1];
    EXPECT_EQ((*s)[2].path(), kMfuModelErrorPath);
    EXPECT_EQ((*s)[2].swing(), 0);
    EXPECT_EQ(first.path(), power_cap ? "site.pue" : "hardware.server.price_usd");
    EXPECT_GT(first.swing(), 0);
    // Under a power cap the price moves nothing; under a capex budget the PUE moves nothing
    // (the facility is priced per IT watt, so the PUE does not enter capex).
    EXPECT_EQ(second.swing(), 0);
    // P10 and P90 of uniform(a, b): a + 0.1 (b - a) and a + 0.9 (b - a).
    const SensitivityEntry& pue = power_cap ? first : second;
    EXPECT_NEAR(pue.low_input(), 1.14, 1e-12);
    EXPECT_NEAR(pue.high_input(), 1.46, 1e-12);
    const SensitivityEntry& price = power_cap ? second : first;
    EXPECT_NEAR(price.low_input(), 260e3, 1e-6);
    EXPECT_NEAR(price.high_input(), 340e3, 1e-6);
    // Each figure is the explicit fit at that value, the other input at its median.
    PlanRequest at_median = mc->median_request();
    for (const SensitivityEntry& e : *s) {
      if (e.path() == kMfuModelErrorPath) continue;
      EXPECT_EQ(e.output_at_low(), GpusAt(at_median, e.path(), e.low_input()));
      EXPECT_EQ(e.output_at_high(), GpusAt(at_median, e.path(), e.high_input()));
      EXPECT_EQ(e.swing(), std::abs(e.output_at_high() - e.output_at_low()));
    }
  }
}

TEST(Sensitivity, AnyPlanOutputAndUnknownOnesAreErrors) {
  auto mc = MonteCarloRun::Create(SeedPue(10, 1));
  ASSERT_THAT(mc.status(), IsOk());
  EXPECT_THAT(Sensitivity(*mc, "power.facility_power_watts").status(), IsOk());
  EXPECT_THAT(
      Sensitivity(*mc, "gpus_per_dollar").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no output \"gpus_per_dollar\"")));
}

TEST(Sensitivity, TheMfuModelErrorSwingsRealizedComputeAndNotTheGpuCount) {
  // Seed at 14 MW, PUE uniform(1, 2): at the median PUE 1.5, 6,664 GPUs (as above) with MFU
  // 0.62 - 0.02 log2(6,664) = 0.36596 and 6,664 x 1 PFLOP/s x MFU realized. The log-linear curve's
  // spread is kMfuErrorSigmaLogLinear, so the MFU interval is MFU x exp(-+kZ90 sigma) and realized
  // compute at its ends is the median's times the same factors.
  auto mc = MonteCarloRun::Create(SeedPue(100, 1));
  ASSERT_THAT(mc.status(), IsOk());
  const double mfu = 0.62 - 0.02 * std::log2(6664.0);
  const double realized = 6664 * 1e15 * mfu;
  const double down = std::exp(-kZ90 * kMfuErrorSigmaLogLinear);
  const double up = std::exp(kZ90 * kMfuErrorSigmaLogLinear);

  auto flops = Sensitivity(*mc, "realized_flops_per_second");
  ASSERT_THAT(flops.status(), IsOk());
  ASSERT_EQ(flops->size(), 2u);
  const SensitivityEntry* model = nullptr;
  for (const SensitivityEntry& e : *flops) {
    if (e.path() == kMfuModelErrorPath) model = &e;
  }
  ASSERT_NE(model, nullptr);
  EXPECT_NEAR(model->low_input(), mfu * down, 1e-9);
  EXPECT_NEAR(model->high_input(), mfu * up, 1e-9);
  EXPECT_NEAR(model->output_at_low(), realized * down, 1e-6 * realized);
  EXPECT_NEAR(model->output_at_high(), realized * up, 1e-6 * realized);
  EXPECT_NEAR(model->swing(), realized * (up - down), 1e-6 * realized);
  EXPECT_GT(model->swing(), 0);

  // Time to train would move by the inverse factors; the GPU count not at all.
  EXPECT_EQ(MfuErrorExponent("time_to_train_seconds"), -1);
  EXPECT_EQ(MfuErrorExponent("gpu_count"), 0);
  auto gpus = Sensitivity(*mc, "gpu_count");
  ASSERT_THAT(gpus.status(), IsOk());
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].path(), "site.pue");
  EXPECT_EQ((*gpus)[1].path(), kMfuModelErrorPath);
  EXPECT_EQ((*gpus)[1].output_at_low(), 6664);
  EXPECT_EQ((*gpus)[1].output_at_high(), 6664);
  EXPECT_EQ((*gpus)[1].swing(), 0);

  // Without the model's error sampled there is no such row.
  PlanRequest off = SeedPue(100, 1);
  off.mutable_monte_carlo()->set_model_mfu_error(false);
  auto inputs_only = MonteCarloRun::Create(off);
  ASSERT_THAT(inputs_only.status(), IsOk());
  auto s = Sensitivity(*inputs_only, "realized_flops_per_second");
  ASSERT_THAT(s.status(), IsOk());
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].path(), "site.pue");
}

TEST(SolveUncertainPlan, ThePlanIsAtTheMediansWithTheDistributionBeside) {
  PlanRequest r = SeedPue(1000, 1);
  r.mutable_monte_carlo()->set_sensitivity(true);
  auto plan = SolveUncertainPlan(r, {}, NoExplain());
  ASSERT_THAT(plan.status(), IsOk());
  // The median of uniform(1, 2) is 1.5: 6,664 GPUs (as above).
  EXPECT_EQ(plan->counts().gpu_count(), 6664u);
  EXPECT_EQ(plan->distribution().samples(), 1000u);
  // PUE, then the log-linear curve's own error (no swing on GPUs).
  ASSERT_EQ(plan->sensitivity_size(), 2);
  EXPECT_EQ(plan->sensitivity(1).path(), kMfuModelErrorPath);
  EXPECT_EQ(plan->sensitivity_output(), "gpu_count");
  // P10 1.1 -> 9,088 GPUs, P90 1.9 -> 5,256 GPUs.
  EXPECT_EQ(plan->sensitivity(0).output_at_low(), 9088);
  EXPECT_EQ(plan->sensitivity(0).output_at_high(), 5256);
}

}  // namespace
}  // namespace dcplan

namespace dcplan {
namespace {

// h100-dgx at 50 MW with PUE uniform(1.1, 1.5) and electricity uniform(0.06, 0.12) USD/kWh.
PlanRequest H100Pair(uint64_t samples) {
  PlanRequest r = LoadPreset("h100-dgx").value();
  r.mutable_constraints()->set_power_cap_watts(50e6);
  *r.add_uncertain() = *ParseUncertain("pue=uniform(1.1, 1.5)");
  *r.add_uncertain() = *ParseUncertain("electricity=uniform(0.06 USD/kWh, 0.12 USD/kWh)");
  r.mutable_monte_carlo()->set_samples(samples);
  return r;
}

void Correlate(PlanRequest* r, const std::string& a, const std::string& b, double rank) {
  Correlation* c = r->mutable_monte_carlo()->add_correlations();
  c->set_a(a);
  c->set_b(b);
  c->set_rank(rank);
}

// Spearman's rho of inputs 0 and 1 over every sample: the Pearson correlation of their ranks.
double SampledSpearman(const MonteCarloRun& mc) {
  const int64_t n = mc.samples();
  std::vector<std::pair<double, int64_t>> a(n), b(n);
  for (int64_t s = 0; s < n; ++s) {
    a[s] = {mc.InputValue(s, 0), s};
    b[s] = {mc.InputValue(s, 1), s};
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<double> ra(n), rb(n);
  for (int64_t i = 0; i < n; ++i) {
    ra[a[i].second] = static_cast<double>(i);
    rb[b[i].second] = static_cast<double>(i);
  }
  const double mean = (n - 1) / 2.0;
  double sab = 0, saa = 0, sbb = 0;
  for (int64_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  return sab / std::sqrt(saa * sbb);
}

TEST(Correlations, SampledRankCorrelationMatchesTheTarget) {
  // The Gaussian copula with Pearson 2 sin(pi rho / 6) has Spearman rho exactly; 100,000 samples
  // put the sampled one within 0.02 (its sd is ~0.003).
  for (double rho : {0.6, -0.4, 0.9}) {
    PlanRequest r = H100Pair(100000);
    Correlate(&r, "site.pue", "costs.electricity_usd_per_kwh", rho);
    auto mc = MonteCarloRun::Create(r);
    ASSERT_THAT(mc.status(), IsOk());
    EXPECT_NEAR(SampledSpearman(*mc), rho, 0.02) << rho;
    // Each input keeps its own distribution: PUE's sampled median is still ~1.3.
    std::vector<double> pue(mc->samples());
    for (int64_t s = 0; s < mc->samples(); ++s) pue[s] = mc->InputValue(s, 0);
    EXPECT_NEAR(SummarizeValues(&pue).p50(), 1.3, 0.005);
  }
  // Without correlations the two are independent: rho ~0.
  auto plain = MonteCarloRun::Create(H100Pair(100000));
  EXPECT_NEAR(SampledSpearman(*plain), 0, 0.02);
}

TEST(Correlations, RhoZeroIsTheUncorrelatedRunExactly) {
  PlanRequest zero = H100Pair(5000);
  Correlate(&zero, "pue", "electricity", 0);
  std::string a, b;
  ASSERT_TRUE(MonteCarloRun::Create(H100Pair(5000))->Summarize({})->SerializeToString(&a));
  ASSERT_TRUE(MonteCarloRun::Create(zero)->Summarize({})->SerializeToString(&b));
  EXPECT_EQ(a, b);
}

TEST(Correlations, TheSameOnAnyThreadCountAndTheSolvedSampleIsTheDrawnOne) {
  PlanRequest r = H100Pair(6000);
  Correlate(&r, "pue", "electricity", 0.7);
  auto mc = MonteCarloRun::Create(r);
  ASSERT_THAT(mc.status(), IsOk());
  std::string one, three;
  MonteCarloOptions o;
  o.threads = 1;
  o.block_samples = 1000;
  ASSERT_TRUE(mc->Summarize(o)->SerializeToString(&one));
  o.threads = 3;
  ASSERT_TRUE(mc->Summarize(o)->SerializeToString(&three));
  EXPECT_EQ(one, three);
  // Sample by sample, what is solved is SolvePlan of RequestAt (the correlated values).
  std::vector<SampleResult> out(20);
  mc->SolveSamples(0, absl::MakeSpan(out));
  for (int i = 0; i < 20; ++i) {
    auto plan = SolvePlan(mc->RequestAt(i), NoExplain());
    ASSERT_THAT(plan.status(), IsOk());
    EXPECT_DOUBLE_EQ(out[i].outputs[kOutTcoUsd], plan->cost().tco_usd()) << i;
  }
}

TEST(Correlations, BadCorrelationsNameTheField) {
  auto error = [](const std::string& a, const std::string& b, double rank) {
    PlanRequest r = H100Pair(10);
    Correlate(&r, a, b, rank);
    return MonteCarloRun::Create(r).status();
  };
  EXPECT_THAT(error("pue", "electricity", 1.5),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "monte_carlo.correlations[0].rank must be in [-1, 1], got 1.5"));
  EXPECT_THAT(
      error("pue", "no.such.field", 0.5),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("monte_carlo.correlations[0].b: ")));
  EXPECT_THAT(error("pue", "wacc", 0.5),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "monte_carlo.correlations[0].b (costs.wacc) is not an uncertain input: "
                       "give it an uncertain distribution first"));
  EXPECT_THAT(error("pue", "site.pue", 0.5),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "monte_carlo.correlations[0]: a and b are the same input (site.pue)"));
  // rho = 1 makes the matrix singular; three pairwise ranks that contradict one another make it
  // indefinite: 0.9, 0.9 and -0.9 (Pearson 0.908, 0.908, -0.908: determinant < 0).
  EXPECT_THAT(error("pue", "electricity", 1.0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the correlation matrix is not positive definite")));
  PlanRequest three = H100Pair(10);
  *three.add_uncertain() = *ParseUncertain("gpu_price=uniform($20K, $40K)");
  Correlate(&three, "pue", "electricity", 0.9);
  Correlate(&three, "pue", "gpu_price", 0.9);
  Correlate(&three, "electricity", "gpu_price", -0.9);
  EXPECT_THAT(MonteCarloRun::Create(three).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the correlation matrix is not positive definite")));
}

}  // namespace
}  // namespace dcplan
