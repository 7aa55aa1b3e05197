// File: planner/workload/calibration.h
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
// inside physical bounds (MinimizeInBox, minimize.h). examples/calibrate_efficiency.cc runs it; the
// a100-dgx preset records the result.
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
#include "planner/workload/minimize.h"
#include "planner/workload/workload_model.h"
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
  uint32_t compute_units = 0;         // the GPU's SMs, for wave quantization (a hardware fact)
  double attention_efficiency = 0;    // fused attention's fraction of peak; 0 = the GEMM curve
};

// A run printed beside the fit but not fitted: Llama 3's 131,072-token row, whose attention FLOP
// convention Meta does not state (at that length attention is over half of the PaLM count), and the
// FP8 runs of NeMo's performance tables (nemo2511_fp8*: H100, B200, GB200; nemo2507_fp8_70b_fsdp:
// GB200 with FSDP), which judge the FP8 and FSDP model and the carried-over constants without
// moving them.
bool IsCheckOnlyRun(const MeasuredRun& run);

// The runs on one GPU type (the runs file's gpu column, e.g. "A100-80GB", "H100-SXM5").
std::vector<MeasuredRun> RunsOnGpu(const std::vector<MeasuredRun>& runs, absl::string_view gpu);

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

// The configuration PredictRun evaluates: the published one, with what the run leaves unpublished
// (0 fields: micro-batch, interleaving, recomputation) searched.
absl::StatusOr<ParallelConfig> PredictRunConfig(const MeasuredRun& run,
                                                const EfficiencyCalibration& calibration);

// The fitted constants and how well they do.
struct FitResult {
  EfficiencyCalibration calibration;
  std::vector<double> error_points;  // predicted - published MFU, in points, per run
  double rms_points = 0;
  double max_abs_points = 0;
  // LeaveOneOut only: the constants fitted without each run, in run order (their spread is the
  // constants' uncertainty).
  std::vector<EfficiencyCalibration> folds;
};

// The fitted constants, in this order: kernel_efficiency (the ceiling of the multiplies' efficiency
// curve), gemm_knee_flops_per_byte (its knee), scale_up_bandwidth_efficiency,
// scale_out_bandwidth_efficiency, memory_bound_factor. The bounds the fit keeps to, with their
// reasons: the ceiling in [0.3, 1] (a fraction of peak); the knee in [0, 1000] FLOP/B (0 = a
// constant efficiency; the HBM ridge points are 156 (A100) and 295 (H100) FLOP/B, and on-chip reuse
// puts the real knee below them; at the ridge point compute and operand traffic never overlap, the
// "sum" roofline); link efficiencies in [0.5, 0.95] (NCCL never reaches line rate and rarely falls
// below half of it on large messages); memory_bound_factor in [0.25, 10] (fusion can beat the
// counted passes by up to 4x; short kernels on small per-GPU tensors reach at least a tenth of the
// HBM bandwidth). A constant whose lower and upper bound are equal is held there (not fitted).
struct FitBounds {
  std::vector<double> lower = {0.3, 0.0, 0.5, 0.5, 0.25};
  std::vector<double> upper = {1.0, 1000.0, 0.95, 0.95, 10.0};
};

// The bounds used per GPU type. A100 (14 runs) and H100 (8 runs): kernel_efficiency alone is
// fitted; the knee is held at 0, the memory-bound factor at 1 (the block variant's counted passes
// at full HBM bandwidth) and the link efficiencies at 0.8 (NCCL's measured all-reduce bus bandwidth
// on DGX H100 is ~360 of 450 GB/s per direction over NVLink and ~40 of 50 GB/s over 400G NDR
// InfiniBand: nccl-tests figures NVIDIA publishes). Few runs from few sources cannot pin more: the
// leave-one-source-out error rose with every constant added. Other GPUs: every constant fitted.
FitBounds BoundsForGpu(absl::string_view gpu);

// Fits the constants of FitBounds to `runs` (least squares in MFU points) from `base` (which also
// supplies the held constants and the fields the fit leaves alone).
absl::StatusOr<FitResult> FitCalibration(const std::vector<MeasuredRun>& runs,
                                         const EfficiencyCalibration& base,
                                         const FitBounds& bounds = FitBounds());

// Leave-one-out: for each run, the fit to all the others, scored on it. error_points[i] is run i's
// error under the fit without it; rms_points and max_abs_points summarize them.
absl::StatusOr<FitResult> LeaveOneOut(const std::vector<MeasuredRun>& runs,
                                      const EfficiencyCalibration& base,
                                      const FitBounds& bounds = FitBounds());

// Leave-one-source-out: for each source (a paper or table: MeasuredRun.source), the fit to the runs
// of every other source, scored on that source's runs. error_points[i] is run i's error under the
// fit without its whole source; rms_points and max_abs_points summarize them. Harder than
// LeaveOneOut: a source's rows share a framework, a cluster and a way of counting.
absl::StatusOr<FitResult> LeaveOneSourceOut(const std::vector<MeasuredRun>& runs,
                                            const EfficiencyCalibration& base,
                                            const FitBounds& bounds = FitBounds());

// The errors of `calibration` on `runs`, as FitCalibration reports them.
absl::StatusOr<FitResult> ScoreCalibration(const std::vector<MeasuredRun>& runs,
                                           const EfficiencyCalibration& calibration);

}  // namespace dcplan
