// File: planner/sweep/train_monte_carlo.cc
#include "planner/sweep/train_monte_carlo.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "planner/mfu_error.h"
#include "planner/model.h"
#include "planner/training.h"

namespace dcplan {

bool TrainingSplitFixed(const MonteCarloRun& run) {
  for (const UncertainInput& in : run.inputs()) {
    const std::string& p = in.field.path;
    // The step time (which the split is chosen for) reads none of these.
    const bool neutral = absl::StartsWith(p, "constraints.") || absl::StartsWith(p, "site.") ||
                         absl::StartsWith(p, "costs.") || p == "hardware.accelerator.price_usd" ||
                         p == "hardware.server.price_usd" ||
                         p == "hardware.server.non_gpu_price_usd" || p == "workload.train_tokens" ||
                         absl::StartsWith(p, "workload.reliability.");
    if (!neutral) return false;
  }
  return true;
}

absl::StatusOr<TrainingPlan> TrainingAtSample(const MonteCarloRun& run, int64_t sample,
                                              int64_t gpus, const TrainingPlan* split,
                                              SearchMode mode) {
  PlanRequest r = run.RequestAt(sample);
  if (split != nullptr) {
    // Everything the search chose but dp (which the searched size sets, idle GPUs included).
    Parallelism* p = r.mutable_workload()->mutable_parallelism();
    p->set_tp(split->tp());
    p->set_pp(split->pp());
    p->set_cp(std::max<uint32_t>(split->cp(), 1));
    p->set_micro_batch(split->micro_batch());
    p->set_virtual_stages(split->virtual_stages());
    p->set_recompute(split->recompute());
    p->set_dp(0);
  }
  DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(r));
  return PlanTraining(model, gpus, /*cluster_sets_dp=*/false, mode);
}

absl::StatusOr<Distributions> SummarizeTraining(const MonteCarloRun& run, int64_t gpus,
                                                const MonteCarloOptions& options) {
  std::unique_ptr<TrainingPlan> split;
  if (TrainingSplitFixed(run)) {
    DCPLAN_ASSIGN_OR_RETURN(Model median, BuildModel(run.median_request()));
    DCPLAN_ASSIGN_OR_RETURN(TrainingPlan t, PlanTraining(median, gpus));
    split = std::make_unique<TrainingPlan>(std::move(t));
  }
  std::unique_ptr<ThreadPool> own;
  ThreadPool* pool = options.pool;
  if (pool == nullptr) {
    own = std::make_unique<ThreadPool>(options.threads);
    pool = own.get();
  }
  const int64_t n = run.samples();
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(options.block_samples, 1024));
  constexpr int kOuts[] = {kOutMfu, kOutRealizedFlopsPerSecond, kOutTimeToTrainSeconds,
                           kOutGoodput};
  std::vector<std::vector<double>> values(kNumSampleOutputs);
  std::vector<SampleResult> rows(static_cast<size_t>(std::min(n, block)));
  int64_t failed = 0;
  for (int64_t first = 0; first < n; first += block) {
    const int64_t count = std::min(block, n - first);
    if (options.check) DCPLAN_RETURN_IF_ERROR(options.check());
    pool->ParallelFor(count, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        SampleResult& out = rows[static_cast<size_t>(k)];
        out = SampleResult();
        // The sample's figures alone are read (not configurations_evaluated).
        auto t = TrainingAtSample(run, first + k, gpus, split.get(), SearchMode::kBestOnly);
        if (!t.ok()) continue;
        const double mfu = t->mfu();
        const double f = mfu > 0 ? std::min(run.MfuFactor(first + k), 1.0 / mfu) : 1.0;
        out.outputs[kOutMfu] = mfu * f;
        out.outputs[kOutRealizedFlopsPerSecond] = t->realized_flops_per_second() * f;
        out.outputs[kOutTimeToTrainSeconds] = t->time_to_train_seconds() / f;
        out.outputs[kOutGoodput] = t->goodput();
        out.ok = true;
      }
    });
    for (int64_t k = 0; k < count; ++k) {
      const SampleResult& r = rows[static_cast<size_t>(k)];
      if (!r.ok) {
        ++failed;
        continue;
      }
      for (int o : kOuts) values[o].push_back(r.outputs[o]);
    }
  }
  if (failed == n) {
    return absl::FailedPreconditionError(
        absl::StrCat("no sample has a training plan on ", gpus, " GPUs"));
  }
  Distributions d;
  d.set_samples(static_cast<uint64_t>(n));
  d.set_seed(run.seed());
  d.set_failed_samples(static_cast<uint64_t>(failed));
  *d.mutable_mfu() = SummarizeValues(&values[kOutMfu]);
  *d.mutable_realized_flops_per_second() = SummarizeValues(&values[kOutRealizedFlopsPerSecond]);
  *d.mutable_time_to_train_seconds() = SummarizeValues(&values[kOutTimeToTrainSeconds]);
  *d.mutable_goodput() = SummarizeValues(&values[kOutGoodput]);
  if (run.mfu_error_sigma() > 0) {
    d.set_mfu_error_sigma(run.mfu_error_sigma());
    d.set_mfu_error_basis(MfuErrorFor(run.median_request()).basis);
  }
  return d;
}

absl::StatusOr<TrainingPlan> SolveUncertainTraining(const PlanRequest& request, int64_t gpus,
                                                    const MonteCarloOptions& options) {
  DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun run, MonteCarloRun::Create(request));
  DCPLAN_ASSIGN_OR_RETURN(Model median, BuildModel(run.median_request()));
  DCPLAN_ASSIGN_OR_RETURN(TrainingPlan plan, PlanTraining(median, gpus));
  *plan.mutable_mfu_interval() = MfuIntervalOf(plan.mfu(), MfuErrorFor(run.median_request()));
  DCPLAN_ASSIGN_OR_RETURN(*plan.mutable_distribution(), SummarizeTraining(run, gpus, options));
  return plan;
}

}  // namespace dcplan
