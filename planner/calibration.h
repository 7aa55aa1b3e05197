// File: planner/calibration.h
//
// Published training runs as inputs to the workload model, and fitting its free constants to them.
//
// A run comes from two CSV files (tests/data/): measured_training_runs.csv (the source, GPU count,
// model shape, global batch, published tensor/pipeline/data parallel degrees, the achieved FLOP/s
// per GPU and the FLOP convention the source used) and measured_training_runs_setup.csv (what the
// first leaves out but the model needs: micro-batch, interleaving, recomputation, the framework's
// features and the hardware's HBM, NVLink and NIC figures, each with its source). The published
// rate is converted to MFU in the PaLM convention: sources that count activation recomputation
// (Megatron's 96 B s l h^2 (1 + s/6h + V/16lh) per iteration) are scaled by model FLOPs over that,
// 0.750-0.762 for these shapes.
//
// FitCalibration chooses kernel_efficiency, the scale-up and scale-out bandwidth efficiencies and
// the memory-bound factor that minimize the RMS error in MFU points over the runs, by Nelder-Mead
// inside physical bounds (MinimizeInBox). examples/calibrate_efficiency.cc runs it; the a100-dgx
// preset records the result.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::vector<MeasuredRun> runs, ReadMeasuredRuns(csv, setup_csv));
//   DCPLAN_ASSIGN_OR_RETURN(FitResult fit, FitCalibration(runs, EfficiencyCalibration()));
//   DCPLAN_ASSIGN_OR_RETURN(StepEstimate e, PredictRun(runs[0], fit.calibration));
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "planner/workload_model.h"
#include "proto/request.pb.h"
#include "proto/workload.pb.h"

namespace dcplan {

struct MeasuredRun {
  std::string source;
  int64_t gpus = 0;
  std::string interconnect;  // as the source describes it
  Workload workload;         // shape, batch, the published parallelism and the framework's features
  Hardware hardware;         // peak, HBM, scale-up and scale-out as run; calibration left empty
  double reported_flops_per_gpu = 0;  // FLOP/s per GPU, as the source reports it
  std::string flops_convention;       // "megatron_recompute" or "model"
  double published_mfu = 0;           // the reported rate as MFU in the PaLM convention
};

// Model (PaLM) FLOPs per token of a GPT-shaped workload over Megatron's recompute-counting FLOPs
// per token, 96 l h^2 (1 + s/(6h) + V/(16 l h)): the factor that turns a "megatron_recompute" rate
// into a model-FLOPs rate.
double ModelOverMegatronRecomputeFlops(const Workload& workload);

// MFU in the PaLM convention of a rate reported per GPU under `convention` ("megatron_recompute" or
// "model") on GPUs of `peak_flops_per_second`. InvalidArgument for another convention.
absl::StatusOr<double> PublishedMfu(double reported_flops_per_gpu, absl::string_view convention,
                                    const Workload& workload, double peak_flops_per_second);

// Parses the two CSV texts; every run must have exactly one setup row (matched on source and gpus).
// Errors name the line and column.
absl::StatusOr<std::vector<MeasuredRun>> ParseMeasuredRuns(absl::string_view runs_csv,
                                                           absl::string_view setup_csv);

// Reads and parses the two files.
absl::StatusOr<std::vector<MeasuredRun>> ReadMeasuredRuns(const std::string& runs_path,
                                                          const std::string& setup_path);

// The model's estimate of `run` with its published parallelism under `calibration`. Fails when the
// run's configuration does not fit in memory under the model.
absl::StatusOr<StepEstimate> PredictRun(const MeasuredRun& run,
                                        const EfficiencyCalibration& calibration);

// Minimizes `f` over the box [lower, upper] by Nelder-Mead from `start` with initial simplex steps
// `step` (points outside the box are clamped to it before `f` sees them), for `iterations`
// iterations. Returns the best point found.
std::vector<double> MinimizeInBox(const std::function<double(const std::vector<double>&)>& f,
                                  std::vector<double> start, const std::vector<double>& step,
                                  const std::vector<double>& lower,
                                  const std::vector<double>& upper, int iterations);

// The fitted constants and how well they do.
struct FitResult {
  EfficiencyCalibration calibration;
  std::vector<double> error_points;  // predicted - published MFU, in points, per run
  double rms_points = 0;
  double max_abs_points = 0;
};

// The bounds the fit keeps to, with their reasons (calibration.cc):
// kernel_efficiency [0.3, 0.95], scale-up and scale-out bandwidth efficiency [0.5, 0.95],
// memory_bound_factor [0.25, 4].
struct FitBounds {
  std::vector<double> lower = {0.3, 0.5, 0.5, 0.25};
  std::vector<double> upper = {0.95, 0.95, 0.95, 4.0};
};

// Fits kernel_efficiency, scale_up_bandwidth_efficiency, scale_out_bandwidth_efficiency and
// memory_bound_factor to `runs` (least squares in MFU points); the other fields of `base` are kept.
absl::StatusOr<FitResult> FitCalibration(const std::vector<MeasuredRun>& runs,
                                         const EfficiencyCalibration& base,
                                         const FitBounds& bounds = FitBounds());

// The errors of `calibration` on `runs`, as FitCalibration reports them.
absl::StatusOr<FitResult> ScoreCalibration(const std::vector<MeasuredRun>& runs,
                                           const EfficiencyCalibration& calibration);

}  // namespace dcplan
