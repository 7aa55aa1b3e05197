// How many GPUs fit in 50 MW? The dcplan library answers in a few lines.
//   ./bazelw run //examples:how_many_gpus -- 50e6
#include <cstdlib>
#include <iostream>

#include "planner/planner.h"
#include "planner/presets/presets.h"

int main(int argc, char** argv) {
  const double megawatts = argc > 1 ? std::atof(argv[1]) : 50.0;
  absl::StatusOr<dcplan::PlanRequest> request = dcplan::LoadPreset("h100-dgx");
  if (!request.ok()) return std::cerr << request.status() << "\n", 1;
  request->mutable_constraints()->set_power_cap_watts(megawatts * 1e6);  // at the facility meter
  absl::StatusOr<dcplan::Plan> plan = dcplan::SolvePlan(*request);
  if (!plan.ok()) return std::cerr << plan.status() << "\n", 1;
  std::cout << plan->counts().gpu_count() << " H100 GPUs fit in " << megawatts << " MW, delivering "
            << plan->compute().realized_flops_per_second() / 1e18 << " EFLOP/s realized\n";
  return 0;
}
