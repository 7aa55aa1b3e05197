// File: tests/plan_invariants.h
//
// The invariants a planner relies on, checked on a solved Plan against the request it came from,
// using only the library's public API (SolvePlan, Scale) and figures recomputed from the request:
//   - every cap is respected (power at the meter, on IT or at the substation; GPUs; buildings;
//     budget on capex or TCO; the fabric fits); the only exception is a zero-GPU plan whose budget
//     is broken by fixed costs alone (the site's, or staff over the TCO horizon);
//   - the plan is tight: one more server (evaluated with Scale) breaks a cap, the one the plan
//     names as binding, or passes dcplan's size limit; under MAX_REALIZED_COMPUTE a plan that
//     stops short realizes at least what the largest feasible cluster does;
//   - counts are consistent across levels: whole servers, racks hold their servers within the
//     rack's space and power limits, pods hold their racks, buildings their pods;
//   - power adds up: IT = GPUs + server overhead + rack overhead + network; facility = IT x PUE;
//     IT <= facility <= substation capacity (recomputed from the request's transformers);
//   - headroom is present exactly for the caps that are set and equals cap minus use;
//   - every double in the plan is finite, and a zero-GPU plan carries a note saying why.
// The property test runs this over 100,000 generated requests and the fuzzers over every request
// that validates, so a violation is a bug in the planner (or in a check here), never in the input.
//
// Example:
//   absl::StatusOr<Plan> plan = SolvePlan(request);
//   if (plan.ok()) {
//     absl::Status broken = CheckPlanInvariants(request, *plan);  // OK, or which invariant failed
//   }
#pragma once

#include "absl/status/status.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan::testing {

// Checks `plan` (what SolvePlan returned for `request`, a valid request) against every invariant
// above. Returns OK or an Internal error naming the first invariant broken and the numbers
// involved.
absl::Status CheckPlanInvariants(const PlanRequest& request, const Plan& plan);

// Every double field in `message`, at any depth, is finite. Internal error naming the field
// otherwise.
absl::Status CheckAllFinite(const google::protobuf::Message& message);

}  // namespace dcplan::testing
