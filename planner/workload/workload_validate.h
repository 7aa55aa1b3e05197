// File: planner/workload/workload_validate.h
//
// The validator of proto/workload.proto: a Workload (the training job) and an EfficiencyCalibration
// (the model's constants), each field against the requirement in its comment, the first error in
// field order, naming the field path and the value, in the style of planner/validate.h (which calls
// these for PlanRequest.workload and PlanRequest.hardware.calibration):
//   `workload.hidden 16385 must be divisible by workload.heads (128)`
//   `hardware.calibration.kernel_efficiency must be in (0, 1], got 1.2`
//
// Status codes as in validate.h: InvalidArgument for a field breaking its own requirement,
// OutOfRange above a hard limit, FailedPrecondition for fields fine alone but impossible together
// (hidden not divisible by heads, parameters fewer than the output layer alone, a workload on
// hardware that does not say how much HBM it has).
//
// Example:
//   absl::Status s = ValidateWorkload(request.workload(), "workload");
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/request.pb.h"
#include "proto/workload.pb.h"

namespace dcplan {

// Hard limits on workloads (OutOfRange), far above any real model, so that products stay finite.
namespace limits {
inline constexpr uint32_t kMaxLayers = 100000;
inline constexpr uint32_t kMaxHidden = 10000000;      // 1e7
inline constexpr uint32_t kMaxFfnHidden = 100000000;  // 1e8
inline constexpr uint32_t kMaxVocab = 100000000;      // 1e8
inline constexpr uint32_t kMaxSeqLen = 100000000;     // 1e8
inline constexpr double kMaxParams = 1e16;
inline constexpr uint64_t kMaxBatchTokens = 1000000000000;  // 1e12
inline constexpr double kMaxTrainTokens = 1e18;
inline constexpr uint32_t kMaxElementBytes = 8;
inline constexpr uint32_t kMaxMicroBatch = 1000000;
inline constexpr uint32_t kMaxDegree = 1000000000;  // tp, pp, dp
inline constexpr double kMaxMemoryBoundFactor = 100;
inline constexpr double kMaxLatencySeconds = 1;
inline constexpr uint32_t kMaxContextParallel = 1024;
inline constexpr double kMaxGemmKneeFlopsPerByte = 1e5;
inline constexpr uint32_t kMaxComputeUnits = 100000;
inline constexpr double kMaxMtbiHours = 1e9;
inline constexpr double kMaxCheckpointBytesPerSecond = 1e15;
inline constexpr double kMaxCheckpointBytesPerParam = 64;
inline constexpr double kMaxRestartSeconds = 1e6;
inline constexpr double kMaxCheckpointIntervalSeconds = 1e8;
inline constexpr uint32_t kMaxExperts = 1000000;  // workload.moe experts, per token, shared
}  // namespace limits

// Checks a workload; `path` prefixes field names ("workload").
absl::Status ValidateWorkload(const Workload& workload, absl::string_view path);

// Checks a calibration; `path` prefixes field names ("hardware.calibration").
absl::Status ValidateCalibration(const EfficiencyCalibration& calibration, absl::string_view path);

// What the workload model needs of the hardware beyond ValidateRequest's own checks: the HBM size
// and bandwidth, and the scale-up bandwidth when a domain holds more than one GPU. Only for
// requests that carry a workload.
absl::Status ValidateWorkloadHardware(const Hardware& hardware, absl::string_view path);

// What the workload's precision needs of the accelerator: FP8 multiplies need its FP8 peak.
absl::Status ValidatePrecisionOnHardware(const Workload& workload, const Hardware& hardware,
                                         absl::string_view workload_path,
                                         absl::string_view hardware_path);

}  // namespace dcplan
