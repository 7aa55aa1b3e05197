#include "planner/fabric.h"

#include <utility>

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
  // planner/presets/SOURCES.md#b200-superpod-fabric: NVIDIA's B200 SuperPOD of 4,096 GPUs uses 128
  // leaf + 128 spine + 64 core switches (radix 64, one NIC per GPU).
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

TEST(SizeFatTree, SizingInPlaceForgetsTheLastFabric) {
  // Radix 4 with 2 down / 2 up: t tiers serve 2 x 4 x 2^(t-2) hosts, so 300 hosts need 8 tiers and
  // 8,193 need 13 (more than kMaxFabricTiers: no fit). Written over each other, in any order, each
  // equals its own fresh sizing, unused tiers zero.
  for (int64_t first : {int64_t{300}, int64_t{8193}, int64_t{3}, int64_t{0}}) {
    for (int64_t second : {int64_t{5}, int64_t{300}, int64_t{0}, int64_t{8193}, int64_t{40}}) {
      FabricSize f;
      SizeFatTree(first, 4, 2, &f);
      SizeFatTree(second, 4, 2, &f);
      const FabricSize fresh = SizeFatTree(second, 4, 2);
      SCOPED_TRACE(::testing::Message() << first << " then " << second << " hosts");
      EXPECT_EQ(f.tiers, fresh.tiers);
      EXPECT_EQ(f.switches_per_tier, fresh.switches_per_tier);
      EXPECT_EQ(f.switch_count, fresh.switch_count);
      EXPECT_EQ(f.endpoint_count, fresh.endpoint_count);
      EXPECT_EQ(f.optic_count, fresh.optic_count);
      EXPECT_EQ(f.fits, fresh.fits);
    }
  }
  // 300 hosts: 150 leaves, 150 x 2 = 300 uplinks: 150 switches in each of the 6 middle tiers and
  // 75 on top.
  FabricSize f;
  SizeFatTree(300, 4, 2, &f);
  EXPECT_EQ(f.tiers, 8);
  EXPECT_EQ(f.switch_count, 150 + 6 * 150 + 75);
  EXPECT_FALSE(SizeFatTree(8193, 4, 2).fits);
  EXPECT_TRUE(SizeFatTree(8192, 4, 2).fits);  // exactly 12 tiers
}

TEST(FatTreeMaxEndpoints, IsWhereSizingStopsFitting) {
  // Radix 4, 2 down: 2 x 4 x 2^10 = 8,192 endpoints in 12 tiers; radix 6, 3 down: 3 x 6 x 3^10.
  EXPECT_EQ(FatTreeMaxEndpoints(4, 2), 8192.0);
  EXPECT_EQ(FatTreeMaxEndpoints(6, 3), 3.0 * 6.0 * 59049.0);
  for (auto [radix, down] : {std::pair<int64_t, int64_t>{4, 2}, {6, 3}, {8, 6}, {10, 5}}) {
    const auto most = static_cast<int64_t>(FatTreeMaxEndpoints(radix, down));
    EXPECT_TRUE(SizeFatTree(most, radix, down).fits) << radix;
    EXPECT_FALSE(SizeFatTree(most + 1, radix, down).fits) << radix;
  }
}

}  // namespace
}  // namespace dcplan

namespace dcplan {
namespace {

TEST(SizeFabric, OversubscribedUpperTiersNeedFewerSwitchesAndOptics) {
  // k = 8, leaves at full bisection (4 down, 4 up), spines at 3:1 (floor(8 x 3/4) = 6 down, 2 up).
  // 64 endpoints: 16 leaves and 16 x 4 = 64 links up. Two tiers hold 8 leaves, three 8 x 6 = 48:
  // three tiers. Spines: ceil(64 / 6) = 11, sending ceil(64 x 2 / 6) = 22 links on up; top:
  // ceil(22 / 8) = 3. Optics: 2 x 64 NIC links + 2 x (64 + 22) = 300.
  FabricSpec spec = FatTreeSpec(8, 4);
  spec.downlinks[1] = DownlinksAt(8, 3.0);
  EXPECT_EQ(spec.downlinks[1], 6);
  FabricSize f;
  SizeFabric(spec, 64, &f);
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(f.switches_per_tier[0], 16);
  EXPECT_EQ(f.switches_per_tier[1], 11);
  EXPECT_EQ(f.switches_per_tier[2], 3);
  EXPECT_EQ(f.switch_count, 30);
  EXPECT_EQ(f.optic_count, 300);
  // At full bisection: 16 + 16 + 8 = 40 switches and 128 + 2 x 2 x 64 = 384 optics.
  const FabricSize full = SizeFatTree(64, 8, 4);
  EXPECT_EQ(full.switch_count, 40);
  EXPECT_EQ(full.optic_count, 384);
}

TEST(SizeFabric, MetasPodsStayAtThreeTiers) {
  // Llama 3's cluster (planner/presets/SOURCES.md#roce-400g): 3,072-GPU pods at full bisection, 1:7
  // above them.
  // With 128-port switches, 24,576 GPUs need 384 leaves; two tiers hold 128, three
  // 128 x floor(128 x 7/8) = 128 x 112 = 14,336: three tiers, where radix 64 at full bisection
  // (65,536 hosts in three tiers) would also do but with 4x the upper-tier links.
  FabricSpec spec = FatTreeSpec(128, 64);
  spec.downlinks[1] = DownlinksAt(128, 7.0);
  FabricSize f;
  SizeFabric(spec, 24576, &f);
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(f.switches_per_tier[0], 384);
  // 384 x 64 = 24,576 links up; spines ceil(24,576 / 112) = 220 sending
  // ceil(24,576 x 16 / 112) = 3,511 links to ceil(3,511 / 128) = 28 top switches.
  EXPECT_EQ(f.switches_per_tier[1], 220);
  EXPECT_EQ(f.switches_per_tier[2], 28);
}

TEST(SizeFabric, TopOfRackLeavesServeOneRackOverCopper) {
  // k = 8 (4 down, 4 up), 6 NIC ports a rack, 20 endpoints = 3 full racks + 2 ports. A full rack:
  // one leaf of 4 ports (4 uplinks) + one of 2 (ceil(2 x 4 / 4) = 2 uplinks) = 2 leaves, 6 links;
  // the last rack one leaf, 2 links: 7 leaves, 20 links, two tiers (7 <= 8), ceil(20 / 8) = 3 at
  // the top. NIC links are copper: 40 ends; optics only between tiers: 2 x 20.
  FabricSpec spec = FatTreeSpec(8, 4);
  spec.layout = LeafLayout::kTopOfRack;
  spec.ports_per_server = 2;
  spec.ports_per_rack = 6;
  FabricSize f;
  SizeFabric(spec, 20, &f);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.switches_per_tier[0], 7);
  EXPECT_EQ(f.switches_per_tier[1], 3);
  EXPECT_EQ(f.copper_count, 40);
  EXPECT_EQ(f.optic_count, 40);
}

TEST(SizeFabric, RailOptimizedLeavesServeOneNicOfManyServers) {
  // k = 8 (4 down, 4 up), 2 NICs a server, 20 endpoints = 10 servers. Each of the 2 rails: 10 ports
  // on 2 full leaves + one of 2 ports: 3 leaves, 8 + 2 = 10 links. In all 6 leaves, 20 links, two
  // tiers, ceil(20 / 8) = 3 at the top; all optical: 2 x 20 + 2 x 20 = 80.
  FabricSpec spec = FatTreeSpec(8, 4);
  spec.layout = LeafLayout::kRailOptimized;
  spec.ports_per_server = 2;
  FabricSize f;
  SizeFabric(spec, 20, &f);
  EXPECT_EQ(f.switches_per_tier[0], 6);
  EXPECT_EQ(f.switches_per_tier[1], 3);
  EXPECT_EQ(f.optic_count, 80);
  EXPECT_EQ(f.copper_count, 0);
}

}  // namespace
}  // namespace dcplan
