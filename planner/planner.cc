#include "planner/planner.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "planner/cluster.h"
#include "planner/ledger.h"
#include "planner/mfu_error.h"
#include "planner/model.h"
#include "planner/plan.h"
#include "planner/power_limit_search.h"
#include "planner/solver.h"
#include "planner/training.h"
#include "units/format.h"

namespace dcplan {

absl::StatusOr<Plan> SolvePlan(const PlanRequest& request, const ExplainOptions& explain) {
  Plan plan;
  DCPLAN_RETURN_IF_ERROR(SolvePlanInto(request, explain, &plan));
  return plan;
}

absl::Status SolvePlanInto(const PlanRequest& request, const ExplainOptions& explain, Plan* out) {
  if (request.hardware().accelerator().power_limit_auto()) {
    // Validate as given first, so a bad request fails with its own message, not a candidate's.
    DCPLAN_RETURN_IF_ERROR(BuildModel(request).status());
    DCPLAN_ASSIGN_OR_RETURN(PowerLimitChoice choice, ChoosePowerLimit(request));
    DCPLAN_RETURN_IF_ERROR(SolvePlanInto(WithPowerLimit(request, choice.limit), explain, out));
    out->add_notes(absl::StrFormat(
        "hardware.accelerator.power_limit_auto chose a GPU power limit of %.15g W of the %.15g W "
        "TDP: the most realized compute under the caps (%d limits solved)",
        units::InWatts(choice.limit), request.hardware().accelerator().tdp_watts(), choice.solves));
    return absl::OkStatus();
  }
  DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
  DCPLAN_ASSIGN_OR_RETURN(Solution solution, Solve(model));
  Plan& plan = *out;
  ToPlanInto(model, solution, &plan);
  DCPLAN_RETURN_IF_ERROR(Explain(request, model, solution, explain, &plan));
  // With a workload, the plan also says what the cluster realizes for it; the cluster's size sets
  // the data-parallel degree. A cluster the workload fits on in no configuration is an error.
  if (model.workload != nullptr && solution.eval.gpus > 0) {
    DCPLAN_ASSIGN_OR_RETURN(*plan.mutable_training(),
                            PlanTraining(model, solution.eval.gpus, /*cluster_sets_dp=*/true));
  }
  // The reference job's split at the answer's size: what MFU rests on, and why it is low when the
  // job barely fits (recomputation, many pipeline stages) or not at all.
  if (model.reference != nullptr && solution.eval.gpus > 0 && explain.assumptions) {
    const ReferenceMfuModel& ref = *model.reference;
    absl::StatusOr<SearchResult> best = ref.SearchAt(solution.eval.gpus);
    if (best.ok()) {
      plan.add_notes(absl::StrFormat(
          "MFU rests on the reference workload %s: on %s GPUs its best split is %s, batch %s "
          "sequences, %.1f of %.1f GB of HBM a GPU (exact search: MFU %.1f%%; the plan reads "
          "the table through sizes around it)",
          ref.name(), units::FormatCount(static_cast<uint64_t>(solution.eval.gpus)),
          DescribeConfig(best->config),
          units::FormatCount(static_cast<uint64_t>(ref.BatchAt(solution.eval.gpus))),
          units::InBytes(best->estimate.memory) / 1e9,
          units::InBytes(best->estimate.memory_usable) / 1e9,
          100 * units::InFraction(best->estimate.mfu)));
    } else {
      plan.add_notes(absl::StrCat("the reference workload ", ref.name(), " cannot run on ",
                                  units::FormatCount(static_cast<uint64_t>(solution.eval.gpus)),
                                  " GPUs, so MFU is 0: ", best.status().message()));
    }
  }
  // The efficiency model's own uncertainty about MFU (planner/mfu_error.h).
  const MfuErrorSpread spread = MfuErrorFor(request);
  *plan.mutable_mfu_interval() = MfuIntervalOf(plan.compute().mfu(), spread);
  if (plan.has_training()) {
    *plan.mutable_training()->mutable_mfu_interval() = MfuIntervalOf(plan.training().mfu(), spread);
  }
  return absl::OkStatus();
}

absl::StatusOr<ScaleReport> Scale(const PlanRequest& request,
                                  absl::Span<const int64_t> gpu_counts) {
  ScaleReport report;
  report.set_schema_version(SCHEMA_VERSION_1);
  DCPLAN_RETURN_IF_ERROR(ScaleEach(request, gpu_counts, /*pool=*/nullptr,
                                   [&](int64_t, absl::Span<const ScaleRow> rows) {
                                     for (const ScaleRow& row : rows) *report.add_rows() = row;
                                     return absl::OkStatus();
                                   }));
  report.set_name(request.name());
  return report;
}

absl::Status ScaleEach(
    const PlanRequest& request, absl::Span<const int64_t> gpu_counts, ThreadPool* pool,
    absl::FunctionRef<absl::Status(int64_t first, absl::Span<const ScaleRow> rows)> consume) {
  DCPLAN_RETURN_IF_ERROR(RefuseAutoPowerLimit(request, "scale"));
  DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));
  if (gpu_counts.empty()) return absl::InvalidArgumentError("gpus: give at least one cluster size");
  for (size_t i = 0; i < gpu_counts.size(); ++i) {
    const int64_t g = gpu_counts[i];
    if (g < 1 || g > kMaxGpus) {
      return absl::OutOfRangeError(absl::StrFormat("gpus[%d] must be in [1, 10^12], got %d", i, g));
    }
  }
  std::unique_ptr<ThreadPool> own_pool;
  if (pool == nullptr) {
    // A few sizes are not worth starting threads for.
    own_pool = std::make_unique<ThreadPool>(gpu_counts.size() < 64 ? 1 : 0);
    pool = own_pool.get();
  }
  DCPLAN_RETURN_IF_ERROR(pool->status());
  constexpr int64_t kBlock = 4096;
  const int64_t n = static_cast<int64_t>(gpu_counts.size());
  std::vector<ScaleRow> rows(static_cast<size_t>(std::min(n, kBlock)));
  // The efficiency model's own uncertainty about each size's MFU (planner/mfu_error.h).
  const MfuErrorSpread spread = MfuErrorFor(request);
  for (int64_t first = 0; first < n; first += kBlock) {
    const int64_t count = std::min(kBlock, n - first);
    pool->ParallelFor(count, 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        rows[i] = ToScaleRow(model, EvaluateCluster(model, gpu_counts[first + i]));
        if (spread.sigma > 0) {
          *rows[i].mutable_mfu_interval() = MfuIntervalOf(rows[i].compute().mfu(), spread);
        }
      }
    });
    DCPLAN_RETURN_IF_ERROR(consume(first, absl::MakeConstSpan(rows.data(), count)));
  }
  return absl::OkStatus();
}

}  // namespace dcplan
