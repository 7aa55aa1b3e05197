// File: planner/workload/power_limit.h
//
// A GPU power limit (hardware.accelerator.power_limit_watts) and what the accelerator still
// delivers under it: the power-performance curve (hardware.accelerator.power_curve, or the built-in
// one below), linear between its points. The capacity model (planner/model.cc) takes the limit as
// the accelerator's nameplate and provisioned power and min(measured, limit) as its draw; the
// capacity model and the training-step model (BuildTrainingHardware) both scale every peak rate
// (BF16, FP8, FP4) by the curve's throughput at limit / TDP. This is the one place that scaling is
// defined.
//
// The built-in curve (SOURCES.md#power-curve):
//   power / TDP       0.50  0.60  0.70  0.80  0.90  1.00
//   throughput        0.76  0.85  0.92  0.97  0.99  1.00
// NVIDIA's data-center power profiles (Blackwell B200, 2025) keep critical AI and HPC applications
// above 97% of their performance while saving up to 15% of the energy: 0.97 throughput at about
// 0.85 x 0.97 = 0.82 of the power. The 0.8 and 0.9 points are that published figure; the points
// below 0.8 are labelled estimates, steepening as power falls (dynamic power goes as f V^2, so each
// watt removed costs more clock), to 3/4 of the throughput at half the power. Below half the TDP
// no point is published, so the built-in curve stops there: that is the floor of a limit.
//
// Example:
//   const double f = PowerThroughputFraction(accelerator);   // 0.97 at 960 W of a 1,200 W GB200
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

// One point of the built-in curve.
struct PowerCurvePoint {
  double power_fraction;
  double throughput_fraction;
};

// The built-in curve, lowest power first (see the file comment).
inline constexpr PowerCurvePoint kDefaultPowerCurve[] = {
    {0.5, 0.76}, {0.6, 0.85}, {0.7, 0.92}, {0.8, 0.97}, {0.9, 0.99}, {1.0, 1.0},
};

// The smallest power_fraction a curve point may have (a user curve; the built-in one starts at
// 0.5).
inline constexpr double kMinPowerCurveFraction = 0.05;

// Checks accelerator.power_limit_watts, power_curve and power_limit_auto (tdp_watts already valid)
// as proto/request.proto states; errors name `path`.field and the bad value.
absl::Status ValidatePowerLimit(const Accelerator& accelerator, absl::string_view path);

// The lowest limit the accelerator's curve covers, as a fraction of its TDP (its first point).
units::Ratio PowerCurveFloor(const Accelerator& accelerator);

// The curve's throughput at `power_fraction` of the TDP, clamped to the curve's ends.
units::Ratio ThroughputAtPowerFraction(const Accelerator& accelerator, units::Ratio power_fraction);

// Whether the curve's slopes never rise with power (concave): then realized compute under a power
// cap, throughput(L) / (fixed + n L) in its continuous form, has one peak in L.
bool PowerCurveIsConcave(const Accelerator& accelerator);

// Whether a limit below the TDP is in force.
bool HasPowerLimit(const Accelerator& accelerator);

// The power the accelerator may draw: power_limit_watts, or tdp_watts without a limit.
units::Power EffectivePowerLimit(const Accelerator& accelerator);

// What the accelerator delivers under its limit, as a fraction of its rated peaks (1 without one).
units::Ratio PowerThroughputFraction(const Accelerator& accelerator);

// `hardware` with every accelerator peak (BF16, FP8, FP4) scaled by PowerThroughputFraction:
// `hardware` itself when no limit is set, otherwise `*scaled` filled with the scaled copy.
const Hardware& WithPowerLimitedPeaks(const Hardware& hardware, Hardware* scaled);

}  // namespace dcplan
