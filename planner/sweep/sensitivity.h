// File: planner/sweep/sensitivity.h
//
// Sensitivity (a tornado): for each uncertain input, one plan output with that input at its P10
// and at its P90 and every other uncertain input at its P50, ranked by the swing between the two.
// Each point is a full SolvePlan of the request, so the figures are what `fit` says at those
// values. Under a power cap a price moves the GPU count not at all and the PUE a lot; under a
// budget cap the reverse.
//
// When the run samples the efficiency model's own error (MonteCarloRun::mfu_error_sigma() > 0), the
// tornado has one more row, path kMfuModelErrorPath: the MFU at the P10 and P90 of the plan's MFU
// interval (Plan.mfu_interval, the spread of the plan's GPU family, planner/mfu_error.h) with every
// input at its P50. Its swing is what the Monte Carlo does with the error: the outputs that scale
// with realized compute (MFU, realized FLOP/s, tokens a second) move by the interval's factor,
// those that scale with its inverse (time to train, step time, $ per realized EFLOP/s-year) by the
// inverse, and the rest (GPUs, power, money) not at all: the solver's size does not depend on it.
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

// The path of the tornado's row for the efficiency model's own error.
inline constexpr absl::string_view kMfuModelErrorPath = "mfu_model_error";

// How an output moves with a factor f on MFU (the model's error): f^exponent, exponent 1 for MFU
// and realized compute, -1 for times and cost per realized compute, 0 for anything else.
int MfuErrorExponent(absl::string_view output);

// One entry per uncertain input (and the model's error, above), the largest swing first (ties in
// the request's order). `output` as PlanOutput takes it ("gpu_count", "tco_usd",
// "cost.energy_usd_per_year"). An error when a point has no plan, naming the input and its value.
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
