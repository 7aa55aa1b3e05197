#include "planner/compare.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planner/planner.h"
#include "planner/request_edit.h"

namespace dcplan {

absl::StatusOr<Comparison> Compare(absl::Span<const PlanRequest> requests) {
  if (requests.empty()) return absl::InvalidArgumentError("nothing to compare");
  Comparison comparison;
  comparison.set_schema_version(SCHEMA_VERSION_1);
  comparison.set_ranked_by("realized_flops_per_second");
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<Plan> plan = SolvePlan(requests[i]);
    if (!plan.ok()) {
      const std::string who =
          requests[i].name().empty() ? absl::StrCat("request ", i) : requests[i].name();
      return absl::Status(plan.status().code(), absl::StrCat(who, ": ", plan.status().message()));
    }
    *comparison.add_plans() = *std::move(plan);
  }
  // The assumptions that differ between the plans, among those that describe the site and policy
  // rather than the hardware (which is what a comparison compares).
  for (const char* path : {"site.cooling", "site.pue", "site.annual_pue", "site.provisioning.basis",
                           "site.provisioning.margin", "costs.facility_usd_per_it_watt",
                           "costs.electricity_usd_per_kwh", "costs.wacc", "costs.horizon_years"}) {
    std::vector<std::string> values;
    for (const Plan& plan : comparison.plans()) {
      std::string value = "(none)";
      for (const Assumption& a : plan.assumptions()) {
        if (a.path() == path) value = absl::StrCat(a.text_value(), "|", a.value());
      }
      values.push_back(value);
    }
    if (std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end()) {
      comparison.add_differing_assumptions(path);
    }
  }
  // What the MFU figures rest on: one job for all, or not; which step-model fits are carried over.
  std::vector<std::string> bases;
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string& model = comparison.plans(static_cast<int>(i)).compute().efficiency_model();
    bases.push_back(model.substr(0, model.find(';')));
    const bool step_model =
        requests[i].has_workload() || requests[i].efficiency().has_reference_workload();
    for (const FieldSource& source : requests[i].sources()) {
      if (step_model && source.path() == "hardware.calibration.kernel_efficiency" &&
          absl::StrContains(source.source(), "carried over")) {
        comparison.add_estimated_efficiency(comparison.plans(static_cast<int>(i)).name());
      }
    }
  }
  if (std::adjacent_find(bases.begin(), bases.end(), std::not_equal_to<>()) == bases.end()) {
    comparison.set_efficiency_basis(bases.front());
  } else {
    comparison.set_efficiency_basis(
        absl::StrCat("MFU models differ: ", absl::StrJoin(bases, "; ")));
  }
  auto* plans = comparison.mutable_plans();
  std::stable_sort(plans->begin(), plans->end(), [](const Plan& a, const Plan& b) {
    if (a.compute().realized_flops_per_second() != b.compute().realized_flops_per_second()) {
      return a.compute().realized_flops_per_second() > b.compute().realized_flops_per_second();
    }
    return a.cost().tco_usd() < b.cost().tco_usd();
  });
  return comparison;
}

absl::StatusOr<PlanRequest> EditedCopy(const PlanRequest& base,
                                       absl::Span<const std::string> assignments,
                                       absl::string_view source) {
  if (assignments.empty()) {
    return absl::InvalidArgumentError("an edited copy needs at least one PATH=VALUE");
  }
  PlanRequest copy = base;
  for (const std::string& a : assignments) {
    absl::Status s = ApplyAssignment(a, source, &copy);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(a, ": ", s.message()));
  }
  copy.set_name(absl::StrCat(base.name().empty() ? "request" : base.name(),
                             " (edited: ", absl::StrJoin(assignments, ", "), ")"));
  return copy;
}

}  // namespace dcplan
