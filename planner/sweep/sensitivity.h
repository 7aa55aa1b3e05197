// File: planner/sweep/sensitivity.h
//
// Sensitivity (a tornado): for each uncertain input, one plan output with that input at its P10
// and at its P90 and every other uncertain input at its P50, ranked by the swing between the two.
// Each point is a full SolvePlan of the request, so the figures are what `fit` says at those
// values. Under a power cap a price moves the GPU count not at all and the PUE a lot; under a
// budget cap the reverse.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun mc, MonteCarloRun::Create(request));
//   DCPLAN_ASSIGN_OR_RETURN(std::vector<SensitivityEntry> tornado,
//                           Sensitivity(mc, "gpu_count"));
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/ledger.h"
#include "planner/sweep/monte_carlo.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

// One entry per uncertain input, the largest swing first (ties in the request's order). `output`
// as PlanOutput takes it ("gpu_count", "tco_usd", "cost.energy_usd_per_year"). An error when a
// point has no plan, naming the input and its value.
absl::StatusOr<std::vector<SensitivityEntry>> Sensitivity(const MonteCarloRun& run,
                                                          absl::string_view output);

}  // namespace dcplan

namespace dcplan {

// The plan of a request with uncertain inputs: SolvePlan of the request at the inputs' medians
// (with `explain`), its `distribution` over the Monte Carlo samples, and with
// monte_carlo.sensitivity its `sensitivity` for monte_carlo.sensitivity_output (default
// gpu_count). A request without uncertain inputs is just SolvePlan.
absl::StatusOr<Plan> SolveUncertainPlan(const PlanRequest& request,
                                        const MonteCarloOptions& options = MonteCarloOptions(),
                                        const ExplainOptions& explain = ExplainOptions());

}  // namespace dcplan
