#include "planner/mfu_error.h"

#include <cmath>
#include <string>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/mfu_error_data.h"
#include "planner/planner.h"
#include "planner/presets/models.h"
#include "planner/presets/presets.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::testing::HasSubstr;

TEST(MfuError, FamiliesFollowTheAcceleratorName) {
  // Only A100 and H100 have published runs in tests/data; every other preset's GPU is carried.
  EXPECT_EQ(FamilyOfAccelerator(LoadPreset("a100-dgx")->hardware().accelerator().name()),
            MfuFamily::kA100);
  EXPECT_EQ(FamilyOfAccelerator(LoadPreset("h100-dgx")->hardware().accelerator().name()),
            MfuFamily::kH100);
  for (const char* carried : {"h200-dgx", "b200-dgx", "gb200-nvl72", "mi300x", "seed"}) {
    EXPECT_EQ(FamilyOfAccelerator(LoadPreset(carried)->hardware().accelerator().name()),
              MfuFamily::kCarried)
        << carried;
  }
}

TEST(MfuError, IntervalIsTheLognormalsTenthAndNinetiethPercentile) {
  // sigma 0.1: exp(-+1.2815516 x 0.1) = 0.8797169 and 1.1367323, times 0.405 = 0.356285 and
  // 0.460375 (by hand with a calculator).
  MfuErrorSpread e;
  e.sigma = 0.1;
  e.basis = "test";
  const MfuInterval i = MfuIntervalOf(0.405, e);
  EXPECT_NEAR(i.p10(), 0.356285, 1e-6);
  EXPECT_NEAR(i.p90(), 0.460375, 1e-6);
  EXPECT_EQ(i.basis(), "test");
  EXPECT_FALSE(i.carried_over());
  // An MFU near 1 cannot reach past it; no MFU has no interval.
  EXPECT_EQ(MfuIntervalOf(0.95, e).p90(), 1.0);
  EXPECT_EQ(MfuIntervalOf(0.0, e).p90(), 0.0);
}

TEST(MfuError, SpreadsComeFromTheDataAndCarriedOverIsWider) {
  EXPECT_GT(kMfuErrorSigmaA100, 0);
  EXPECT_GT(kMfuErrorSigmaH100, 0);
  EXPECT_EQ(kMfuErrorRunsA100, 14);  // tests/data: 14 A100 rows, 8 H100 rows fitted
  EXPECT_EQ(kMfuErrorRunsH100, 8);
  PlanRequest h100 = *LoadPreset("h100-dgx");
  PlanRequest b200 = *LoadPreset("b200-dgx");
  *h100.mutable_workload() = *LoadModel("llama3-70b");
  *b200.mutable_workload() = *LoadModel("llama3-70b");
  const MfuErrorSpread h = MfuErrorFor(h100), b = MfuErrorFor(b200);
  EXPECT_EQ(h.sigma, kMfuErrorSigmaH100);
  EXPECT_FALSE(h.carried_over);
  EXPECT_THAT(h.basis, HasSubstr("leave-one-source-out on 8 published H100 runs from 3 sources"));
  // Carried: the H100 spread and the transfer error in quadrature.
  EXPECT_NEAR(b.sigma,
              std::sqrt(kMfuErrorSigmaH100 * kMfuErrorSigmaH100 +
                        kMfuErrorSigmaTransfer * kMfuErrorSigmaTransfer),
              1e-12);
  EXPECT_GT(b.sigma, h.sigma);
  EXPECT_TRUE(b.carried_over);
  EXPECT_THAT(b.basis, HasSubstr("carried over from the H100 fit"));
}

TEST(MfuError, TheToyCurveHasItsOwnSpread) {
  const MfuErrorSpread seed = MfuErrorFor(SeedWith(""));
  EXPECT_EQ(seed.sigma, kMfuErrorSigmaLogLinear);
  EXPECT_THAT(seed.basis, HasSubstr("log-linear"));
  // A real preset plans with the step model on its reference workload: the H100 family's spread;
  // with --mfu_model=log_linear (efficiency { log_linear }) the curve's.
  EXPECT_EQ(MfuErrorFor(*LoadPreset("h100-dgx")).sigma, kMfuErrorSigmaH100);
  PlanRequest curve = *LoadPreset("h100-dgx");
  curve.mutable_efficiency()->mutable_log_linear();
  EXPECT_EQ(MfuErrorFor(curve).sigma, kMfuErrorSigmaLogLinear);
  // A constant MFU on an H100 is judged as an H100 estimate.
  PlanRequest c = *LoadPreset("h100-dgx");
  c.mutable_efficiency()->mutable_constant()->set_mfu(0.4);
  EXPECT_EQ(MfuErrorFor(c).sigma, kMfuErrorSigmaH100);
}

TEST(SolvePlan, MfuIntervalBracketsThePointAndWidensForCarriedGpus) {
  auto width = [](const MfuInterval& i) { return i.p90() / i.p10(); };
  // Seed: 0.62 - 0.02 log2(G) at the solved size, bracketed by the toy spread.
  auto seed = SolvePlan(SeedWith("constraints { power_cap_watts: 14e6 }"));
  ASSERT_THAT(seed.status(), IsOk());
  EXPECT_LT(seed->mfu_interval().p10(), seed->compute().mfu());
  EXPECT_GT(seed->mfu_interval().p90(), seed->compute().mfu());
  EXPECT_NEAR(width(seed->mfu_interval()), std::exp(2 * kZ90 * kMfuErrorSigmaLogLinear), 1e-9);
  // The same workload on H100 and on B200 (carried over): both bracket their point, B200's wider.
  for (const char* preset : {"h100-dgx", "b200-dgx"}) {
    PlanRequest r = *LoadPreset(preset);
    *r.mutable_workload() = *LoadModel("llama3-8b");
    r.mutable_constraints()->set_power_cap_watts(2e6);
    auto plan = SolvePlan(r);
    ASSERT_THAT(plan.status(), IsOk()) << preset;
    ASSERT_TRUE(plan->has_training()) << preset;
    const MfuInterval& t = plan->training().mfu_interval();
    EXPECT_LT(t.p10(), plan->training().mfu()) << preset;
    EXPECT_GT(t.p90(), plan->training().mfu()) << preset;
    EXPECT_LT(plan->mfu_interval().p10(), plan->compute().mfu()) << preset;
    EXPECT_GT(plan->mfu_interval().p90(), plan->compute().mfu()) << preset;
    const double sigma = std::string(preset) == "b200-dgx"
                             ? std::hypot(kMfuErrorSigmaH100, kMfuErrorSigmaTransfer)
                             : kMfuErrorSigmaH100;
    EXPECT_NEAR(width(t), std::exp(2 * kZ90 * sigma), 1e-9) << preset;
    EXPECT_EQ(t.carried_over(), std::string(preset) == "b200-dgx");
  }
}

}  // namespace
}  // namespace dcplan
