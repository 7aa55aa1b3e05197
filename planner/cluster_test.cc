#include "planner/cluster.h"

#include "gtest/gtest.h"
#include "planner/test_requests.h"

namespace dcplan {
namespace {

using ::dcplan::testing::H100With;
using ::dcplan::testing::SeedWith;
using units::InUsd;
using units::InWatts;

TEST(EvaluateCluster, SeedAt32768GpusMatchesTheChapter) {
  // 32,768 x 1 PFLOP/s = 32.77 EFLOP/s peak; MFU 0.62 - 0.02 x 15 = 0.32; realized 10.49 EFLOP/s;
  // 32,768 x 1.4 kW = 45.9 MW at PUE 1.
  Model m = BuildModel(SeedWith("")).value();
  ClusterEval e = EvaluateCluster(m, 32768);
  EXPECT_DOUBLE_EQ(units::InFlopsPerSecond(e.peak), 32.768e18);
  EXPECT_NEAR(units::InFraction(e.mfu), 0.32, 1e-12);
  EXPECT_NEAR(units::InFlopsPerSecond(e.realized), 10.48576e18, 1e6);
  EXPECT_DOUBLE_EQ(InWatts(e.facility_power), 45875200.0);
  EXPECT_EQ(e.servers, 4096);
  EXPECT_EQ(e.racks, 1024);
  EXPECT_EQ(e.pods, 128);
  EXPECT_EQ(e.buildings, 1);
}

TEST(EvaluateCluster, OneGpuIsOnePartlyFilledServer) {
  Model m = BuildModel(SeedWith("")).value();
  ClusterEval e = EvaluateCluster(m, 1);
  EXPECT_EQ(e.servers, 1);
  EXPECT_EQ(e.racks, 1);
  EXPECT_DOUBLE_EQ(InWatts(e.it_power), 1400.0);
  EXPECT_NEAR(units::InFraction(e.mfu), 0.62, 1e-12);
}

TEST(EvaluateCluster, H100ClusterPowerAddsEveryLevel) {
  // 4,096 GPUs = 512 servers = 128 racks = 16 pods.
  // Fabric (radix 64, 4,096 NICs): 128 leaf + 128 spine + 64 core = 320 switches; optics 2 x 4,096
  // + 2 x 2 x (128 x 32) = 24,576. GPUs 4,096 x 700 = 2,867,200 W; server overhead 512 x 4,600 =
  // 2,355,200 W; network 320 x 1,500 + 24,576 x 15 = 848,640 W; IT = 6,071,040 W; facility x 1.3 =
  // 7,892,352 W.
  Model m = BuildModel(H100With("")).value();
  ClusterEval e = EvaluateCluster(m, 4096);
  EXPECT_EQ(e.servers, 512);
  EXPECT_EQ(e.racks, 128);
  EXPECT_EQ(e.pods, 16);
  EXPECT_EQ(e.fabric.switch_count, 320);
  EXPECT_EQ(e.fabric.optic_count, 24576);
  EXPECT_DOUBLE_EQ(InWatts(e.gpu_power), 2867200.0);
  EXPECT_DOUBLE_EQ(InWatts(e.server_overhead_power), 2355200.0);
  EXPECT_DOUBLE_EQ(InWatts(e.network_power), 848640.0);
  EXPECT_DOUBLE_EQ(InWatts(e.it_power), 6071040.0);
  EXPECT_NEAR(InWatts(e.facility_power), 7892352.0, 1e-6);
}

TEST(EvaluateCluster, CapexAddsEveryComponent) {
  // 1,000 servers (8,000 GPUs) at $300,000 = $300,000,000; 250 racks at $50,000 = $12,500,000;
  // network: 8,000 NICs -> 250 leaves, 3 tiers: 250 + 250 + 125 = 625 switches x $30,000 =
  // $18,750,000, optics 2 x 8,000 + 2 x 2 x 8,000 = 48,000 x $1,000 = $48,000,000; facility $10/W
  // of IT power.
  Model m =
      BuildModel(H100With("costs { facility_usd_per_it_watt: 10 site_fixed_usd: 5e6 }")).value();
  ClusterEval e = EvaluateCluster(m, 8000);
  EXPECT_EQ(e.fabric.switch_count, 625);
  EXPECT_EQ(e.fabric.optic_count, 48000);
  EXPECT_DOUBLE_EQ(InUsd(e.servers_capex), 300e6);
  EXPECT_DOUBLE_EQ(InUsd(e.racks_capex), 12.5e6);
  EXPECT_DOUBLE_EQ(InUsd(e.network_capex), 18.75e6 + 48e6);
  // IT = 8,000 x 700 + 1,000 x 4,600 + 625 x 1,500 + 48,000 x 15 = 11,857,500 W -> $118,575,000.
  EXPECT_DOUBLE_EQ(InWatts(e.it_power), 11857500.0);
  EXPECT_NEAR(InUsd(e.facility_capex), 118575000.0, 1e-3);
  EXPECT_NEAR(InUsd(e.capex), 300e6 + 12.5e6 + 66.75e6 + 118.575e6 + 5e6, 1e-3);
}

TEST(EvaluateCluster, YearOfEnergyAtKnownPowerUtilizationAndPrice) {
  // Seed, 1,000 GPUs = 1.4 MW IT at PUE 1.5, 80% average utilization: 1.68 MW average at the meter;
  // x 8,760 h = 14,716.8 MWh a year; at $0.08/kWh = $1,177,344.
  Model m = BuildModel(SeedWith("site { pue: 1.5 } costs { electricity_usd_per_kwh: 0.08 "
                                "average_utilization: 0.8 }"))
                .value();
  ClusterEval e = EvaluateCluster(m, 1000);
  EXPECT_NEAR(InWatts(e.average_facility_power), 1.68e6, 1e-6);
  EXPECT_NEAR(units::InMegawattHours(e.average_facility_power * units::Years(1.0)), 14716.8, 1e-6);
  EXPECT_NEAR(units::InUsdPerYear(e.energy_cost_rate), 1177344.0, 1e-4);
}

TEST(EvaluateCluster, EveryCappedFigureGrowsWithTheCluster) {
  Model m =
      BuildModel(H100With("costs { facility_usd_per_it_watt: 10 electricity_usd_per_kwh: 0.1 }"))
          .value();
  ClusterEval prev = EvaluateForCaps(m, 0);
  for (int64_t g = 8; g < 200000; g += 8 * 37) {
    ClusterEval e = EvaluateForCaps(m, g);
    ASSERT_GE(e.facility_power, prev.facility_power) << g;
    ASSERT_GE(e.it_power, prev.it_power) << g;
    ASSERT_GE(e.capex, prev.capex) << g;
    ASSERT_GE(e.tco, prev.tco) << g;
    ASSERT_GE(e.buildings, prev.buildings) << g;
    prev = e;
  }
}

}  // namespace
}  // namespace dcplan

namespace dcplan {
namespace {

TEST(EvaluateServersPower, CountsInServersAsEvaluatePowerInGpus) {
  // The H100 cluster above counted in servers: 512 servers of 8 = the 4,096 GPUs, worked out there.
  Model m = BuildModel(H100With("")).value();
  ClusterEval e;
  EvaluateServersPower(m, 512, &e);
  EXPECT_EQ(e.gpus, 4096);
  EXPECT_EQ(e.servers, 512);
  EXPECT_EQ(e.racks, 128);
  EXPECT_EQ(e.fabric.switch_count, 320);
  EXPECT_DOUBLE_EQ(InWatts(e.it_power), 6071040.0);
  // No servers, or fewer than none, is an empty cluster, as 0 GPUs is.
  EvaluateServersPower(m, -3, &e);
  EXPECT_EQ(e.gpus, 0);
  EXPECT_EQ(e.servers, 0);
  EXPECT_EQ(e.fabric.switch_count, 0);
  EXPECT_DOUBLE_EQ(InWatts(e.it_power), 0.0);
  // Every size the same as EvaluatePower at its GPUs, with hot spares and head nodes too (3% of 100
  // training servers is 3 spares, as above), each into the last one's evaluation as the solver's
  // probes are.
  Model spares = BuildModel(H100With(R"pb(hardware {
                                            auxiliary { hot_spare_fraction: 0.03 head_nodes: 4 }
                                          })pb"))
                     .value();
  ClusterEval by_servers, by_gpus;
  for (int64_t n : {0, 1, 2, 7, 100, 512, 513, 4097, 123457, 1000000}) {
    EvaluateServersPower(spares, n, &by_servers);
    EvaluatePower(spares, n * spares.server.gpus, &by_gpus);
    EXPECT_EQ(by_servers.gpus, by_gpus.gpus) << n;
    EXPECT_EQ(by_servers.servers, by_gpus.servers) << n;
    EXPECT_EQ(by_servers.spare_servers, by_gpus.spare_servers) << n;
    EXPECT_EQ(by_servers.racks, by_gpus.racks) << n;
    EXPECT_EQ(by_servers.pods, by_gpus.pods) << n;
    EXPECT_EQ(by_servers.fabric.switches_per_tier, by_gpus.fabric.switches_per_tier) << n;
    EXPECT_EQ(InWatts(by_servers.facility_power), InWatts(by_gpus.facility_power)) << n;
  }
  EXPECT_EQ(by_servers.spare_servers, 30000);  // 3% of 1,000,000
}

TEST(EvaluateCluster, HotSparesAuxiliaryLoadsAndHeadNodesAddPowerNotCompute) {
  // Seed (8 GPUs x 1.4 kW a server, PUE 1) at 800 GPUs = 100 training servers; 3% hot spares =
  // 3 more. Compute IT = 103 x 11.2 kW = 1,153.6 kW; storage 2% = 23.072 kW, frontend 1% =
  // 11.536 kW; 4 head nodes x 500 W = 2 kW: IT = 1,190.208 kW. Peak counts the 800 training GPUs.
  Model m = BuildModel(testing::SeedWith(R"pb(
              hardware {
                auxiliary {
                  hot_spare_fraction: 0.03
                  storage_power_fraction: 0.02
                  frontend_network_power_fraction: 0.01
                  head_nodes: 4
                  head_node_power_watts: 500
                }
              })pb"))
                .value();
  ClusterEval e = EvaluateCluster(m, 800);
  EXPECT_EQ(e.spare_servers, 3);
  EXPECT_EQ(e.servers, 103);
  EXPECT_EQ(e.racks, 26);  // ceil(103 / 4)
  EXPECT_NEAR(units::InWatts(e.compute_it_power), 1153600.0, 1e-6);
  EXPECT_NEAR(units::InWatts(e.storage_power), 23072.0, 1e-6);
  EXPECT_NEAR(units::InWatts(e.frontend_power), 11536.0, 1e-6);
  EXPECT_NEAR(units::InWatts(e.it_power), 1190208.0, 1e-6);
  EXPECT_DOUBLE_EQ(units::InFlopsPerSecond(e.peak), 800e15);
}

TEST(EvaluateCluster, CapexCountsStorageFrontendAndHeadNodes) {
  // Seed servers at $100,000 (8 GPUs): 800 GPUs = 100 servers = $10M of compute hardware; storage
  // 5% of it ($500,000), frontend 1% ($100,000), 4 head nodes at $20,000 ($80,000). No facility
  // cost: capex = $10.68M, all of it IT.
  Model m = BuildModel(testing::SeedWith(R"pb(
              hardware {
                server { price_usd: 100000 }
                auxiliary {
                  storage_price_fraction: 0.05
                  frontend_network_price_fraction: 0.01
                  head_nodes: 4
                  head_node_price_usd: 20000
                }
              })pb"))
                .value();
  ClusterEval e = EvaluateCluster(m, 800);
  EXPECT_NEAR(units::InUsd(e.storage_capex), 500000.0, 1e-6);
  EXPECT_NEAR(units::InUsd(e.frontend_capex), 100000.0, 1e-6);
  EXPECT_NEAR(units::InUsd(e.head_nodes_capex), 80000.0, 1e-6);
  EXPECT_NEAR(units::InUsd(e.it_capex), 10680000.0, 1e-6);
  EXPECT_NEAR(units::InUsd(e.capex), 10680000.0, 1e-6);
}

TEST(EvaluateCluster, EnergyUsesTheDrawUnderLoadAndTheAnnualPue) {
  // Seed with a measured draw of 1,000 W a GPU, design-day PUE 1.3, annual 1.1, utilization 0.5:
  // 8 GPUs draw 8 kW under load, 8 x 1 x 0.5 x 1.1 = 4.4 kW on average, 38.544 MWh a year (dcplan's
  // year is 8,760 h). Facility power sizes at the nameplate and the design day: 8 x 1.4 x 1.3 =
  // 14.56 kW.
  Model m = BuildModel(testing::SeedWith(R"pb(
              hardware { accelerator { measured_power_watts: 1000 } }
              site { pue: 1.3 annual_pue: 1.1 }
              costs { average_utilization: 0.5 })pb"))
                .value();
  ClusterEval e = EvaluateCluster(m, 8);
  EXPECT_NEAR(units::InWatts(e.facility_power), 14560.0, 1e-9);
  EXPECT_NEAR(units::InWatts(e.measured_it_power), 8000.0, 1e-9);
  EXPECT_NEAR(units::InWatts(e.average_facility_power), 4400.0, 1e-9);
  EXPECT_NEAR(units::InMegawattHours(e.average_facility_power * units::Years(1.0)),
              4.4 * 8760.0 / 1000.0, 1e-9);
}

TEST(EvaluateCluster, CapitalIsChargedAsAnAnnuityOverEachClassesLife) {
  // Seed servers at $100,000 (8 GPUs), facility $10/W: 8 GPUs = $100,000 of IT and 11.2 kW x $10 =
  // $112,000 of facility. At 8% over 5 years the IT annuity is (1 - 1.08^-5) / 0.08 = 3.992710
  // years, $25,045.65 a year; the facility over 20 years 9.818147 years, $11,407.46 a year. TCO
  // over a 4-year horizon without opex: 4 x (25,045.65 + 11,407.46) = $145,812.45, less than the
  // $212,000 capex because the building outlives the horizon.
  Model m = BuildModel(testing::SeedWith(R"pb(
              hardware { server { price_usd: 100000 } }
              costs {
                facility_usd_per_it_watt: 10
                horizon_years: 4
                wacc: 0.08
                it_life_years: 5
                facility_life_years: 20
              })pb"))
                .value();
  ClusterEval e = EvaluateCluster(m, 8);
  EXPECT_DOUBLE_EQ(units::InUsd(e.capex), 212000.0);
  EXPECT_NEAR(units::InUsdPerYear(e.it_capital_rate), 100000.0 / 3.992710, 0.01);
  EXPECT_NEAR(units::InUsdPerYear(e.facility_capital_rate), 112000.0 / 9.818147, 0.01);
  EXPECT_NEAR(units::InUsd(e.tco), 4 * (100000.0 / 3.992710 + 112000.0 / 9.818147), 0.05);
  // Without a cost of capital and with lives equal to the horizon, TCO is capex + opex x horizon.
  m = BuildModel(testing::SeedWith(R"pb(
        hardware { server { price_usd: 100000 } }
        costs { facility_usd_per_it_watt: 10 horizon_years: 4 })pb"))
          .value();
  EXPECT_DOUBLE_EQ(units::InUsd(EvaluateCluster(m, 8).tco), 212000.0);
}

}  // namespace
}  // namespace dcplan

namespace dcplan {
namespace {

TEST(ReevaluateSite, GivesTheEvaluationUnderTheNewPueAndPricesBitForBit) {
  // A cluster evaluated at PUE 1.2 and brought to PUE 1.45 and 11 cents a kWh is what evaluating it
  // there gives, to the last bit: only the facility power (IT power x PUE) and the money read them.
  const Model before = BuildModel(H100With("site { pue: 1.2 }")).value();
  const Model after =
      BuildModel(H100With("site { pue: 1.45 } costs { electricity_usd_per_kwh: 0.11 }")).value();
  for (int64_t gpus : {0, 8, 4096, 30528, 1000000}) {
    ClusterEval moved = EvaluateCluster(before, gpus);
    ReevaluateSite(after, &moved);
    const ClusterEval fresh = EvaluateCluster(after, gpus);
    EXPECT_EQ(InWatts(moved.facility_power), InWatts(fresh.facility_power)) << gpus;
    EXPECT_EQ(InWatts(moved.average_facility_power), InWatts(fresh.average_facility_power)) << gpus;
    EXPECT_EQ(InUsd(moved.capex), InUsd(fresh.capex)) << gpus;
    EXPECT_EQ(InUsd(moved.tco), InUsd(fresh.tco)) << gpus;
    EXPECT_EQ(units::InUsdPerYear(moved.opex_rate), units::InUsdPerYear(fresh.opex_rate)) << gpus;
    EXPECT_EQ(InWatts(moved.it_power), InWatts(fresh.it_power)) << gpus;
    EXPECT_EQ(units::InFlopsPerSecond(moved.realized), units::InFlopsPerSecond(fresh.realized))
        << gpus;
  }
  // The facility power itself, by hand: 4,096 GPUs draw 6,071,040 W of IT power (worked out in
  // H100ClusterPowerAddsEveryLevel above), x 1.45 = 8,803,008 W.
  ClusterEval e = EvaluateCluster(before, 4096);
  ReevaluateSite(after, &e);
  EXPECT_NEAR(InWatts(e.facility_power), 8803008.0, 1e-6);
}

}  // namespace
}  // namespace dcplan
