#include "planner/sweep/headline.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
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

TEST(Headline, RowValuesAreEachColumnsFromRow) {
  // A row whose every field differs from the others (and a count past 2^32), so that a value in
  // the wrong place or read from the wrong field shows.
  SweepRow r;
  r.gpus = 5'000'000'001;
  r.servers = 625'000'001;
  r.racks = 3;
  r.pods = 4;
  r.buildings = 5;
  r.it_power = units::Watts(6.5e7);
  r.facility_power = units::Watts(7.25e7);
  r.peak = units::FlopsPerSecond(8e19);
  r.mfu = units::Fraction(0.375);
  r.realized = units::FlopsPerSecond(3e19);
  r.capex = units::Usd(1.1e9);
  r.opex_rate = units::UsdPerYear(1.2e8);
  r.tco = units::Usd(1.3e9);
  r.binding = BINDING_CONSTRAINT_BUDGET;
  ASSERT_EQ(HeadlineColumns().size(), kHeadlineColumnCount);
  double values[kHeadlineColumnCount];
  HeadlineRowValues(r, values);
  for (size_t i = 0; i < kHeadlineColumnCount; ++i) {
    EXPECT_EQ(values[i], HeadlineColumns()[i].from_row(r)) << HeadlineColumns()[i].name;
  }
  EXPECT_EQ(values[0], 5'000'000'001.0);                                  // gpu_count, first
  EXPECT_EQ(values[13], static_cast<double>(BINDING_CONSTRAINT_BUDGET));  // the binding, last
}

// The seed at 45.9 MW as in SeedRowFromThePlan.
Plan SeedPlan() {
  PlanRequest r = LoadPreset("seed").value();
  r.mutable_constraints()->set_power_cap_watts(45.9e6);
  return SolvePlan(r).value();
}

TEST(Headline, PlanPathsReadWhatTheGettersRead) {
  const Plan plan = SeedPlan();
  for (const HeadlineColumn& c : HeadlineColumns()) {
    EXPECT_EQ(HeadlineValueAt(c, plan), c.from_plan(plan)) << c.name << " at " << c.plan_path;
  }
  // Worked out in SeedRowFromThePlan: 32,784 GPUs in 4,098 servers.
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("gpu_count"), plan), 32784);
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("server_count"), plan), 4098);
  EXPECT_EQ(FindHeadlineColumn("no_such_column"), nullptr);
}

TEST(Headline, SweepPointFieldsAreTheColumns) {
  // Every field of SweepPoint but the point's values, error and spread is a headline column of the
  // same name, and every column is a field: a new column is a new field, filled from the table.
  const google::protobuf::Descriptor* d = SweepPoint::descriptor();
  std::set<std::string> fields;
  for (int i = 0; i < d->field_count(); ++i) {
    const std::string name = d->field(i)->name();
    if (name != "values" && name != "error" && name != "distribution") fields.insert(name);
  }
  std::set<std::string> columns;
  for (const HeadlineColumn& c : HeadlineColumns()) columns.insert(c.name);
  EXPECT_EQ(fields, columns);

  const Plan plan = SeedPlan();
  SweepPoint point;
  SetSweepPointFigures(plan, &point);
  EXPECT_EQ(point.gpu_count(), 32784u);
  EXPECT_EQ(point.server_count(), 4098u);
  EXPECT_EQ(point.rack_count(), plan.counts().rack_count());
  EXPECT_EQ(point.building_count(), plan.counts().building_count());
  EXPECT_EQ(point.facility_power_watts(), 45897600);
  EXPECT_EQ(point.peak_flops_per_second(), 3.2784e19);
  EXPECT_EQ(point.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);

  // From a sweep's row: the same figures.
  SweepRow row;
  row.gpus = 32784;
  row.servers = 4098;
  row.racks = 7;
  row.pods = 2;
  row.buildings = 1;
  row.facility_power = units::Watts(45897600);
  row.binding = BINDING_CONSTRAINT_BUDGET;
  SweepPoint from_row;
  SetSweepPointFigures(row, &from_row);
  EXPECT_EQ(from_row.gpu_count(), 32784u);
  EXPECT_EQ(from_row.rack_count(), 7u);
  EXPECT_EQ(from_row.pod_count(), 2u);
  EXPECT_EQ(from_row.building_count(), 1u);
  EXPECT_EQ(from_row.facility_power_watts(), 45897600);
  EXPECT_EQ(from_row.binding_constraint(), BINDING_CONSTRAINT_BUDGET);
}

TEST(Headline, ScaleCsvColumnsAreHeadlineColumns) {
  std::vector<std::string> names;
  for (const HeadlineColumn* c : ScaleCsvColumns()) {
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c, FindHeadlineColumn(c->name));           // in the table, not a copy
    EXPECT_NE(c->kind, HeadlineColumn::Kind::kBinding);  // a size has no binding cap
    names.push_back(c->name);
  }
  // The order `dcplan scale --format=csv` has always written (tests/ and README rely on it).
  EXPECT_EQ(absl::StrJoin(names, ","),
            "gpu_count,server_count,rack_count,peak_flops_per_second,mfu,"
            "realized_flops_per_second,it_power_watts,facility_power_watts,capex_usd,tco_usd");
  // A ScaleRow has a Plan's paths: read through them.
  ScaleRow row;
  row.mutable_counts()->set_gpu_count(4096);
  row.mutable_compute()->set_mfu(0.4);
  row.mutable_cost()->set_tco_usd(2.5e9);
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("gpu_count"), row), 4096);
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("mfu"), row), 0.4);
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("tco_usd"), row), 2.5e9);
  EXPECT_EQ(HeadlineValueAt(*FindHeadlineColumn("binding_constraint"), row), 0);  // not in it
}

}  // namespace
}  // namespace dcplan
