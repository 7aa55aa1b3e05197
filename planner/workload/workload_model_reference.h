// File: planner/workload/workload_model_reference.h
//
// The step model as it was before the speed work of issue 22, kept only as the reference the
// equivalence test holds the current EstimateStep to (every field bit for bit). Test-only.
#pragma once

#include <cstdint>

#include "planner/workload/workload_model.h"

namespace dcplan::reference {

// EstimateStep (workload_model.h) as of commit 435d80b.
StepEstimate ReferenceEstimateStep(const WorkloadModel& workload, const TrainingHardware& hardware,
                                   const ParallelConfig& config, int64_t cluster_gpus);

}  // namespace dcplan::reference
