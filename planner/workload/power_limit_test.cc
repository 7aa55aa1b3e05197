// File: planner/workload/power_limit_test.cc
//
// The power-performance curve, its validation and the peaks under a limit. Expected values are read
// off the built-in curve's table (power_limit.h) and interpolated by hand.
#include "planner/workload/power_limit.h"

#include <string>

#include "absl/status/status.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::StatusIs;
using ::testing::Eq;

Accelerator Gpu(const std::string& extra = "") {
  Accelerator a;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "peak_flops_per_second: 2500e12 peak_fp8_flops_per_second: 5000e12 "
      "peak_fp4_flops_per_second: 10000e12 tdp_watts: 1200 " +
          extra,
      &a));
  return a;
}

double At(const Accelerator& a, double power_fraction) {
  return units::InFraction(ThroughputAtPowerFraction(a, units::Fraction(power_fraction)));
}

TEST(PowerCurve, TheBuiltInCurveGoesThroughItsPublishedAndEstimatedPoints) {
  const Accelerator a = Gpu();
  EXPECT_DOUBLE_EQ(At(a, 1.0), 1.0);   // rated power: nothing changes
  EXPECT_DOUBLE_EQ(At(a, 0.9), 0.99);  // NVIDIA's power profiles: >= 97% at ~82% of the power
  EXPECT_DOUBLE_EQ(At(a, 0.8), 0.97);
  EXPECT_DOUBLE_EQ(At(a, 0.5), 0.76);  // the floor (an estimate)
  // Linear between points: 0.85 is halfway from 0.97 to 0.99; 0.75 halfway from 0.92 to 0.97.
  EXPECT_NEAR(At(a, 0.85), 0.98, 1e-12);
  EXPECT_NEAR(At(a, 0.75), 0.945, 1e-12);
  // Clamped at the ends.
  EXPECT_DOUBLE_EQ(At(a, 0.3), 0.76);
  EXPECT_DOUBLE_EQ(units::InFraction(PowerCurveFloor(a)), 0.5);
  EXPECT_TRUE(PowerCurveIsConcave(a));
}

TEST(PowerCurve, AUserCurveReplacesTheBuiltInOne) {
  const Accelerator a =
      Gpu("power_curve { power_fraction: 0.6 throughput_fraction: 0.7 } "
          "power_curve { power_fraction: 1 throughput_fraction: 1 }");
  ASSERT_THAT(ValidatePowerLimit(a, "hardware.accelerator"), IsOk());
  // 0.8 is halfway from 0.6 to 1: 0.7 + 0.5 x 0.3 = 0.85.
  EXPECT_NEAR(At(a, 0.8), 0.85, 1e-12);
  EXPECT_DOUBLE_EQ(units::InFraction(PowerCurveFloor(a)), 0.6);
  EXPECT_TRUE(PowerCurveIsConcave(a));
  // Slopes 0.25 then 3: convex, so the bounded search would not be exact.
  const Accelerator convex =
      Gpu("power_curve { power_fraction: 0.5 throughput_fraction: 0.6 } "
          "power_curve { power_fraction: 0.9 throughput_fraction: 0.7 } "
          "power_curve { power_fraction: 1 throughput_fraction: 1 }");
  EXPECT_FALSE(PowerCurveIsConcave(convex));
}

TEST(PowerLimit, ScalesEveryPeakByTheCurve) {
  // 960 W of 1,200 W = 0.8 of the TDP: 0.97 of each rated peak.
  Hardware hw;
  *hw.mutable_accelerator() = Gpu("power_limit_watts: 960");
  EXPECT_TRUE(HasPowerLimit(hw.accelerator()));
  EXPECT_DOUBLE_EQ(units::InWatts(EffectivePowerLimit(hw.accelerator())), 960.0);
  EXPECT_DOUBLE_EQ(units::InFraction(PowerThroughputFraction(hw.accelerator())), 0.97);
  Hardware scratch;
  const Hardware& limited = WithPowerLimitedPeaks(hw, &scratch);
  EXPECT_EQ(&limited, &scratch);
  EXPECT_DOUBLE_EQ(limited.accelerator().peak_flops_per_second(), 0.97 * 2500e12);
  EXPECT_DOUBLE_EQ(limited.accelerator().peak_fp8_flops_per_second(), 0.97 * 5000e12);
  EXPECT_DOUBLE_EQ(limited.accelerator().peak_fp4_flops_per_second(), 0.97 * 10000e12);
}

TEST(PowerLimit, WithoutALimitTheHardwareIsReturnedAsItIs) {
  Hardware hw;
  *hw.mutable_accelerator() = Gpu();
  Hardware scratch;
  EXPECT_EQ(&WithPowerLimitedPeaks(hw, &scratch), &hw);
  EXPECT_FALSE(HasPowerLimit(hw.accelerator()));
  EXPECT_DOUBLE_EQ(units::InWatts(EffectivePowerLimit(hw.accelerator())), 1200.0);
  EXPECT_DOUBLE_EQ(units::InFraction(PowerThroughputFraction(hw.accelerator())), 1.0);
}

TEST(ValidatePowerLimit, AcceptsTheTdpTheFloorAndNone) {
  EXPECT_THAT(ValidatePowerLimit(Gpu(), "hardware.accelerator"), IsOk());
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_limit_watts: 1200"), "hardware.accelerator"), IsOk());
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_limit_watts: 600"), "hardware.accelerator"), IsOk());
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_limit_auto: true"), "hardware.accelerator"), IsOk());
}

TEST(ValidatePowerLimit, RefusesALimitOutsideTheCurveNamingTheField) {
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_limit_watts: 1300"), "hardware.accelerator"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       Eq("hardware.accelerator.power_limit_watts must be <= tdp_watts (1200), "
                          "got 1300")));
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_limit_watts: 599"), "hardware.accelerator"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       Eq("hardware.accelerator.power_limit_watts must be >= 600 (50% of "
                          "tdp_watts 1200, the lowest power the power curve covers), got 599")));
  EXPECT_THAT(
      ValidatePowerLimit(Gpu("power_limit_watts: -5"), "hardware.accelerator"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("hardware.accelerator.power_limit_watts must be > 0 when set (0 = none: the "
                  "TDP), got -5")));
  EXPECT_THAT(
      ValidatePowerLimit(Gpu("power_limit_watts: 960 power_limit_auto: true"),
                         "hardware.accelerator"),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               Eq("hardware.accelerator.power_limit_auto is true but "
                  "hardware.accelerator.power_limit_watts is 960: the search chooses the limit, "
                  "so set one or the other")));
}

TEST(ValidatePowerLimit, RefusesABadCurveNamingThePoint) {
  EXPECT_THAT(
      ValidatePowerLimit(Gpu("power_curve { power_fraction: 1 throughput_fraction: 1 }"),
                         "hardware.accelerator"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               Eq("hardware.accelerator.power_curve must have at least 2 points (the last {1, "
                  "1}), got 1")));
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_curve { power_fraction: 0.9 throughput_fraction: 0.9 } "
                                     "power_curve { power_fraction: 0.8 throughput_fraction: 1 }"),
                                 "hardware.accelerator"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("hardware.accelerator.power_curve[1].power_fraction must be > the "
                          "previous point's (0.9): the points go from the lowest power up, got "
                          "0.8")));
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_curve { power_fraction: 0.5 throughput_fraction: 0.9 } "
                                     "power_curve { power_fraction: 0.8 throughput_fraction: 0.8 } "
                                     "power_curve { power_fraction: 1 throughput_fraction: 1 }"),
                                 "hardware.accelerator"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("hardware.accelerator.power_curve[1].throughput_fraction must be >= the "
                          "previous point's (0.9): more power never delivers less, got 0.8")));
  EXPECT_THAT(ValidatePowerLimit(Gpu("power_curve { power_fraction: 0.5 throughput_fraction: 0.8 } "
                                     "power_curve { power_fraction: 1 throughput_fraction: 0.9 }"),
                                 "hardware.accelerator"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Eq("hardware.accelerator.power_curve[1] must be {power_fraction: 1, "
                          "throughput_fraction: 1} (at the rated power nothing changes), got {1, "
                          "0.9}")));
  EXPECT_THAT(
      ValidatePowerLimit(Gpu("power_curve { power_fraction: 0.01 throughput_fraction: 0.1 } "
                             "power_curve { power_fraction: 1 throughput_fraction: 1 }"),
                         "hardware.accelerator"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          Eq("hardware.accelerator.power_curve[0].power_fraction must be in [0.05, 1], got 0.01")));
  // A user curve's first point is the floor: 0.6 x 1,200 = 720 W.
  EXPECT_THAT(
      ValidatePowerLimit(Gpu("power_limit_watts: 700 "
                             "power_curve { power_fraction: 0.6 throughput_fraction: 0.7 } "
                             "power_curve { power_fraction: 1 throughput_fraction: 1 }"),
                         "hardware.accelerator"),
      StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::HasSubstr("must be >= 720 (60%")));
}

}  // namespace
}  // namespace dcplan
