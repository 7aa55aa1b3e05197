// File: tests/new_hardware_test.cc
//
// The presets issue 19 added (gb300-nvl72, b300-dgx, mi355x, gh200, vr200-nvl144) at a 100 MW
// facility cap, each count worked out by hand from the preset's own figures:
//
//   a full fat tree of T tiers on switches of radix k needs (2T - 1) / k switches and 2T optic ends
//   per NIC port, so one GPU's share of the network is (2T - 1) / k x switch W + 2T x optic W;
//   a server's IT power is its nameplate + its share of the rack overhead + its GPUs' network;
//   storage (3%) and frontend (1%) add 4%, 9 head nodes of 1 kW are fixed, and PUE scales it all:
//   servers = floor((100 MW - PUE x 9 kW) / (PUE x 1.04 x server IT power)).
//
// (The solver rounds switch counts up per tier; at these sizes that never costs a server, which is
// what the exact counts below check.)
#include <cstdint>
#include <string>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;

Plan FitAt100Mw(const std::string& preset, Cooling cooling) {
  absl::StatusOr<PlanRequest> r = LoadPreset(preset);
  EXPECT_THAT(r, IsOk());
  if (!r.ok()) return Plan();
  r->mutable_constraints()->set_power_cap_watts(100e6);
  r->mutable_site()->set_cooling(cooling);
  absl::StatusOr<Plan> plan = SolvePlan(*r);
  EXPECT_THAT(plan, IsOk()) << preset;
  return plan.ok() ? *plan : Plan();
}

TEST(NewHardware, Gb300Nvl72At100Megawatts) {
  // A rack: 72 x 1,400 + 45,600 = 146,400 W. Network (T = 3, k = 144, 3,000 W switches, 15 W
  // optics): 72 x (5 / 144 x 3,000 + 6 x 15) = 72 x 194.17 = 13,980 W. IT 160,380 W x 1.04 x 1.2
  // = 200,154 W a rack; (100e6 - 10,800) / 200,154 = 499.56: 499 racks, 35,928 GPUs.
  const Plan p = FitAt100Mw("gb300-nvl72", COOLING_DIRECT_LIQUID);
  EXPECT_EQ(p.network().tiers(), 3u);
  EXPECT_EQ(p.counts().server_count(), 499u);
  EXPECT_EQ(p.counts().gpu_count(), 35928u);
  EXPECT_EQ(p.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  // Peak: 35,928 x 2,500 TFLOP/s.
  EXPECT_DOUBLE_EQ(p.compute().peak_flops_per_second(), 35928 * 2500e12);
}

TEST(NewHardware, B300DgxAt100Megawatts) {
  // A DGX B300: 8 x 1,100 + 5,200 = 14,000 W, a quarter of the 150 W rack overhead (37.5 W), and
  // 8 x 194.17 = 1,553.3 W of network (T = 3, k = 144): 15,590.8 W x 1.04 x 1.55 (air) = 25,132 W;
  // (100e6 - 1.55 x 9,000) / 25,132 = 3,978.4: 3,978 servers, 31,824 GPUs.
  const Plan p = FitAt100Mw("b300-dgx", COOLING_AIR);
  EXPECT_EQ(p.network().tiers(), 3u);
  EXPECT_EQ(p.counts().server_count(), 3978u);
  EXPECT_EQ(p.counts().gpu_count(), 31824u);
}

TEST(NewHardware, Mi355xAt100Megawatts) {
  // A platform: 8 x 1,400 + 4,000 = 15,200 W, an eighth of 150 W (18.75 W), and 8 x (5 / 64 x 750
  // + 6 x 8.5) = 8 x 109.59 = 876.75 W of network (T = 3, k = 64): 16,095.5 W x 1.04 x 1.2 =
  // 20,087 W; (100e6 - 10,800) / 20,087 = 4,977.8: 4,977 platforms, 39,816 GPUs.
  const Plan p = FitAt100Mw("mi355x", COOLING_DIRECT_LIQUID);
  EXPECT_EQ(p.network().tiers(), 3u);
  EXPECT_EQ(p.counts().server_count(), 4977u);
  EXPECT_EQ(p.counts().gpu_count(), 39816u);
}

TEST(NewHardware, Gh200At100Megawatts) {
  // A node: 4 x 1,000 + 400 = 4,400 W, a 32nd of 150 W (4.69 W), and 4 x (7 / 64 x 500 + 8 x 5) =
  // 4 x 94.69 = 378.75 W of network (T = 4, k = 64): 4,783.4 W x 1.04 x 1.2 = 5,969.7 W;
  // (100e6 - 10,800) / 5,969.7 = 16,749.3: 16,749 nodes, 66,996 superchips.
  const Plan p = FitAt100Mw("gh200", COOLING_DIRECT_LIQUID);
  EXPECT_EQ(p.network().tiers(), 4u);
  EXPECT_EQ(p.counts().server_count(), 16749u);
  EXPECT_EQ(p.counts().gpu_count(), 66996u);
}

TEST(NewHardware, VeraRubinNvl144At100Megawatts) {
  // A rack (announced and estimated figures): 72 x 1,800 + 60,000 = 189,600 W, and 72 x (5 / 144 x
  // 6,000 + 6 x 25) = 72 x 358.33 = 25,800 W of network (T = 3, k = 144): 215,400 W x 1.04 x 1.2 =
  // 268,819 W; (100e6 - 10,800) / 268,819 = 371.96: 371 racks, 26,712 GPUs.
  const Plan p = FitAt100Mw("vr200-nvl144", COOLING_DIRECT_LIQUID);
  EXPECT_EQ(p.network().tiers(), 3u);
  EXPECT_EQ(p.counts().server_count(), 371u);
  EXPECT_EQ(p.counts().gpu_count(), 26712u);
}

TEST(NewHardware, GB300FitsFewerGpusThanGb200InTheSameFeed) {
  // 1,400 W against 1,200 W per GPU: fewer GPUs in 100 MW (35,928 against gb200-nvl72's count),
  // but more FP4 compute (15 against 10 PFLOP/s each).
  const Plan gb300 = FitAt100Mw("gb300-nvl72", COOLING_DIRECT_LIQUID);
  const Plan gb200 = FitAt100Mw("gb200-nvl72", COOLING_DIRECT_LIQUID);
  EXPECT_LT(gb300.counts().gpu_count(), gb200.counts().gpu_count());
  EXPECT_GT(gb300.counts().gpu_count() * 15.0, gb200.counts().gpu_count() * 10.0);
}

}  // namespace
}  // namespace dcplan
