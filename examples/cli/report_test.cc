// PlanTable and the scale rows, on plans written by hand (until now only tests/cli_test.sh saw
// them).
#include "examples/cli/report.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/sweep/headline.h"
#include "proto/plan.pb.h"

namespace dcplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The seed chapter's 50 MW answer, worked out by hand: 32,768 GPUs at 1.4 kW all-in is
// 45,875,200 W (45.9 MW); 8 GPUs a server (11.2 kW), 4 servers a rack (44.8 kW), 1,024 racks.
// Peak 32,768 x 1 PFLOP/s = 32.768 EFLOP/s; MFU 0.32 realizes 10.48576 EFLOP/s.
Plan SeedPlan() {
  Plan p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        name: "seed"
        counts {
          gpu_count: 32768
          server_count: 4096
          rack_count: 1024
          servers_per_rack: 4
          pod_count: 128
          building_count: 1
        }
        power {
          gpu_power_watts: 45875200
          it_power_watts: 45875200
          facility_power_watts: 45875200
          server_power_watts: 11200
          rack_power_watts: 44800
          pue: 1
        }
        compute {
          peak_flops_per_second: 3.2768e19
          mfu: 0.32
          realized_flops_per_second: 1.048576e19
          efficiency_model: "log-linear"
        }
        binding_constraint: BINDING_CONSTRAINT_FACILITY_POWER
        headroom { facility_power_watts: 4124800 }
        notes: "a note"
      )pb",
      &p));
  return p;
}

TEST(PlanTable, ShowsCountsPowerAndComputeWithUnits) {
  const std::string t = PlanTable(SeedPlan());
  EXPECT_THAT(t, HasSubstr("plan: seed\n"));
  EXPECT_THAT(t, HasSubstr("  GPUs          32,768\n"));
  // 32,768 / 4,096 = 8 GPUs a server.
  EXPECT_THAT(t, HasSubstr("  servers       4,096 (8 GPUs, 11.2 kW each)\n"));
  EXPECT_THAT(t, HasSubstr("  racks         1,024 (4 servers, 44.8 kW each)\n"));
  EXPECT_THAT(t, HasSubstr("  buildings     1\n"));
  EXPECT_THAT(t, HasSubstr("  facility      45.9 MW (PUE 1.00)\n"));
  EXPECT_THAT(t, HasSubstr("  peak          32.77 EFLOP/s\n"));
  EXPECT_THAT(t, HasSubstr("  MFU           32.0% (log-linear)\n"));
  EXPECT_THAT(t, HasSubstr("  realized      10.49 EFLOP/s\n"));
  EXPECT_THAT(t, HasSubstr("binding         facility power cap\n"));
  // 50 MW - 45.8752 MW = 4.1248 MW left under the cap.
  EXPECT_THAT(t, HasSubstr("headroom        facility power 4.1 MW\n"));
  EXPECT_THAT(t, HasSubstr("note: a note\n"));
}

TEST(PlanTable, LeavesOutWhatThePlanDoesNotHave) {
  const std::string t = PlanTable(SeedPlan());
  EXPECT_THAT(t, Not(HasSubstr("money")));     // no capex: no money section
  EXPECT_THAT(t, Not(HasSubstr("fat tree")));  // no scale-out network: no fabric line
  EXPECT_THAT(t, Not(HasSubstr("substation")));
}

TEST(PlanTable, NamesAnUnnamedPlanAndEscapesControlCharacters) {
  Plan p = SeedPlan();
  p.clear_name();
  EXPECT_THAT(PlanTable(p), HasSubstr("plan: (unnamed)\n"));
  p.set_name("evil\x1b[31m");
  EXPECT_THAT(PlanTable(p), Not(HasSubstr("\x1b")));
}

TEST(BindingName, NamesEveryConstraintAPersonReads) {
  EXPECT_EQ(BindingName(BINDING_CONSTRAINT_BUDGET), "budget");
  EXPECT_EQ(BindingName(BINDING_CONSTRAINT_MAX_GPUS), "GPU cap");
  EXPECT_EQ(BindingName(BINDING_CONSTRAINT_UNSPECIFIED), "unspecified");
}

TEST(PlanTable, ShowsSiteRealism) {
  // The seed plan with 2 hot spares among 4,098 servers, storage 2% and frontend 1% of 45.9 MW,
  // 4 head nodes, copper NIC links, measured provisioning, two PUEs and capital charged over lives
  // other than the horizon ($100M a year x 4 years = $400M, not the $500M capex).
  Plan p = SeedPlan();
  p.mutable_counts()->set_server_count(4098);
  p.mutable_counts()->set_spare_server_count(2);
  p.mutable_counts()->set_head_node_count(4);
  PowerBreakdown* pw = p.mutable_power();
  pw->set_storage_power_watts(917504);
  pw->set_frontend_network_power_watts(458752);
  pw->set_head_node_power_watts(4000);
  pw->set_pue(1.2);
  pw->set_annual_pue(1.14);
  pw->set_provisioning_basis(PROVISIONING_BASIS_MEASURED);
  pw->set_nameplate_it_power_watts(60e6);
  pw->set_measured_it_power_watts(44e6);
  pw->set_power_oversubscription(60e6 / 45875200);
  p.mutable_network()->set_tiers(1);
  p.mutable_network()->add_switches_per_tier(1);
  p.mutable_network()->set_switch_count(1);
  p.mutable_network()->set_copper_cable_end_count(64);
  CostPlan* c = p.mutable_cost();
  c->set_capex_usd(500e6);
  c->mutable_capex()->set_storage_usd(10e6);
  c->set_horizon_years(4);
  c->set_capital_usd_per_year(100e6);
  c->set_it_capital_usd_per_year(80e6);
  c->set_facility_capital_usd_per_year(20e6);
  const std::string t = PlanTable(p);
  // 4,096 training servers of 8 GPUs; 2 spares.
  EXPECT_THAT(t, HasSubstr("  servers       4,098 (8 GPUs, 11.2 kW each; 2 of them hot spares)\n"));
  EXPECT_THAT(t, HasSubstr(", 64 copper cable ends\n"));
  EXPECT_THAT(t, HasSubstr("  storage       917.5 kW\n"));
  EXPECT_THAT(t, HasSubstr("  frontend net  458.8 kW\n"));
  EXPECT_THAT(t, HasSubstr("  head nodes    4.0 kW (4)\n"));
  // 60 / 45.8752 = 1.31.
  EXPECT_THAT(t, HasSubstr("  provisioned   for the measured draw: nameplate 60.0 MW, under load "
                           "44.0 MW (nameplate oversubscribed 1.31x)\n"));
  EXPECT_THAT(t, HasSubstr("(PUE 1.20 on the design day, 1.14 annual)\n"));
  EXPECT_THAT(t, HasSubstr("storage and frontend $10.00M)\n"));
  EXPECT_THAT(t, HasSubstr("  capital       $100.00M a year (IT $80.00M, building and plant "
                           "$20.00M)\n"));
}

TEST(PlanTable, ShowsTheMfuIntervalBesideTheMfu) {
  Plan p;
  p.mutable_compute()->set_mfu(0.405);
  p.mutable_compute()->set_efficiency_model("step model");
  p.mutable_mfu_interval()->set_p10(0.36);
  p.mutable_mfu_interval()->set_p90(0.44);
  EXPECT_THAT(PlanTable(p), HasSubstr("  MFU           40.5% (P10-P90 36-44%) (step model)\n"));
  // Carried over, and a narrow interval in tenths of a percent.
  MfuInterval i;
  i.set_p10(0.301);
  i.set_p90(0.322);
  i.set_carried_over(true);
  EXPECT_EQ(MfuIntervalNote(i), " (P10-P90 30.1-32.2%, carried over)");
  EXPECT_EQ(MfuIntervalNote(MfuInterval()), "");
}

TEST(ScaleCsv, ColumnsComeFromTheHeadlineTable) {
  // The header is the table's selection (planner/sweep/headline.h), name by name.
  std::string names;
  for (const HeadlineColumn* c : ScaleCsvColumns()) {
    absl::StrAppend(&names, names.empty() ? "" : ",", c->name);
  }
  EXPECT_EQ(ScaleCsvHeader(), names + "\n");
  // A row by hand: the seed's 32,768 GPUs in 4,096 servers and 1,024 racks (SeedPlan), 32.768
  // EFLOP/s peak at MFU 0.32 -> 10.48576 EFLOP/s; 45,875,200 W IT, x PUE 1.25 = 57,344,000 W;
  // capex and TCO $1.5B and $2.25B. Counts whole, figures with 17 significant digits.
  ScaleRow row;
  row.mutable_counts()->set_gpu_count(32768);
  row.mutable_counts()->set_server_count(4096);
  row.mutable_counts()->set_rack_count(1024);
  row.mutable_compute()->set_peak_flops_per_second(32.768e18);
  row.mutable_compute()->set_mfu(0.32);
  row.mutable_compute()->set_realized_flops_per_second(10.48576e18);
  row.mutable_power()->set_it_power_watts(45875200);
  row.mutable_power()->set_facility_power_watts(57344000);
  row.mutable_cost()->set_capex_usd(1.5e9);
  row.mutable_cost()->set_tco_usd(2.25e9);
  std::string csv;
  AppendScaleCsvRow(row, &csv);
  EXPECT_EQ(csv,
            "32768,4096,1024,3.2768e+19,0.32000000000000001,1.048576e+19,45875200,"
            "57344000,1500000000,2250000000\n");
}

}  // namespace
}  // namespace dcplan::cli
