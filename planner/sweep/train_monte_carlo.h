// File: planner/sweep/train_monte_carlo.h
//
// Monte Carlo of one training job on a fixed cluster (`dcplan train --uncertain`, POST /v1/train
// with uncertain inputs): the training plan of every sample of a MonteCarloRun's request, reduced
// to the distribution of MFU, realized compute, time to train and goodput (Distributions; the other
// outputs are a plan's, not a training job's, and are left out). The efficiency model's own error
// is sampled as in monte_carlo.h (each sample's MFU and realized compute times its factor, the time
// to train over it).
//
// Speed: when no uncertain input can change the best parallel split (every one is a cap, the site,
// a cost, a price, workload.train_tokens or a workload.reliability field), the split is searched
// once, at the medians, and each sample evaluates only that split; the answer is the one a search
// would give (train_monte_carlo_test checks it sample by sample). Any other input searches per
// sample.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun mc, MonteCarloRun::Create(request));
//   DCPLAN_ASSIGN_OR_RETURN(Distributions d, SummarizeTraining(mc, 8192, {}));
//   d.time_to_train_seconds().p90();
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "planner/sweep/monte_carlo.h"
#include "planner/workload/parallelism_search.h"
#include "proto/training.pb.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

// Whether every uncertain input of `run` leaves the best split alone (see above).
bool TrainingSplitFixed(const MonteCarloRun& run);

// The training plan of sample `sample` on `gpus` GPUs (with `split`, when not null, as the fixed
// parallelism), before the MFU error factor; `mode` as PlanTraining's.
absl::StatusOr<TrainingPlan> TrainingAtSample(const MonteCarloRun& run, int64_t sample,
                                              int64_t gpus, const TrainingPlan* split,
                                              SearchMode mode = SearchMode::kEveryConfiguration);

// The distribution of the training figures over every sample, in parallel (results identical for
// any thread count; options.check is called between blocks).
absl::StatusOr<Distributions> SummarizeTraining(const MonteCarloRun& run, int64_t gpus,
                                                const MonteCarloOptions& options);

// `dcplan train` with uncertain inputs: the training plan at the medians (with its mfu_interval)
// and its `distribution`.
absl::StatusOr<TrainingPlan> SolveUncertainTraining(const PlanRequest& request, int64_t gpus,
                                                    const MonteCarloOptions& options);

}  // namespace dcplan
