#include "planner/compare.h"

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

TEST(Compare, RanksByRealizedComputeAndAgreesWithSolvePlan) {
  // Under 20 MW the seed (1 PFLOP/s per 1.4 kW) realizes more than the H100-like preset
  // (0.99 PFLOP/s per 10.2 kW / 8 x 1.3 PUE + network), so it ranks first even listed second.
  std::vector<PlanRequest> requests = {H100With("constraints { power_cap_watts: 20e6 }"),
                                       SeedWith("constraints { power_cap_watts: 20e6 }")};
  Comparison c = Compare(requests).value();
  ASSERT_EQ(c.plans_size(), 2);
  EXPECT_EQ(c.plans(0).name(), "seed");
  EXPECT_EQ(c.plans(1).name(), "h100-like");
  EXPECT_GT(c.plans(0).compute().realized_flops_per_second(),
            c.plans(1).compute().realized_flops_per_second());
  // Each plan is what SolvePlan gives alone.
  Plan alone = SolvePlan(requests[0]).value();
  EXPECT_EQ(c.plans(1).SerializeAsString(), alone.SerializeAsString());
}

TEST(Compare, NamesTheRequestThatFailed) {
  std::vector<PlanRequest> requests = {SeedWith("constraints { power_cap_watts: 1e6 }"),
                                       H100With("")};  // no cap
  EXPECT_THAT(Compare(requests), StatusIs(absl::StatusCode::kFailedPrecondition,
                                          HasSubstr("h100-like: no cap to solve under")));
}

}  // namespace
}  // namespace dcplan
