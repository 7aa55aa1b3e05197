// File: planner/presets/test_workloads.h
//
// Workloads that several tests and benchmarks share, made from the model catalog
// (planner/presets/models.h) rather than written out in each of them.
//
// Example:
//   const WorkloadModel w = BuildWorkloadModel(MixtralAsBenchmarked()).value();
#pragma once

#include "proto/workload.pb.h"

namespace dcplan {

// Mixtral 8x22B (models/mixtral-8x22b.textproto) as the Megatron-Core MoE benchmark ran it:
// sequences of 4,096, 256 a step, parameter counts left to the shape (params and
// moe.active_params cleared), no sources.
Workload MixtralAsBenchmarked();

}  // namespace dcplan
