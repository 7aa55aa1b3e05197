// File: planner/power_limit_search.h
//
// hardware.accelerator.power_limit_auto: the GPU power limit that maximises realized compute under
// a request's caps. Limits run in 5 W steps from the power curve's floor (planner/workload/
// power_limit.h) up to the TDP, which is always a candidate; each is solved as a request with that
// limit. Ties go to the higher limit (the same compute from fewer GPUs).
//
// Without a workload the search is exact but does not solve every step. Realized compute at limit L
// is f(L) x H(L), where f is the power curve (non-decreasing in L) and H(L) the most rated-peak x
// MFU the caps allow (non-increasing in L: every power a cap counts grows with L, so a larger limit
// never admits more servers, and the MFU model does not see L). Between two solved limits a < b,
// any limit realizes at most H(a) x f(b); the search solves every 25 W (and the TDP), then solves
// the 5 W steps only inside the intervals whose bound beats the best found. With a workload the
// step model's MFU depends on the peak, so H is not known to be monotone: every step is solved.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(PowerLimitChoice c, ChoosePowerLimit(request));
//   // c.limit_watts == 960 for a GB200 site whose feed holds 80%-limited racks
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/request.pb.h"
#include "units/units.h"

namespace dcplan {

// The step between candidate limits.
inline constexpr double kPowerLimitStepWatts = 5.0;
// The coarse step of the bounded search: 5 fine steps.
inline constexpr int kPowerLimitCoarseSteps = 5;

struct PowerLimitChoice {
  units::Power limit;           // the chosen limit
  units::ComputeRate realized;  // what the plan realizes under it
  int64_t solves = 0;           // requests solved to find it
};

// The best limit for `request` (power_limit_auto set; validated by BuildModel on each candidate).
// `exhaustive` solves every 5 W step whatever the request (the tests' brute force).
absl::StatusOr<PowerLimitChoice> ChoosePowerLimit(const PlanRequest& request,
                                                  bool exhaustive = false);

// FailedPrecondition naming hardware.accelerator.power_limit_auto when `request` sets it: `what`
// (scale, a sweep) solves the request as given and does not search a limit.
absl::Status RefuseAutoPowerLimit(const PlanRequest& request, absl::string_view what);

// `request` with power_limit_auto cleared and power_limit_watts set to `limit`.
PlanRequest WithPowerLimit(const PlanRequest& request, units::Power limit);

}  // namespace dcplan
