#include "planner/model.h"

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::SeedWith;
using ::dcplan::testing::StatusIs;
using ::testing::HasSubstr;

TEST(BuildModel, AppliesTheSeedsFigures) {
  Model m = BuildModel(SeedWith("")).value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerPower()), 8 * 1400.0);
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.pue), 1.0);
  EXPECT_EQ(m.servers_per_rack, 4);
  EXPECT_EQ(m.racks_per_pod, 8);
  EXPECT_EQ(m.pods_per_building, 0);  // no building limit
}

TEST(BuildModel, DgxH100ClassServerDrawsTenPointTwoKilowatts) {
  // 8 x 700 W + 4,600 W = 10,200 W; a 41 kW rack holds 4 of them (40.8 kW).
  Model m = BuildModel(H100With("")).value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerPower()), 10200.0);
  EXPECT_EQ(m.servers_per_rack, 4);
  // Server price: 8 x $25,000 + $100,000.
  EXPECT_DOUBLE_EQ(units::InUsd(m.server.price), 300000.0);
  EXPECT_EQ(m.network.leaf_downlinks, 32);
}

TEST(BuildModel, RackPowerLimitCanBeTighterThanItsSpace) {
  // 40 kW / 10.2 kW = 3.9: three servers, though the rack has room for four.
  Model m = BuildModel(H100With("hardware { rack { power_limit_watts: 40000 } }")).value();
  EXPECT_EQ(m.servers_per_rack, 3);
  // And the rack's own overhead counts: (41,000 - 1,000) / 10,200 = 3.9: three again.
  m = BuildModel(H100With("hardware { rack { overhead_watts: 1000 } }")).value();
  EXPECT_EQ(m.servers_per_rack, 3);
}

TEST(BuildModel, MeasuredPowerReplacesTdpWhenGiven) {
  Model m = BuildModel(H100With("hardware { accelerator { measured_power_watts: 532 } }")).value();
  // 8 x 532 + 4,600 = 8,856 W.
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerPower()), 8856.0);
}

TEST(BuildModel, PodsPerBuildingFollowTheBuildingsCriticalPower) {
  // Seed pod: 8 racks x 4 servers x 11.2 kW = 358.4 kW; 10 MW / 358.4 kW = 27.9: 27 pods.
  Model m = BuildModel(SeedWith("site { building { critical_it_power_watts: 10e6 } }")).value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.pod_it_power), 358400.0);
  EXPECT_EQ(m.pods_per_building, 27);
}

TEST(SubstationCapacity, HoldsBackWhatRedundancyReserves) {
  // Two 50 MVA transformers at power factor 0.9: N = 90 MW, N+1 = 45 MW; four under 2N = 90 MW.
  Substation s;
  s.set_transformer_rating_va(50e6);
  s.set_transformer_count(2);
  s.set_power_factor(0.9);
  s.set_redundancy(REDUNDANCY_N);
  EXPECT_NEAR(units::InWatts(SubstationCapacity(s)), 90e6, 1e-6);
  s.set_redundancy(REDUNDANCY_N_PLUS_1);
  EXPECT_NEAR(units::InWatts(SubstationCapacity(s)), 45e6, 1e-6);
  s.set_transformer_count(4);
  s.set_redundancy(REDUNDANCY_2N);
  EXPECT_NEAR(units::InWatts(SubstationCapacity(s)), 90e6, 1e-6);
  // Default power factor 0.95: one 100 MVA transformer gives 95 MW.
  Substation d;
  d.set_transformer_rating_va(100e6);
  d.set_transformer_count(1);
  EXPECT_NEAR(units::InWatts(SubstationCapacity(d)), 95e6, 1e-6);
}

TEST(BuildModel, RejectsABuildingThatCannotHoldOnePod) {
  EXPECT_THAT(BuildModel(SeedWith("site { building { critical_it_power_watts: 100000 } }")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cannot hold one pod")));
}

TEST(BuildModel, RejectsAnInvalidRequestNamingTheField) {
  EXPECT_THAT(BuildModel(SeedWith("site { pue: 0.9 }")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("site.pue")));
}

TEST(BuildModel, SubstationCapAtNeedsARatedSubstation) {
  EXPECT_THAT(BuildModel(SeedWith("constraints { power_cap_at: POWER_CAP_AT_SUBSTATION }")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("site.substation")));
}

}  // namespace
}  // namespace dcplan
