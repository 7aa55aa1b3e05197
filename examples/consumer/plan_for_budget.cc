// plan_for_budget: what a budget buys under a power cap, for a few presets: the GPUs, what they
// deliver and which cap binds. A program outside dcplan's workspace that uses it as a library
// (targets @dcplan//planner, @dcplan//planner/presets and @dcplan//units).
//   bazel run //:plan_for_budget -- 2.5e9 100e6      # $2.5B, 100 MW at the meter
#include <cstdlib>
#include <iostream>
#include <string>

#include "planner/planner.h"
#include "planner/presets/presets.h"
#include "units/units.h"

int main(int argc, char** argv) {
  const dcplan::units::Money budget = dcplan::units::Usd(argc > 1 ? std::atof(argv[1]) : 2.5e9);
  const dcplan::units::Power cap = dcplan::units::Watts(argc > 2 ? std::atof(argv[2]) : 100e6);
  std::cout << "For $" << dcplan::units::InUsd(budget) / 1e9 << "B under "
            << dcplan::units::InMegawatts(cap) << " MW at the meter:\n";
  for (const std::string name : {"a100-dgx", "h100-dgx", "b200-dgx"}) {
    absl::StatusOr<dcplan::PlanRequest> request = dcplan::LoadPreset(name);
    if (!request.ok()) return std::cerr << request.status() << "\n", 1;
    request->mutable_constraints()->set_budget_usd(dcplan::units::InUsd(budget));
    request->mutable_constraints()->set_power_cap_watts(dcplan::units::InWatts(cap));
    absl::StatusOr<dcplan::Plan> plan = dcplan::SolvePlan(*request);
    if (!plan.ok()) return std::cerr << name << ": " << plan.status() << "\n", 1;
    std::cout << "  " << name << ": " << plan->counts().gpu_count() << " GPUs, "
              << plan->compute().realized_flops_per_second() / 1e18
              << " EFLOP/s realized, bound by "
              << dcplan::BindingConstraint_Name(plan->binding_constraint()) << "\n";
  }
  return 0;
}
