// File: planner/sweep/sweep_monte_carlo.h
//
// `dcplan sweep --uncertain`: every grid point of a sweep (sweep.h) runs the request's Monte Carlo
// (monte_carlo.h) at that point: the plan at every uncertain input's median and the distribution
// of its figures. Kept apart from the sweep engine, whose fast path solves millions of plain points
// a second: an uncertain point costs a plan and `samples` solves.
//
// The percentile columns are the headline columns (headline.h) that a Distributions carries
// (gpu_count, it_power_watts, facility_power_watts, mfu, realized_flops_per_second, capex_usd,
// tco_usd), each as NAME_p10, NAME_p50, NAME_p90, in the headline's order.
//
// Work is points x samples solves: at most kMaxSweepMonteCarloSolves (10^8).
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Sweep sweep, Sweep::Create(request_with_uncertain, axes));
//   RunUncertainSweep(sweep, {}, [](int64_t point, const UncertainSweepPoint& p) {
//     ... p.plan.counts().gpu_count(), p.distribution.gpu_count().p10() ...
//   });
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "planner/sweep/monte_carlo.h"
#include "planner/sweep/sweep.h"
#include "proto/plan.pb.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

inline constexpr int64_t kMaxSweepMonteCarloSolves = kMaxMonteCarloWork;

// One point: why it has no answer (then the rest is empty), else its plan at the medians (no
// explanation) and its distribution.
struct UncertainSweepPoint {
  absl::Status status;
  Plan plan;
  Distributions distribution;
};

// OutOfRange when points x samples exceeds kMaxSweepMonteCarloSolves ("the grid's N points x
// monte_carlo.samples (M) = ... solves, more than 10^8 ...").
absl::Status CheckSweepMonteCarloWork(int64_t points, int64_t samples);

// Runs every point in grid order, each point's samples in parallel (identical for any thread
// count), and hands each to consume(point, result); stops at consume's first error. Errors before
// any point: an axis that is also an uncertain input (which would override it), too much work.
absl::Status RunUncertainSweep(
    const Sweep& sweep, const MonteCarloOptions& options,
    absl::FunctionRef<absl::Status(int64_t point, const UncertainSweepPoint& result)> consume);

// The percentile columns' names, in order, and one point's values (",v,v,..." as the headline
// writes numbers; empty values for a point without an answer).
std::vector<std::string> SweepPercentileColumns();
void AppendSweepPercentiles(const Distributions& d, bool ok, std::string* out);

}  // namespace dcplan
