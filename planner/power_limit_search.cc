// File: planner/power_limit_search.cc
#include "planner/power_limit_search.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/field_checks.h"
#include "base/status_macros.h"
#include "planner/model.h"
#include "planner/solver.h"
#include "planner/workload/power_limit.h"

namespace dcplan {
namespace {

struct Candidate {
  double watts = 0;
  double realized = 0;  // FLOP/s; < 0 = not solved
};

}  // namespace

absl::Status RefuseAutoPowerLimit(const PlanRequest& request, absl::string_view what) {
  if (!request.hardware().accelerator().power_limit_auto()) return absl::OkStatus();
  return WithFieldPath(
      absl::FailedPreconditionError(absl::StrCat(
          "hardware.accelerator.power_limit_auto is true, but ", what,
          " does not search a power limit (fit and compare do): give a limit in watts")),
      "hardware.accelerator.power_limit_auto");
}

PlanRequest WithPowerLimit(const PlanRequest& request, units::Power limit) {
  PlanRequest r = request;
  Accelerator* a = r.mutable_hardware()->mutable_accelerator();
  a->set_power_limit_auto(false);
  a->set_power_limit_watts(units::InWatts(limit));
  return r;
}

absl::StatusOr<PowerLimitChoice> ChoosePowerLimit(const PlanRequest& request, bool exhaustive) {
  const Accelerator& gpu = request.hardware().accelerator();
  if (!(gpu.tdp_watts() > 0)) {
    return absl::InvalidArgumentError(
        "hardware.accelerator.tdp_watts must be > 0 to search a limit");
  }
  const double tdp = gpu.tdp_watts();
  const double floor = units::InFraction(PowerCurveFloor(gpu)) * tdp;
  // Fine candidates: floor, floor + 5 W, ... below the TDP, then the TDP.
  std::vector<Candidate> grid;
  for (int64_t k = 0;; ++k) {
    const double w = floor + static_cast<double>(k) * kPowerLimitStepWatts;
    if (!(w < tdp)) break;
    grid.push_back({w, -1});
  }
  grid.push_back({tdp, -1});
  const int n = static_cast<int>(grid.size());

  PowerLimitChoice choice;
  PlanRequest scratch = request;
  auto solve = [&](int i) -> absl::Status {
    if (grid[i].realized >= 0) return absl::OkStatus();
    scratch.mutable_hardware()->mutable_accelerator()->set_power_limit_auto(false);
    scratch.mutable_hardware()->mutable_accelerator()->set_power_limit_watts(grid[i].watts);
    DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(scratch));
    DCPLAN_ASSIGN_OR_RETURN(Solution s, Solve(model));
    grid[i].realized = units::InFlopsPerSecond(s.eval.realized);
    ++choice.solves;
    return absl::OkStatus();
  };

  if (exhaustive || request.has_workload()) {
    for (int i = 0; i < n; ++i) DCPLAN_RETURN_IF_ERROR(solve(i));
  } else {
    // The coarse points: every kPowerLimitCoarseSteps-th candidate and the TDP.
    std::vector<int> coarse;
    for (int i = 0; i < n - 1; i += kPowerLimitCoarseSteps) coarse.push_back(i);
    coarse.push_back(n - 1);
    double best = 0;
    for (int i : coarse) {
      DCPLAN_RETURN_IF_ERROR(solve(i));
      best = std::max(best, grid[i].realized);
    }
    // Between coarse points a < b, realized <= H(a) f(b) = realized(a) f(b) / f(a).
    for (size_t j = 0; j + 1 < coarse.size(); ++j) {
      const int a = coarse[j];
      const int b = coarse[j + 1];
      if (b - a < 2) continue;
      const double fa =
          units::InFraction(ThroughputAtPowerFraction(gpu, units::Fraction(grid[a].watts / tdp)));
      const double fb =
          units::InFraction(ThroughputAtPowerFraction(gpu, units::Fraction(grid[b].watts / tdp)));
      const double bound = grid[a].realized * fb / fa;
      if (!(bound > best)) continue;
      for (int i = a + 1; i < b; ++i) {
        DCPLAN_RETURN_IF_ERROR(solve(i));
        best = std::max(best, grid[i].realized);
      }
    }
  }
  // The best solved candidate; ties to the higher limit.
  int pick = -1;
  for (int i = 0; i < n; ++i) {
    if (grid[i].realized < 0) continue;
    if (pick < 0 || grid[i].realized >= grid[pick].realized) pick = i;
  }
  choice.limit = units::Watts(grid[pick].watts);
  choice.realized = units::FlopsPerSecond(grid[pick].realized);
  return choice;
}

}  // namespace dcplan
