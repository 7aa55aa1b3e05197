// File: planner/sweep/compare_monte_carlo.h
//
// `dcplan compare --uncertain` and POST /v1/compare with uncertain inputs: every option's plan at
// its inputs' medians, ranked as Compare ranks them (planner/compare.h), each with its own
// `distribution` over the Monte Carlo samples (sensitivity.h SolveUncertainPlan), and how often
// each option realizes the most compute across the samples (Comparison.p_best): "which GPU gives
// the most compute" as a probability.
//
// Common random numbers: every option is sampled from the same seed stream, so sample i draws the
// same value of the k-th uncertain input (the same PUE, the same electricity price when the
// options share their uncertain inputs, as --uncertain and CompareRequest.uncertain give them) and
// the same standard normal for the efficiency model's error (each option's spread times it). The
// options then differ in a sample only by what they are, not by luck of the draw, and P(best) needs
// far fewer samples to settle. Every option must therefore have uncertain inputs, and all the same
// sample count and seed.
//
// Work: options x samples solves, twice (the distributions, then P(best)); at most
// kMaxCompareMonteCarloSolves (10^8).
//
// Example:
//   for (PlanRequest& r : requests)
//   r.add_uncertain()->CopyFrom(*ParseUncertain("pue=uniform(1.1, 1.5)"));
//   DCPLAN_ASSIGN_OR_RETURN(Comparison c, CompareUncertain(requests, {}));
//   c.p_best(0);   // how often the top-ranked option is the best
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "planner/sweep/monte_carlo.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {

inline constexpr int64_t kMaxCompareMonteCarloSolves = kMaxMonteCarloWork;

// Compare (planner/compare.h) when no request has uncertain inputs; else the above. Errors name the
// request (its name, or "request N") and the field.
absl::StatusOr<Comparison> CompareUncertain(absl::Span<const PlanRequest> requests,
                                            const MonteCarloOptions& options);

}  // namespace dcplan
