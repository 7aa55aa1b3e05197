// PlanTable and the scale rows, on plans written by hand (until now only tests/cli_test.sh saw
// them).
#include "examples/cli/report.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
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

}  // namespace
}  // namespace dcplan::cli
