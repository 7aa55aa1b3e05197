// File: planner/sweep/scale_monte_carlo.cc
#include "planner/sweep/scale_monte_carlo.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl//strings/str_format.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "planner/planner.h"

namespace dcplan {

absl::Status CheckScaleMonteCarloWork(int64_t sizes, int64_t samples) {
  return CheckMonteCarloWork(sizes, samples, absl::StrCat("gpu_counts (", sizes, " sizes)"),
                             "evaluations", "give fewer sizes or fewer samples");
}

absl::Status ScaleEachUncertain(
    const PlanRequest& request, absl::Span<const int64_t> gpu_counts,
    const MonteCarloOptions& options,
    absl::FunctionRef<absl::Status(int64_t first, absl::Span<const ScaleRow> rows)> consume) {
  const MonteCarloPool holder(options);
  DCPLAN_RETURN_IF_ERROR(holder.status());
  ThreadPool* pool = holder.get();
  if (request.uncertain_size() == 0) return ScaleEach(request, gpu_counts, pool, consume);
  DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun run, MonteCarloRun::Create(request));
  DCPLAN_RETURN_IF_ERROR(
      CheckScaleMonteCarloWork(static_cast<int64_t>(gpu_counts.size()), run.samples()));
  MonteCarloOptions per_size = options;
  per_size.pool = pool;
  // The rows at the medians, a block of sizes at a time; then each row's samples, in parallel.
  return ScaleEach(run.median_request(), gpu_counts, pool,
                   [&](int64_t first, absl::Span<const ScaleRow> rows) -> absl::Status {
                     std::vector<ScaleRow> out(rows.begin(), rows.end());
                     for (size_t i = 0; i < out.size(); ++i) {
                       per_size.fixed_gpus = gpu_counts[first + static_cast<int64_t>(i)];
                       DCPLAN_ASSIGN_OR_RETURN(Distributions d, run.Summarize(per_size));
                       *out[i].mutable_distribution() = std::move(d);
                     }
                     return consume(first, out);
                   });
}

absl::StatusOr<ScaleReport> ScaleUncertain(const PlanRequest& request,
                                           absl::Span<const int64_t> gpu_counts,
                                           const MonteCarloOptions& options) {
  ScaleReport report;
  report.set_schema_version(SCHEMA_VERSION_1);
  report.set_name(request.name());
  DCPLAN_RETURN_IF_ERROR(ScaleEachUncertain(request, gpu_counts, options,
                                            [&](int64_t, absl::Span<const ScaleRow> rows) {
                                              for (const ScaleRow& row : rows) {
                                                *report.add_rows() = row;
                                              }
                                              return absl::OkStatus();
                                            }));
  return report;
}

}  // namespace dcplan
