// File: tests/power_limit_test.cc
//
// A GPU power limit across the planner: the capacity model (provisioned and measured power follow
// the limit, the peak follows the curve), the training-step model's peaks, fit under a power cap,
// the limit search (against a brute-force scan) and the request-edit layer's --gpu_power_limit.
// Expected values are worked out by hand from the presets' figures (shown in the comments) and the
// built-in curve of planner/workload/power_limit.h (0.8 of the TDP -> 0.97 of the throughput).
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/model.h"
#include "planner/planner.h"
#include "planner/power_limit_search.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/solver.h"
#include "planner/workload/workload_model.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::Eq;
using ::testing::HasSubstr;

// The preset with the seed's MFU curve in place of its reference workload: these tests check the
// power arithmetic and the limit search, which do not depend on where MFU comes from, and a
// reference table per limit (the limit enters the table's key) would cost the unoptimized test
// minutes.
PlanRequest Preset(const std::string& name) {
  absl::StatusOr<PlanRequest> r = LoadPreset(name);
  EXPECT_THAT(r, IsOk()) << name;
  if (!r.ok()) return PlanRequest();
  r->mutable_efficiency()->mutable_log_linear()->set_intercept(0.62);
  return *r;
}

// The GB200 NVL72 preset at a 100 MW facility cap, with the GPUs limited to `limit_watts` (0 =
// none).
PlanRequest Gb200At100Mw(double limit_watts) {
  PlanRequest r = Preset("gb200-nvl72");
  r.mutable_constraints()->set_power_cap_watts(100e6);
  r.mutable_hardware()->mutable_accelerator()->set_power_limit_watts(limit_watts);
  return r;
}

Plan MustSolve(const PlanRequest& r) {
  absl::StatusOr<Plan> plan = SolvePlan(r);
  EXPECT_THAT(plan, IsOk());
  return plan.ok() ? *plan : Plan();
}

TEST(PowerLimit, AtTheRatedPowerNothingChanges) {
  Plan rated = MustSolve(Gb200At100Mw(0));
  Plan limited = MustSolve(Gb200At100Mw(1200));
  // The limited plan says which limit it ran under and that the GPU delivered all of its peak.
  EXPECT_EQ(limited.compute().gpu_power_limit_watts(), 1200.0);
  EXPECT_EQ(limited.compute().power_throughput_fraction(), 1.0);
  EXPECT_EQ(rated.compute().gpu_power_limit_watts(), 0.0);
  // The assumptions ledger names the limit (what the GPUs' power now rests on) where it named the
  // TDP, with the same influence.
  double tdp_influence = -1;
  double limit_influence = -2;
  for (const Assumption& a : rated.assumptions()) {
    if (a.path() == "hardware.accelerator.tdp_watts") tdp_influence = a.influence();
  }
  for (const Assumption& a : limited.assumptions()) {
    if (a.path() == "hardware.accelerator.power_limit_watts") limit_influence = a.influence();
  }
  EXPECT_EQ(tdp_influence, limit_influence);
  // Everything else is byte for byte the same.
  limited.mutable_compute()->clear_gpu_power_limit_watts();
  limited.mutable_compute()->clear_power_throughput_fraction();
  rated.clear_assumptions();
  limited.clear_assumptions();
  EXPECT_TRUE(rated.SerializeAsString() == limited.SerializeAsString())
      << rated.DebugString() << "\n---\n"
      << limited.DebugString();
}

TEST(PowerLimit, AtEightyPercentTheServerFallsByTheGpuShare) {
  // GB200 NVL72 at nameplate: 72 x 1,200 + 45,600 = 132,000 W a rack; limited to 960 W (0.8 of
  // the TDP): 72 x 960 + 45,600 = 114,720 W, 72 x 240 = 17,280 W less. Under load (no measured GPU
  // draw is published, so the limit itself): 72 x 960 + 33,600 = 102,720 W. Peak: 0.97 x 2,500
  // TFLOP/s = 2,425 TFLOP/s.
  absl::StatusOr<Model> rated = BuildModel(Gb200At100Mw(0));
  absl::StatusOr<Model> limited = BuildModel(Gb200At100Mw(960));
  ASSERT_THAT(rated, IsOk());
  ASSERT_THAT(limited, IsOk());
  EXPECT_DOUBLE_EQ(units::InWatts(rated->ServerPower()), 132000.0);
  EXPECT_DOUBLE_EQ(units::InWatts(limited->ServerPower()), 114720.0);
  EXPECT_DOUBLE_EQ(units::InWatts(rated->ServerPower() - limited->ServerPower()), 17280.0);
  EXPECT_DOUBLE_EQ(units::InWatts(limited->ServerMeasuredPower()), 102720.0);
  EXPECT_DOUBLE_EQ(units::InFlopsPerSecond(limited->accelerator.peak), 2425e12);
  EXPECT_TRUE(limited->accelerator.has_power_limit);
  EXPECT_FALSE(rated->accelerator.has_power_limit);
}

TEST(PowerLimit, AMeasuredDrawBelowTheLimitStaysAndOneAboveItIsCut) {
  // h100-dgx: 532 W measured under training (SOURCES.md#dgx-h100-measured). A 600 W limit leaves
  // it; a 500 W limit cuts it to 500 W. Under MEASURED provisioning with the default 10% margin:
  // min(600, 532 x 1.1 = 585.2) = 585.2 W and min(500, 500 x 1.1) = 500 W.
  PlanRequest r = Preset("h100-dgx");
  r.mutable_site()->mutable_provisioning()->set_basis(PROVISIONING_BASIS_MEASURED);
  r.mutable_site()->mutable_provisioning()->set_margin(0.1);
  r.mutable_hardware()->mutable_accelerator()->set_power_limit_watts(600);
  absl::StatusOr<Model> m600 = BuildModel(r);
  ASSERT_THAT(m600, IsOk());
  EXPECT_DOUBLE_EQ(units::InWatts(m600->accelerator.measured), 532.0);
  EXPECT_NEAR(units::InWatts(m600->accelerator.power), 585.2, 1e-9);
  r.mutable_hardware()->mutable_accelerator()->set_power_limit_watts(500);
  absl::StatusOr<Model> m500 = BuildModel(r);
  ASSERT_THAT(m500, IsOk());
  EXPECT_DOUBLE_EQ(units::InWatts(m500->accelerator.measured), 500.0);
  EXPECT_DOUBLE_EQ(units::InWatts(m500->accelerator.power), 500.0);
  // 500 / 700 = 0.714...: 0.92 + (0.714 - 0.7) / 0.1 x 0.05 = 0.92714...
  EXPECT_NEAR(units::InFraction(m500->accelerator.power_throughput),
              0.92 + (500.0 / 700.0 - 0.7) / 0.1 * 0.05, 1e-12);
}

TEST(PowerLimit, TheStepModelSeesTheLimitedPeak) {
  Hardware hw = Preset("gb200-nvl72").hardware();
  const double rated = units::InFlopsPerSecond(BuildTrainingHardware(hw).peak);
  hw.mutable_accelerator()->set_power_limit_watts(960);
  EXPECT_DOUBLE_EQ(units::InFlopsPerSecond(BuildTrainingHardware(hw).peak), 0.97 * rated);
}

TEST(PowerLimit, FitPutsMoreGpusUnderAPowerCapAndTheirComputeFollowsTheCurve) {
  // At 100 MW the facility cap binds. A rack falls from 132,000 W to 114,720 W (x 0.8691); the
  // network per GPU does not change, so the count rises by a little less than 132 / 114.72 =
  // 1.1506 and by more than 1.10 (the network is ~4% of the IT power). Each GPU realizes 0.97 of
  // its rated peak.
  const Plan rated = MustSolve(Gb200At100Mw(0));
  const Plan limited = MustSolve(Gb200At100Mw(960));
  EXPECT_EQ(rated.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  EXPECT_EQ(limited.binding_constraint(), BINDING_CONSTRAINT_FACILITY_POWER);
  const double ratio = static_cast<double>(limited.counts().gpu_count()) /
                       static_cast<double>(rated.counts().gpu_count());
  EXPECT_GT(ratio, 1.10);
  EXPECT_LT(ratio, 132.0 / 114.72);
  EXPECT_DOUBLE_EQ(limited.compute().peak_flops_per_second(),
                   static_cast<double>(limited.counts().gpu_count()) * 2425e12);
  EXPECT_EQ(limited.compute().gpu_power_limit_watts(), 960.0);
  EXPECT_EQ(limited.compute().power_throughput_fraction(), 0.97);
  EXPECT_LE(limited.power().facility_power_watts(), 100e6);
}

// The request with power_limit_auto and the compute objective.
PlanRequest AutoGb200(double cap_watts) {
  PlanRequest r = Gb200At100Mw(0);
  r.mutable_constraints()->set_power_cap_watts(cap_watts);
  r.mutable_constraints()->set_objective(OBJECTIVE_MAX_REALIZED_COMPUTE);
  r.mutable_hardware()->mutable_accelerator()->set_power_limit_auto(true);
  return r;
}

TEST(PowerLimitSearch, FindsWhatABruteForceScanFinds) {
  for (double cap : {5e6, 37e6, 100e6, 1e9}) {
    SCOPED_TRACE(cap);
    const PlanRequest r = AutoGb200(cap);
    // The brute force, here: every 5 W from 600 W (half the TDP) to 1,200 W, solved as a plan.
    double best_watts = 0;
    double best = -1;
    for (double w = 600; w <= 1200; w += 5) {
      const Plan p = MustSolve(WithPowerLimit(r, units::Watts(w)));
      if (p.compute().realized_flops_per_second() >= best) {
        best = p.compute().realized_flops_per_second();
        best_watts = w;
      }
    }
    absl::StatusOr<PowerLimitChoice> bounded = ChoosePowerLimit(r);
    absl::StatusOr<PowerLimitChoice> exhaustive = ChoosePowerLimit(r, /*exhaustive=*/true);
    ASSERT_THAT(bounded, IsOk());
    ASSERT_THAT(exhaustive, IsOk());
    EXPECT_EQ(units::InWatts(bounded->limit), best_watts);
    EXPECT_EQ(units::InFlopsPerSecond(bounded->realized), best);
    EXPECT_EQ(units::InWatts(exhaustive->limit), best_watts);
    EXPECT_EQ(exhaustive->solves, 121);  // (1,200 - 600) / 5 + 1
    EXPECT_LT(bounded->solves, exhaustive->solves);
    // The plan reports the limit it chose, and realizes what the scan found.
    const Plan plan = MustSolve(r);
    EXPECT_EQ(plan.compute().gpu_power_limit_watts(), best_watts);
    EXPECT_EQ(plan.compute().realized_flops_per_second(), best);
    ASSERT_GT(plan.notes_size(), 0);
    EXPECT_THAT(plan.notes(plan.notes_size() - 1),
                HasSubstr("power_limit_auto chose a GPU power limit of"));
  }
}

TEST(PowerLimitSearch, UnderAPowerCapALimitBelowTheTdpRealizesMore) {
  // With the built-in curve a GB200 rack realizes, per facility watt, f(L) / (72 L + the rest):
  // at 1,200 W 1.00 / 132 kW, at 720 W (0.6) 0.85 / 97.4 kW, 15% more; so the search leaves the
  // TDP.
  const Plan plan = MustSolve(AutoGb200(100e6));
  const Plan rated = MustSolve(Gb200At100Mw(0));
  EXPECT_LT(plan.compute().gpu_power_limit_watts(), 1200.0);
  EXPECT_GT(plan.compute().realized_flops_per_second(),
            1.10 * rated.compute().realized_flops_per_second());
}

TEST(PowerLimitSearch, NeedsTheComputeObjectiveAndRefusesScale) {
  PlanRequest r = AutoGb200(100e6);
  r.mutable_constraints()->set_objective(OBJECTIVE_MAX_GPUS);
  EXPECT_THAT(SolvePlan(r), StatusIs(absl::StatusCode::kFailedPrecondition,
                                     HasSubstr("so constraints.objective must be "
                                               "OBJECTIVE_MAX_REALIZED_COMPUTE, got "
                                               "OBJECTIVE_MAX_GPUS")));
  const int64_t sizes[] = {72};
  EXPECT_THAT(Scale(AutoGb200(100e6), sizes),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       Eq("hardware.accelerator.power_limit_auto is true, but scale does not "
                          "search a power limit (fit and compare do): give a limit in watts")));
}

TEST(GpuPowerLimitAlias, TakesWattsOrAuto) {
  PlanRequest r = Preset("gb200-nvl72");
  ASSERT_THAT(SetField("gpu_power_limit", "auto", "--gpu_power_limit", &r), IsOk());
  EXPECT_TRUE(r.hardware().accelerator().power_limit_auto());
  EXPECT_EQ(r.hardware().accelerator().power_limit_watts(), 0.0);
  // A limit in watts replaces the search.
  ASSERT_THAT(SetField("gpu_power_limit", "0.96kW", "--gpu_power_limit", &r), IsOk());
  EXPECT_EQ(r.hardware().accelerator().power_limit_watts(), 960.0);
  EXPECT_FALSE(r.hardware().accelerator().power_limit_auto());
}

TEST(GpuPowerLimitAlias, TwoSetsOnOneCurvePointKeepBoth) {
  // Each --set names one field of one element; the second must not drop the first.
  PlanRequest r = Preset("gb200-nvl72");
  for (const char* assignment : {"hardware.accelerator.power_curve[0].power_fraction=0.6",
                                 "hardware.accelerator.power_curve[0].throughput_fraction=0.8",
                                 "hardware.accelerator.power_curve[1].power_fraction=1",
                                 "hardware.accelerator.power_curve[1].throughput_fraction=1"}) {
    ASSERT_THAT(ApplyAssignment(assignment, "--set", &r), IsOk()) << assignment;
  }
  const Accelerator& a = r.hardware().accelerator();
  ASSERT_EQ(a.power_curve_size(), 2);
  EXPECT_EQ(a.power_curve(0).power_fraction(), 0.6);
  EXPECT_EQ(a.power_curve(0).throughput_fraction(), 0.8);
  EXPECT_EQ(a.power_curve(1).power_fraction(), 1.0);
  EXPECT_EQ(a.power_curve(1).throughput_fraction(), 1.0);
  // The user's curve is in force: 960 W = 0.8 of the TDP, halfway from 0.6 to 1: 0.9.
  ASSERT_THAT(SetField("gpu_power_limit", "960W", "--gpu_power_limit", &r), IsOk());
  absl::StatusOr<Model> m = BuildModel(r);
  ASSERT_THAT(m, IsOk());
  EXPECT_NEAR(units::InFraction(m->accelerator.power_throughput), 0.9, 1e-12);
}

}  // namespace
}  // namespace dcplan
