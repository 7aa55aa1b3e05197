#include "planner/model.h"

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/plan.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/solver.h"
#include "planner/test_requests.h"
#include "planner/validate.h"

namespace dcplan {
namespace {

using ::dcplan::testing::CrossSectionVariant;
using ::dcplan::testing::H100With;
using ::dcplan::testing::IsOk;
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

TEST(BuildModel, MeasuredPowerIsProvisionedOnlyUnderTheMeasuredBasis) {
  // At the nameplate (the default): 8 x 700 + 4,600 = 10,200 W; the draw under load is
  // 8 x 532 + 4,600 = 8,856 W.
  Model m = BuildModel(H100With("hardware { accelerator { measured_power_watts: 532 } }")).value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerPower()), 10200.0);
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerMeasuredPower()), 8856.0);
  // Measured, no margin: 8,856 W.
  m = BuildModel(H100With("hardware { accelerator { measured_power_watts: 532 } } site { "
                          "provisioning { basis: PROVISIONING_BASIS_MEASURED margin: 0 } }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.ServerPower()), 8856.0);
  // Measured with a 10% margin, every device alike but never above its nameplate:
  // 8 x min(700, 532 x 1.1 = 585.2) + min(4,600, 3,000 x 1.1 = 3,300) = 4,681.6 + 3,300 = 7,981.6
  // W.
  m = BuildModel(H100With("hardware { accelerator { measured_power_watts: 532 } server { "
                          "measured_overhead_watts: 3000 } } site { provisioning { basis: "
                          "PROVISIONING_BASIS_MEASURED margin: 0.1 } }"))
          .value();
  EXPECT_NEAR(units::InWatts(m.ServerPower()), 7981.6, 1e-9);
  // A margin that would pass the nameplate stops at it: 532 x 1.5 = 798 > 700.
  m = BuildModel(H100With("hardware { accelerator { measured_power_watts: 532 } } site { "
                          "provisioning { basis: PROVISIONING_BASIS_MEASURED margin: 0.5 } }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InWatts(m.accelerator.power), 700.0);
}

TEST(BuildModel, ALiquidCooledFacilityPaysThePremiumPerItWatt) {
  // Air: the facility price as given, $10/W.
  Model m = BuildModel(H100With("site { cooling: COOLING_AIR } costs { facility_usd_per_it_watt: "
                                "10 }"))
                .value();
  EXPECT_DOUBLE_EQ(units::InUsdPerWatt(m.costs.facility_per_it_power), 10.0);
  // Direct liquid with the default premium, $0.9/W (planner/defaults.h): 10 + 0.9 = $10.9/W.
  m = BuildModel(H100With("site { cooling: COOLING_DIRECT_LIQUID } costs { "
                          "facility_usd_per_it_watt: 10 }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InUsdPerWatt(m.costs.facility_per_it_power), 10.9);
  // A premium given explicitly: 10 + 2.5 = $12.5/W.
  m = BuildModel(H100With("site { cooling: COOLING_DIRECT_LIQUID } costs { "
                          "facility_usd_per_it_watt: 10 liquid_cooling_premium_usd_per_it_watt: "
                          "2.5 }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InUsdPerWatt(m.costs.facility_per_it_power), 12.5);
  // The premium is ignored on air and when no cooling is given.
  m = BuildModel(H100With("costs { facility_usd_per_it_watt: 10 "
                          "liquid_cooling_premium_usd_per_it_watt: 2.5 }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InUsdPerWatt(m.costs.facility_per_it_power), 10.0);
  // An unpriced facility stays unpriced: 0, not the premium alone.
  m = BuildModel(H100With("site { cooling: COOLING_DIRECT_LIQUID } costs { "
                          "facility_usd_per_it_watt: 0 }"))
          .value();
  EXPECT_DOUBLE_EQ(units::InUsdPerWatt(m.costs.facility_per_it_power), 0.0);
}

TEST(BuildModel, PuesFollowTheCoolingUnlessGiven) {
  // No cooling type: pue 1.3 (the schema's default), the annual PUE equal to it.
  Model m = BuildModel(SeedWith("site { pue: 1.3 }")).value();
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.annual_pue), 1.3);
  // Direct liquid: design day 1.2, annual 1.14 (planner/defaults.h's sources).
  PlanRequest r = SeedWith("");
  r.mutable_site()->clear_pue();
  r.mutable_site()->set_cooling(COOLING_DIRECT_LIQUID);
  m = BuildModel(r).value();
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.pue), 1.2);
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.annual_pue), 1.14);
  // Air: 1.55 and 1.44 (Uptime's large-site average).
  r.mutable_site()->set_cooling(COOLING_AIR);
  m = BuildModel(r).value();
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.pue), 1.55);
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.annual_pue), 1.44);
  // A design-day PUE below the cooling's annual default pulls the annual down to it.
  r.mutable_site()->set_pue(1.1);
  m = BuildModel(r).value();
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.annual_pue), 1.1);
  // Given, the annual PUE stands, and a sweep's patched peak leaves it alone.
  r.mutable_site()->set_annual_pue(1.05);
  m = BuildModel(r).value();
  SetPeakPue(1.5, &m.site);
  EXPECT_DOUBLE_EQ(units::InFraction(m.site.annual_pue), 1.05);
}

TEST(AnnuityYears, RepaysCapitalAtTheWacc) {
  // At 0%: the life itself.
  EXPECT_DOUBLE_EQ(units::InYears(AnnuityYears(0.0, 20.0)), 20.0);
  // At 8% over 20 years: (1 - 1.08^-20) / 0.08 = (1 - 0.214548) / 0.08 = 9.818147 years, i.e. a
  // capital recovery factor of 10.19% a year (standard annuity tables give 0.101852).
  EXPECT_NEAR(units::InYears(AnnuityYears(0.08, 20.0)), 9.818147, 1e-6);
  EXPECT_NEAR(1.0 / units::InYears(AnnuityYears(0.08, 20.0)), 0.101852, 1e-6);
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

// RebuildModel on a move of one number builds the model BuildValidatedModel builds from scratch:
// each preset and variants (air cooling, measured provisioning, a TCO budget, the compute
// objective, a constant MFU, a building limit), every numeric field moved up and down by 10% and
// set to a few values, each valid move solved on both models and written out as a Plan (every
// count, power, cost and compute figure the model feeds) and compared byte for byte. Invalid
// moves are skipped: RebuildModel is for valid requests only.
TEST(RebuildModel, BuildsWhatBuildValidatedModelBuilds) {
  std::vector<PlanRequest> bases;
  for (const std::string& preset : PresetNames()) {
    PlanRequest r = LoadPreset(preset).value();
    r.mutable_constraints()->set_power_cap_watts(40e6);
    bases.push_back(r);
    PlanRequest v = CrossSectionVariant(r, 2e9);
    v.mutable_site()->mutable_building()->set_critical_it_power_watts(12e6);
    if (ValidateRequest(v).ok()) bases.push_back(v);
    PlanRequest c = r;
    c.mutable_efficiency()->mutable_constant()->set_mfu(0.4);
    bases.push_back(c);
    // Capped at the substation: the caps read the site.
    PlanRequest s = c;
    Substation* substation = s.mutable_site()->mutable_substation();
    substation->set_transformer_rating_va(30e6);
    substation->set_transformer_count(2);
    substation->set_redundancy(REDUNDANCY_N_PLUS_1);
    s.mutable_constraints()->clear_power_cap_watts();
    s.mutable_constraints()->set_power_cap_at(POWER_CAP_AT_SUBSTATION);
    ASSERT_THAT(ValidateRequest(s), IsOk()) << preset;
    bases.push_back(s);
  }
  int compared = 0;
  for (const PlanRequest& base : bases) {
    ASSERT_THAT(ValidateRequest(base), IsOk()) << base.name();
    const Model base_model = BuildValidatedModel(base).value();
    const bool reference = base.efficiency().has_reference_workload();
    for (const std::string& path : AllScalarPaths()) {
      const FieldRef* field = FindScalarField(path);
      if (field == nullptr || !field->numeric() || field->leaf()->is_repeated()) continue;
      // A reference workload's moves of the step model's figures search it again (slow): the
      // 10% moves on three presets only.
      const bool slow = reference && (RequestSectionOf(path) == kRequestHardware);
      const double value = GetNumber(base, *field);
      std::vector<double> values = {value * 1.1, value * 0.9};
      if (!slow) values.insert(values.end(), {value + 1, 0.5, 2.0, 1e4});
      if (slow && base.name() != "h100-dgx" && base.name() != "gb200-nvl72" &&
          base.name() != "mi300x") {
        continue;
      }
      for (double v : values) {
        PlanRequest moved = base;
        if (!SetNumber(*field, v, &moved).ok() || !ValidateRequest(moved).ok()) continue;
        auto fresh = BuildValidatedModel(moved);
        Model rebuilt = base_model;
        const absl::Status status = RebuildModel(moved, RequestSectionOf(path), &rebuilt);
        ASSERT_EQ(status, fresh.status()) << base.name() << ": " << path << " = " << v;
        if (!status.ok()) continue;
        auto a = Solve(*fresh);
        auto b = Solve(rebuilt);
        ASSERT_EQ(a.status(), b.status()) << base.name() << ": " << path << " = " << v;
        if (!a.ok()) continue;
        EXPECT_EQ(ToPlan(*fresh, *a).SerializeAsString(), ToPlan(rebuilt, *b).SerializeAsString())
            << base.name() << ": " << path << " = " << v;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 5000);
}

}  // namespace
}  // namespace dcplan
