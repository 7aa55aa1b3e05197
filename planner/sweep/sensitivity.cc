// File: planner/sweep/sensitivity.cc
#include "planner/sweep/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "planner/planner.h"
#include "planner/request_edit.h"
#include "planner/validate.h"

namespace dcplan {

int MfuErrorExponent(absl::string_view output) {
  static constexpr std::pair<absl::string_view, int> kExponents[] = {
      {"mfu", 1},
      {"compute.mfu", 1},
      {"realized_flops_per_second", 1},
      {"compute.realized_flops_per_second", 1},
      {"training.mfu", 1},
      {"training.hfu", 1},
      {"training.mfu_at_precision_peak", 1},
      {"training.effective_mfu", 1},
      {"training.tokens_per_second", 1},
      {"training.realized_flops_per_second", 1},
      {"time_to_train_seconds", -1},
      {"training.time_to_train_seconds", -1},
      {"training.step_time_seconds", -1},
      {"cost.usd_per_realized_eflops_year", -1},
  };
  for (const auto& [name, exponent] : kExponents) {
    if (output == name) return exponent;
  }
  return 0;
}

absl::StatusOr<std::vector<SensitivityEntry>> Sensitivity(const MonteCarloRun& run,
                                                          absl::string_view output) {
  DCPLAN_RETURN_IF_ERROR(CheckOutputName(output));
  ExplainOptions none;
  none.assumptions = none.influence = none.marginal = none.next_step = false;
  std::vector<SensitivityEntry> entries;
  const std::vector<UncertainInput>& inputs = run.inputs();
  for (size_t j = 0; j < inputs.size(); ++j) {
    const UncertainInput& in = inputs[j];
    SensitivityEntry e;
    e.set_path(in.field.path);
    e.set_low_input(in.Quantile(0.1));
    e.set_high_input(in.Quantile(0.9));
    double at[2];
    for (int side = 0; side < 2; ++side) {
      const double v = side == 0 ? e.low_input() : e.high_input();
      PlanRequest r = run.median_request();
      DCPLAN_RETURN_IF_ERROR(SetNumber(in.field, v, &r));
      auto plan = SolvePlan(r, none);
      if (!plan.ok()) {
        return absl::Status(plan.status().code(),
                            absl::StrFormat("sensitivity: %s at %s %.10g: %s", in.field.path,
                                            side == 0 ? "P10" : "P90", v, plan.status().message()));
      }
      DCPLAN_ASSIGN_OR_RETURN(at[side], PlanOutput(*plan, output));
    }
    e.set_output_at_low(at[0]);
    e.set_output_at_high(at[1]);
    e.set_swing(std::abs(at[1] - at[0]));
    entries.push_back(std::move(e));
  }
  if (run.mfu_error_sigma() > 0) {
    // The model's own error: the plan at the medians with its MFU at the interval's P10 and P90
    // (the factor capped so that MFU stays <= 1, as in the Monte Carlo).
    DCPLAN_ASSIGN_OR_RETURN(Plan plan, SolvePlan(run.median_request(), none));
    DCPLAN_ASSIGN_OR_RETURN(double base, PlanOutput(plan, output));
    const double mfu = plan.compute().mfu();
    const int exponent = MfuErrorExponent(output);
    SensitivityEntry e;
    e.set_path(std::string(kMfuModelErrorPath));
    e.set_low_input(plan.mfu_interval().p10());
    e.set_high_input(plan.mfu_interval().p90());
    double at[2] = {base, base};
    if (mfu > 0 && exponent != 0) {
      at[0] = base * std::pow(e.low_input() / mfu, exponent);
      at[1] = base * std::pow(e.high_input() / mfu, exponent);
    }
    e.set_output_at_low(at[0]);
    e.set_output_at_high(at[1]);
    e.set_swing(std::abs(at[1] - at[0]));
    entries.push_back(std::move(e));
  }
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const SensitivityEntry& a, const SensitivityEntry& b) { return a.swing() > b.swing(); });
  return entries;
}

}  // namespace dcplan

namespace dcplan {

absl::StatusOr<Plan> SolveUncertainPlan(const PlanRequest& request,
                                        const MonteCarloOptions& options,
                                        const ExplainOptions& explain) {
  if (request.uncertain_size() == 0) {
    DCPLAN_RETURN_IF_ERROR(ValidateRequest(request));
    return SolvePlan(request, explain);
  }
  DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun run, MonteCarloRun::Create(request));
  DCPLAN_ASSIGN_OR_RETURN(Plan plan, SolvePlan(run.median_request(), explain));
  DCPLAN_ASSIGN_OR_RETURN(*plan.mutable_distribution(), run.Summarize(options));
  if (request.monte_carlo().sensitivity()) {
    const std::string output = request.monte_carlo().sensitivity_output().empty()
                                   ? "gpu_count"
                                   : request.monte_carlo().sensitivity_output();
    DCPLAN_ASSIGN_OR_RETURN(std::vector<SensitivityEntry> entries, Sensitivity(run, output));
    for (SensitivityEntry& e : entries) *plan.add_sensitivity() = std::move(e);
    plan.set_sensitivity_output(output);
  }
  return plan;
}

}  // namespace dcplan
