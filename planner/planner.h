// File: planner/planner.h
//
// The library's front door: from a PlanRequest to a Plan in one call. It validates the request,
// builds the typed model, solves it and writes the Plan; `Scale` evaluates given cluster sizes
// instead of solving. Programs that link dcplan usually need only this header and the presets.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, LoadPreset("h100-dgx"));
//   request.mutable_constraints()->set_power_cap_watts(50e6);   // 50 MW at the meter
//   DCPLAN_ASSIGN_OR_RETURN(Plan plan, SolvePlan(request));
//   std::cout << plan.counts().gpu_count() << " GPUs\n";
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "planner/ledger.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {

// Validates, models and solves `request`: the largest cluster under its caps, with the assumptions
// ledger, the marginal value of its caps and the discrete step ahead (planner/ledger.h) as
// `explain` asks (all of them by default; a sweep's inner loop asks for none).
absl::StatusOr<Plan> SolvePlan(const PlanRequest& request,
                               const ExplainOptions& explain = ExplainOptions());

// The same into `plan`, which is cleared first: a caller that answers many requests (the server)
// keeps one Plan, whose ~60 assumptions and their strings are then reused rather than allocated.
// On an error `plan` holds nothing useful.
absl::Status SolvePlanInto(const PlanRequest& request, const ExplainOptions& explain, Plan* plan);

// Peak, MFU, realized compute, power and cost of clusters of exactly `gpu_counts` GPUs (each >= 1
// and
// <= 10^12), whatever the request's caps.
absl::StatusOr<ScaleReport> Scale(const PlanRequest& request, absl::Span<const int64_t> gpu_counts);

class ThreadPool;

// Scale a block of rows at a time, for many sizes: the rows of gpu_counts[first .. first + n) are
// evaluated in parallel on `pool` (every core when null) and handed to consume(first, rows) in
// order, from the calling thread, so memory stays proportional to one block (4,096 rows) and a
// caller can stream them out and show progress. Stops at the first error, its own or consume's.
absl::Status ScaleEach(
    const PlanRequest& request, absl::Span<const int64_t> gpu_counts, ThreadPool* pool,
    absl::FunctionRef<absl::Status(int64_t first, absl::Span<const ScaleRow> rows)> consume);

}  // namespace dcplan
