// File: planner/workload_defaults.h
//
// The defaults proto/workload.proto promises for its optional fields, in one place, so the
// validator and the workload model cannot disagree. The calibration defaults are the values fitted
// to the A100 runs of tests/data/measured_training_runs.csv by examples/calibrate_efficiency.cc
// (the a100-dgx preset sets the same values explicitly, with their provenance).
//
// Example:
//   const double k = c.has_kernel_efficiency() ? c.kernel_efficiency() :
//   defaults::kKernelEfficiency;
#pragma once

#include <cstdint>

namespace dcplan::defaults {

// Workload.
inline constexpr uint32_t kPrecisionBytes = 2;  // workload.precision_bytes (bf16)
inline constexpr uint32_t kGradientBytes = 4;   // workload.gradient_bytes (fp32 reduction)
inline constexpr uint32_t kFfnMultiple = 4;     // workload.ffn_hidden = 4 x hidden when 0

// Workload.framework: current Megatron-LM / NeMo practice.
inline constexpr bool kFlashAttention = true;
inline constexpr bool kSequenceParallel = true;
inline constexpr bool kDistributedOptimizer = true;
inline constexpr bool kOverlapGradientSync = true;
inline constexpr bool kPipelineScatterGather = true;
inline constexpr bool kBalancePipelineStages = true;

// hardware.calibration (fitted on A100; see the a100-dgx preset for provenance).
inline constexpr double kKernelEfficiency = 0.645;
inline constexpr double kScaleUpBandwidthEfficiency = 0.95;
inline constexpr double kScaleOutBandwidthEfficiency = 0.5;
inline constexpr double kMemoryBoundFactor = 0.907;
inline constexpr double kGradientSyncOverlap = 0.8;
inline constexpr double kScaleUpLatencySeconds = 5e-6;
inline constexpr double kScaleOutLatencySeconds = 1e-5;
inline constexpr double kHbmUsableFraction = 0.9;

}  // namespace dcplan::defaults
