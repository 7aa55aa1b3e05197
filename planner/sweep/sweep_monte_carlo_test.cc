#include "planner/sweep/sweep_monte_carlo.h"

#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/sweep/axis.h"
#include "planner/test_requests.h"
#include "planner/uncertain.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Sweep SeedSweep(const std::string& vary, uint64_t samples) {
  PlanRequest r = testing::SeedUncertain("", "pue=uniform(1.0, 2.0)", samples);
  auto axis = ParseSweepAxis(vary);
  EXPECT_THAT(axis.status(), IsOk());
  return *Sweep::Create(r, {*axis});
}

TEST(SweepMonteCarlo, EveryPointHasTheHandFormulasPercentiles) {
  // Seed: GPUs = 8 x floor(P / (1.4 kW x PUE x 8)), PUE uniform(1.0, 2.0), 100,000 samples (1%):
  //   14 MW: PUE 1.5 -> 6,664 (P50); 1.9 -> 5,256 (P10); 1.1 -> 9,088 (P90);
  //   28 MW: PUE 1.5 -> 8 x floor(1666.7) = 13,328; 1.9 -> 8 x 1,315 = 10,520; 1.1 -> 8 x 2,272
  //   = 18,176.
  Sweep sweep = SeedSweep("power=14MW,28MW", 100000);
  std::vector<UncertainSweepPoint> got;
  ASSERT_THAT(RunUncertainSweep(sweep, {},
                                [&](int64_t, const UncertainSweepPoint& p) {
                                  got.push_back(p);
                                  return absl::OkStatus();
                                }),
              IsOk());
  ASSERT_EQ(got.size(), 2u);
  ASSERT_THAT(got[0].status, IsOk());
  EXPECT_EQ(got[0].plan.counts().gpu_count(), 6664u);
  EXPECT_NEAR(got[0].distribution.gpu_count().p10(), 5256, 53);
  EXPECT_NEAR(got[0].distribution.gpu_count().p90(), 9088, 91);
  EXPECT_EQ(got[1].plan.counts().gpu_count(), 13328u);
  EXPECT_NEAR(got[1].distribution.gpu_count().p10(), 10520, 105);
  EXPECT_NEAR(got[1].distribution.gpu_count().p90(), 18176, 182);
}

TEST(SweepMonteCarlo, PercentileColumns) {
  EXPECT_THAT(
      SweepPercentileColumns(),
      ElementsAre("gpu_count_p10", "gpu_count_p50", "gpu_count_p90", "it_power_watts_p10",
                  "it_power_watts_p50", "it_power_watts_p90", "facility_power_watts_p10",
                  "facility_power_watts_p50", "facility_power_watts_p90", "mfu_p10", "mfu_p50",
                  "mfu_p90", "realized_flops_per_second_p10", "realized_flops_per_second_p50",
                  "realized_flops_per_second_p90", "capex_usd_p10", "capex_usd_p50",
                  "capex_usd_p90", "tco_usd_p10", "tco_usd_p50", "tco_usd_p90"));
  Distributions d;
  d.mutable_gpu_count()->set_p10(5256);
  std::string out;
  AppendSweepPercentiles(d, true, &out);
  EXPECT_EQ(out.substr(0, 9), ",5256,0,0");
  out.clear();
  AppendSweepPercentiles(d, false, &out);
  EXPECT_EQ(out, std::string(21, ','));
}

TEST(SweepMonteCarlo, RefusesAnAxisThatIsUncertainAndTooMuchWork) {
  auto consume = [](int64_t, const UncertainSweepPoint&) { return absl::OkStatus(); };
  EXPECT_THAT(
      RunUncertainSweep(SeedSweep("pue=1.1,1.2", 10), {}, consume),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("uncertain[0] (site.pue) is also a sweep axis: sample it or sweep it")));
  EXPECT_THAT(RunUncertainSweep(SeedSweep("power=1MW:200MW:log200", 1000000), {}, consume),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("the grid's 200 points x monte_carlo.samples (1000000) = 2e+08 "
                                 "solves, more than 10^8")));
}

}  // namespace
}  // namespace dcplan
