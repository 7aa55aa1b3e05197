#include "planner/sweep/headline.h"

#include <string>

#include "gtest/gtest.h"
#include "planner/planner.h"
#include "planner/presets/presets.h"

namespace dcplan {
namespace {

TEST(Headline, HeaderNamesEveryColumnInOrder) {
  EXPECT_EQ(HeadlineCsvHeader(),
            "gpu_count,server_count,rack_count,pod_count,building_count,it_power_watts,"
            "facility_power_watts,peak_flops_per_second,mfu,realized_flops_per_second,capex_usd,"
            "opex_usd_per_year,tco_usd,binding_constraint");
  EXPECT_LE(HeadlineColumns().size(), 32u);  // examples/cli/sweep.cc keeps a cache per column
}

TEST(Headline, SeedRowFromThePlan) {
  // The seed chapter at 45.9 MW, PUE 1.0: 1.4 kW per GPU, 8 a server = 11.2 kW a server;
  // 45.9 MW / 11.2 kW = 4,098.2 -> 4,098 servers = 32,784 GPUs drawing 4,098 x 11.2 kW =
  // 45,897,600 W; peak 32,784 x 1 PFLOP/s = 3.2784e19; the seed has no prices (0 capex).
  PlanRequest r = LoadPreset("seed").value();
  r.mutable_constraints()->set_power_cap_watts(45.9e6);
  const Plan plan = SolvePlan(r).value();
  std::string row;
  AppendHeadlineCsvRow(plan, &row);
  const std::string start = "32784,4098,";
  EXPECT_EQ(row.substr(0, start.size()), start) << row;
  EXPECT_NE(row.find(",45897600,45897600,3.2784e+19,"), std::string::npos) << row;
  EXPECT_NE(row.find(",0,0,0,BINDING_CONSTRAINT_FACILITY_POWER"), std::string::npos) << row;
  // Every column reads the same figure from a Plan and from its JSON path's field.
  for (const HeadlineColumn& c : HeadlineColumns()) EXPECT_NE(c.plan_path[0], '\0') << c.name;
}

}  // namespace
}  // namespace dcplan
