// File: planner/training.h
//
// What a cluster realizes for a training job, as a TrainingPlan (proto/training.proto): the
// parallelism (the workload's own when it fixes tp, pp and dp, else the best searched one), MFU and
// HFU, step time and its breakdown, memory per GPU, tokens per second and the time to train.
// `dcplan train` prints one; SolvePlan adds one to a Plan whose request has a workload.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Model model, BuildModel(request));   // request.has_workload()
//   DCPLAN_ASSIGN_OR_RETURN(TrainingPlan t, PlanTraining(model, 8192));
//   std::cout << t.mfu() << " MFU, " << t.time_to_train_seconds() / 86400 << " days\n";
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "planner/model.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "proto/training.pb.h"

namespace dcplan {

// Evaluates `model.workload` (FailedPrecondition when the model has none) on `gpus` GPUs. Errors as
// SearchParallelism: a fixed split that cannot hold (tp x pp x dp differing from `gpus` ...), or no
// configuration that fits.
// With `cluster_sets_dp` (fit, compare: the solver chose the size), the workload's fixed dp is
// ignored and dp follows from the size. With SearchMode::kBestOnly (a caller that reads the figures
// but not configurations_evaluated, such as a Monte Carlo sample) the same plan but for that count.
absl::StatusOr<TrainingPlan> PlanTraining(const Model& model, int64_t gpus,
                                          bool cluster_sets_dp = false,
                                          SearchMode mode = SearchMode::kEveryConfiguration);

// Wall time lost to interruptions, checkpoints and restarts for a job busy on `busy_gpus` GPUs in
// servers of `gpus_per_server` with `params` parameters (Young 1974 / Daly 2006, first order):
//   mtbi = 1 / (busy_gpus / gpu_mtbi + servers / server_mtbi)
//   write = params x checkpoint_per_param / checkpoint_write     (restart also reads it back)
//   interval = the given one, or sqrt(2 x write x mtbi)           (Young/Daly optimum)
//   goodput = 1 - write / (interval + write) - (restart + write + (interval + write) / 2) / mtbi,
//   at least 0.
struct Goodput {
  units::Ratio goodput;
  units::Time mtbi;
  units::Time checkpoint_write;
  units::Time checkpoint_interval;
  units::Time restart;  // restart time plus reading the checkpoint back
};
Goodput EstimateGoodput(const ReliabilityModel& reliability, int64_t busy_gpus,
                        int64_t gpus_per_server, double params);

// The TrainingPlan of a search result on `gpus` GPUs.
TrainingPlan ToTrainingPlan(const WorkloadModel& workload, const TrainingHardware& hardware,
                            const SearchResult& result, int64_t gpus);

}  // namespace dcplan
