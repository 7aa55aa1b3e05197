// File: planner/defaults.h
//
// The defaults proto/request.proto promises for its optional fields, in one place, so the validator (which
// checks cross-field rules on effective values) and the model (which applies them) cannot disagree.
//
// Example:
//   double pue = site.has_pue() ? site.pue() : defaults::kPue;
#pragma once

namespace dcplan::defaults {

inline constexpr double kPue = 1.3;                 // site.pue
inline constexpr double kPowerFactor = 0.95;        // site.substation.power_factor
inline constexpr double kAverageUtilization = 0.8;  // costs.average_utilization
inline constexpr double kHorizonYears = 4.0;        // costs.horizon_years
inline constexpr double kLeafOversubscription = 1.0;  // hardware.network.leaf_oversubscription
// efficiency.log_linear: the seed chapter's MFU = 0.62 - 0.02 log2(G), floored at 0.01.
inline constexpr double kMfuIntercept = 0.62;
inline constexpr double kMfuSlopePerDoubling = 0.02;
inline constexpr double kMfuFloor = 0.01;

}  // namespace dcplan::defaults
