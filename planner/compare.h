// File: planner/compare.h
//
// Comparing hardware side by side: the same caps solved for several requests (presets or files),
// ranked by realized compute (ties: lower TCO first). Each plan is exactly what SolvePlan gives for
// that request alone, so `dcplan compare` and `dcplan fit` always agree.
//
// Example:
//   std::vector<PlanRequest> requests = {LoadPreset("h100-dgx").value(),
//   LoadPreset("b200-dgx").value()}; for (PlanRequest& r : requests)
//   r.mutable_constraints()->set_power_cap_watts(100e6); DCPLAN_ASSIGN_OR_RETURN(Comparison c,
//   Compare(requests)); c.plans(0).name();   // the preset realizing the most FLOP/s under 100 MW
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {

// Solves every request and ranks the plans, best first. An error names the request (its name, or
// its index when unnamed) that failed.
absl::StatusOr<Comparison> Compare(absl::Span<const PlanRequest> requests);

// A copy of `base` with `assignments` ("PATH=VALUE", the request-editing layer's grammar, as
// `--set` takes them) applied and recorded as the user's (`source` says what set them), named
// "NAME (edited: PATH=VALUE, ...)" so that a comparison tells it from `base`; its differing
// assumptions are the edited fields. InvalidArgument naming the assignment when one does not apply;
// at least one assignment is required.
absl::StatusOr<PlanRequest> EditedCopy(const PlanRequest& base,
                                       absl::Span<const std::string> assignments,
                                       absl::string_view source);

}  // namespace dcplan
