#include "planner/sweep/scale_monte_carlo.h"

#include <cmath>
#include <string>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/mfu_error.h"
#include "planner/planner.h"
#include "planner/test_requests.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

using ::dcplan::testing::AddUncertain;
using ::dcplan::testing::IsOk;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

// The seed preset (1 PFLOP/s and 1.4 kW all-in per GPU, MFU = 0.62 - 0.02 log2 G) with
// site.pue = uniform(1.0, 2.0) and a power cap that scale must ignore.
PlanRequest SeedPue(uint64_t samples, bool model_error) {
  PlanRequest r = testing::SeedUncertain("constraints { power_cap_watts: 1e6 }",
                                         "pue=uniform(1.0, 2.0)", samples);
  r.mutable_monte_carlo()->set_model_mfu_error(model_error);
  return r;
}

TEST(ScaleMonteCarlo, FacilityPowerFollowsThePueAndTheCapIsIgnored) {
  // 8,192 GPUs x 1.4 kW = 11.4688 MW of IT power, whatever the PUE (far over the 1 MW cap, which
  // scale does not apply). Facility power = IT x PUE: P10 at PUE 1.1 is 12.616 MW, P50 at 1.5 is
  // 17.203 MW, P90 at 1.9 is 21.791 MW; 100,000 samples put each within 1%. MFU 0.62 - 0.02 x 13 =
  // 0.36, so realized compute 8,192 x 1e15 x 0.36 = 2.949e18 FLOP/s in every sample (no model error
  // sampled).
  auto report = ScaleUncertain(SeedPue(100000, false), {8192, 1024}, {});
  ASSERT_THAT(report.status(), IsOk());
  ASSERT_EQ(report->rows_size(), 2);
  const ScaleRow& row = report->rows(0);
  EXPECT_EQ(row.counts().gpu_count(), 8192);
  EXPECT_NEAR(row.power().facility_power_watts(), 11.4688e6 * 1.5, 1);  // at the median PUE
  const Distributions& d = row.distribution();
  EXPECT_EQ(d.samples(), 100000u);
  EXPECT_EQ(d.gpu_count().p10(), 8192);
  EXPECT_EQ(d.gpu_count().p90(), 8192);
  EXPECT_DOUBLE_EQ(d.it_power_watts().p10(), 11.4688e6);
  EXPECT_DOUBLE_EQ(d.it_power_watts().p90(), 11.4688e6);
  EXPECT_NEAR(d.facility_power_watts().p10(), 12.61568e6, 0.01 * 12.61568e6);
  EXPECT_NEAR(d.facility_power_watts().p50(), 17.2032e6, 0.01 * 17.2032e6);
  EXPECT_NEAR(d.facility_power_watts().p90(), 21.79072e6, 0.01 * 21.79072e6);
  EXPECT_NEAR(d.realized_flops_per_second().p10(), 2.949120e18, 1e6);
  EXPECT_NEAR(d.realized_flops_per_second().p90(), 2.949120e18, 1e6);
  EXPECT_EQ(d.binding_size(), 0);  // no cap applies
  // 1,024 GPUs: 1.43360 MW of IT power, P90 facility 1.9 x that = 2.72384 MW.
  EXPECT_EQ(report->rows(1).distribution().gpu_count().p50(), 1024);
  EXPECT_NEAR(report->rows(1).distribution().facility_power_watts().p90(), 2.72384e6,
              0.01 * 2.72384e6);
}

TEST(ScaleMonteCarlo, RealizedComputeCarriesTheModelError) {
  // With the efficiency model's own error sampled, each sample's MFU is the curve's times
  // exp(sigma Z): realized compute's P10 and P90 are 2.949e18 x exp(-+1.2816 sigma) (within 1% on
  // 100,000 samples), and the row's mfu_interval is 0.36 x exp(-+1.2816 sigma) exactly.
  auto report = ScaleUncertain(SeedPue(100000, true), {8192}, {});
  ASSERT_THAT(report.status(), IsOk());
  const ScaleRow& row = report->rows(0);
  const double sigma = row.distribution().mfu_error_sigma();
  ASSERT_GT(sigma, 0.05);
  EXPECT_EQ(sigma, MfuErrorFor(SeedWith("")).sigma);
  const double lo = 2.94912e18 * std::exp(-kZ90 * sigma), hi = 2.94912e18 * std::exp(kZ90 * sigma);
  EXPECT_NEAR(row.distribution().realized_flops_per_second().p10(), lo, 0.01 * lo);
  EXPECT_NEAR(row.distribution().realized_flops_per_second().p90(), hi, 0.01 * hi);
  EXPECT_NEAR(row.mfu_interval().p10(), 0.36 * std::exp(-kZ90 * sigma), 1e-12);
  EXPECT_NEAR(row.mfu_interval().p90(), 0.36 * std::exp(kZ90 * sigma), 1e-12);
  EXPECT_NEAR(row.distribution().mfu().p10(), row.mfu_interval().p10(),
              0.01 * row.mfu_interval().p10());
}

TEST(ScaleMonteCarlo, RowsWithoutUncertaintyCarryTheMfuInterval) {
  // A plain scale row has the model's interval too, the same as a plan at that size.
  auto report = Scale(SeedWith(""), {8192});
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_FALSE(report->rows(0).has_distribution());
  const double sigma = MfuErrorFor(SeedWith("")).sigma;
  EXPECT_NEAR(report->rows(0).mfu_interval().p10(), 0.36 * std::exp(-kZ90 * sigma), 1e-12);
}

TEST(ScaleMonteCarlo, TheSameOnAnyThreadCount) {
  std::string one, two;
  MonteCarloOptions o;
  o.threads = 1;
  o.block_samples = 777;
  ASSERT_TRUE(ScaleUncertain(SeedPue(5000, true), {64, 8192}, o)->SerializeToString(&one));
  o.threads = 3;
  o.block_samples = 1 << 15;
  ASSERT_TRUE(ScaleUncertain(SeedPue(5000, true), {64, 8192}, o)->SerializeToString(&two));
  EXPECT_EQ(one, two);
}

TEST(ScaleMonteCarlo, TooMuchWorkIsRefused) {
  // 2,000 sizes x 100,000 samples = 2e8 evaluations, over the bound of 10^8.
  EXPECT_THAT(CheckScaleMonteCarloWork(2000, 100000),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("gpu_counts (2000 sizes) x monte_carlo.samples (100000) = 2e+08 "
                                 "evaluations, more than 10^8")));
  EXPECT_THAT(CheckScaleMonteCarloWork(1000, 100000), IsOk());
}

}  // namespace
}  // namespace dcplan
