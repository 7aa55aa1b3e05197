#include "planner/fabric.h"

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(SizeFatTree, TwoTiersServeHalfRadixSquaredWithThreeHalvesRadixSwitches) {
  // k = 64, full bisection: k^2/2 = 2,048 hosts on k = 64 leaves + k/2 = 32 spines = 3k/2 = 96
  // switches.
  FabricSize f = SizeFatTree(2048, 64, 32);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.switches_per_tier[0], 64);
  EXPECT_EQ(f.switches_per_tier[1], 32);
  EXPECT_EQ(f.switch_count, 96);
  EXPECT_DOUBLE_EQ(FullBisectionHosts(64, 2), 2048.0);
}

TEST(SizeFatTree, ThreeTiersServeQuarterRadixCubedWithFiveQuartersRadixSquaredSwitches) {
  // k = 64: k^3/4 = 65,536 hosts; 5k^2/4 = 5,120 switches (2,048 leaf + 2,048 spine + 1,024 core).
  FabricSize f = SizeFatTree(65536, 64, 32);
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(f.switch_count, 5 * 64 * 64 / 4);
  EXPECT_EQ(f.switches_per_tier[2], 1024);
  EXPECT_DOUBLE_EQ(FullBisectionHosts(64, 3), 65536.0);
  // One more host needs a fourth tier.
  EXPECT_EQ(SizeFatTree(65537, 64, 32).tiers, 4);
}

TEST(SizeFatTree, MatchesTheNvidiaB200SuperPodOf4096Gpus) {
  // hardware_reference.md: NVIDIA's B200 SuperPOD of 4,096 GPUs uses 128 leaf + 128 spine + 64 core
  // switches (radix 64, one NIC per GPU).
  FabricSize f = SizeFatTree(4096, 64, 32);
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(f.switches_per_tier[0], 128);
  EXPECT_EQ(f.switches_per_tier[1], 128);
  EXPECT_EQ(f.switches_per_tier[2], 64);
  EXPECT_EQ(f.switch_count, 320);
  // Optics: 4,096 NIC ends + 4,096 leaf downlink ends + 2 x (128 x 32) x 2 inter-tier link ends.
  EXPECT_EQ(f.optic_count, 4096 + 4096 + 2 * 2 * 128 * 32);
}

TEST(SizeFatTree, SmallClustersNeedOneSwitchOrNone) {
  EXPECT_EQ(SizeFatTree(0, 64, 32).tiers, 0);
  EXPECT_EQ(SizeFatTree(0, 64, 32).switch_count, 0);
  FabricSize f = SizeFatTree(64, 64, 32);
  EXPECT_EQ(f.tiers, 1);
  EXPECT_EQ(f.switch_count, 1);
  EXPECT_EQ(SizeFatTree(65, 64, 32).tiers, 2);
}

TEST(SizeFatTree, OversubscribedLeavesNeedFewerSpines) {
  // k = 64 with 48 down / 16 up (3:1): 3,072 hosts need 64 leaves and 64 x 16 / 64 = 16 spines.
  FabricSize f = SizeFatTree(3072, 64, 48);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.switches_per_tier[0], 64);
  EXPECT_EQ(f.switches_per_tier[1], 16);
}

TEST(SizeFatTree, SwitchCountNeverDecreasesAsHostsGrow) {
  int64_t previous = 0;
  for (int64_t h = 0; h <= 70000; h += 7) {
    FabricSize f = SizeFatTree(h, 64, 32);
    ASSERT_GE(f.switch_count, previous) << "at " << h << " hosts";
    previous = f.switch_count;
  }
}

}  // namespace
}  // namespace dcplan
