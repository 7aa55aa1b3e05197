// File: planner/sweep/scale_monte_carlo.h
//
// `dcplan scale --uncertain` and POST /v1/scale with uncertain inputs: every cluster size's row
// (planner.h ScaleEach, at every input's median) with its distribution over the request's Monte
// Carlo samples (monte_carlo.h) at exactly that size. As scale does, the caps are not applied: each
// sample evaluates a cluster of the row's size under the sampled model, so gpu_count is constant
// and realized compute, MFU, power and money move with the sampled inputs (and the efficiency
// model's own error). Every size uses the same samples (the same seed stream), so two rows differ
// only by their size.
//
// Work is sizes x samples evaluations: at most kMaxScaleMonteCarloEvaluations (10^8, about a
// minute and a half on one core); more is an error naming both counts.
//
// Example:
//   request.add_uncertain()->CopyFrom(*ParseUncertain("pue=uniform(1.0, 2.0)"));
//   DCPLAN_ASSIGN_OR_RETURN(ScaleReport r, ScaleUncertain(request, {8192, 16384}, {}));
//   r.rows(0).distribution().facility_power_watts().p90();
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "planner/sweep/monte_carlo.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {

inline constexpr int64_t kMaxScaleMonteCarloEvaluations = kMaxMonteCarloWork;

// OutOfRange when sizes x samples exceeds kMaxScaleMonteCarloEvaluations (message: "gpu_counts
// (N sizes) x monte_carlo.samples (M) = ... evaluations, more than 10^8 ...").
absl::Status CheckScaleMonteCarloWork(int64_t sizes, int64_t samples);

// ScaleEach of the request's median (every uncertain input at its median), each row with its
// `distribution`; rows handed to consume(first, rows) in order, a few at a time. A request without
// uncertain inputs is ScaleEach's. options.fixed_gpus is set per row (any value given is ignored).
absl::Status ScaleEachUncertain(
    const PlanRequest& request, absl::Span<const int64_t> gpu_counts,
    const MonteCarloOptions& options,
    absl::FunctionRef<absl::Status(int64_t first, absl::Span<const ScaleRow> rows)> consume);

// The whole report.
absl::StatusOr<ScaleReport> ScaleUncertain(const PlanRequest& request,
                                           absl::Span<const int64_t> gpu_counts,
                                           const MonteCarloOptions& options);

}  // namespace dcplan
