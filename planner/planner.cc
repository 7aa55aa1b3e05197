#include "planner/planner.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "planner/cluster.h"
#include "planner/model.h"
#include "planner/plan.h"
#include "planner/solver.h"
#include "planner/status_macros.h"
#include "planner/training.h"

namespace dcplan {

absl::StatusOr<Plan> SolvePlan(const PlanRequest& request) {
  DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
  DCPLAN_ASSIGN_OR_RETURN(Solution solution, Solve(model));
  Plan plan = ToPlan(model, solution);
  // With a workload, the plan also says what the cluster realizes for it; the cluster's size sets
  // the data-parallel degree. A cluster the workload fits on in no configuration is an error.
  if (model.workload != nullptr && solution.eval.gpus > 0) {
    DCPLAN_ASSIGN_OR_RETURN(*plan.mutable_training(),
                            PlanTraining(model, solution.eval.gpus, /*cluster_sets_dp=*/true));
  }
  return plan;
}

absl::StatusOr<ScaleReport> Scale(const PlanRequest& request,
                                  absl::Span<const int64_t> gpu_counts) {
  DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
  if (gpu_counts.empty()) return absl::InvalidArgumentError("gpus: give at least one cluster size");
  ScaleReport report;
  report.set_schema_version(SCHEMA_VERSION_1);
  report.set_name(model.name);
  for (size_t i = 0; i < gpu_counts.size(); ++i) {
    const int64_t g = gpu_counts[i];
    if (g < 1 || g > kMaxGpus) {
      return absl::OutOfRangeError(
          absl::StrFormat("gpus[%d] must be in [1, 10^12], got %d", i, g));
    }
    *report.add_rows() = ToScaleRow(model, EvaluateCluster(model, g));
  }
  return report;
}

}  // namespace dcplan
