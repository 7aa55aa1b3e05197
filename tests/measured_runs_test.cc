// Published-data test of the workload efficiency model, per GPU type: every row of
// tests/data/measured_training_runs.csv evaluated with its published parallelism (and the setup
// facts of measured_training_runs_setup.csv) under the calibration its preset ships (a100-dgx for
// the A100 rows, h100-dgx for the H100 rows), against the published MFU in the PaLM convention.
// Prints the table in sample and leave-one-out (each row predicted by the fit to the others) and
// holds rows to bounds:
//   - A100: 3.0 MFU points for BLOOM, 4.0 for the benchmark runs (Narayanan: the 1T row on 64
//     pipeline stages is the worst, -3.8) and 4.5 for MT-NLG, a production run whose three rows
//     imply a per-step overhead no term of the model explains (Narayanan's benchmark of the same
//     530B model has none). Issue 19 fits one constant per family (BoundsForGpu), not five: the
//     in-sample errors grew (RMS 1.85 -> 2.18) while the leave-one-source-out error fell (4.03 ->
//     3.62, tests/leave_one_source_out_test.cc), so the row bounds were widened by 0.5.
//   - H100: 3.0 points for every row (Llama 3 405B, Nemotron-4 340B, Nemotron-4 15B). Llama 3's
//     131,072-token row is a check only (Meta does not say how it counts attention FLOPs at that
//     length); it must run as given.
// It also checks that MFU moves the right way with GPU count at a fixed batch, and that the
// presets' constants are what examples/calibrate_efficiency.cc fits.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/presets/presets.h"
#include "planner/workload/calibration.h"
#include "planner/workload/parallelism_search.h"
#include "planner/workload/workload_model.h"
#include "units/units.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;

constexpr char kRuns[] = "tests/data/measured_training_runs.csv";
constexpr char kSetup[] = "tests/data/measured_training_runs_setup.csv";

std::vector<MeasuredRun> Runs() {
  auto runs = ReadMeasuredRuns(kRuns, kSetup);
  EXPECT_THAT(runs.status(), IsOk());
  return runs.ok() ? *runs : std::vector<MeasuredRun>();
}

constexpr char kA100[] = "A100-80GB";
constexpr char kH100[] = "H100-SXM5";

EfficiencyCalibration ShippedCalibration(const std::string& gpu = kA100) {
  return LoadPreset(gpu == kA100 ? "a100-dgx" : "h100-dgx").value().hardware().calibration();
}

double BoundPoints(const MeasuredRun& run) {
  if (run.source == "mtnlg2022") return 4.5;
  if (run.source == "narayanan2021_t1") return 4.0;
  return 3.0;
}

// The rows of one GPU type that the fit uses, and the check-only ones.
std::vector<MeasuredRun> FitRows(const std::string& gpu) {
  std::vector<MeasuredRun> out;
  for (const MeasuredRun& r : RunsOnGpu(Runs(), gpu)) {
    if (!IsCheckOnlyRun(r)) out.push_back(r);
  }
  return out;
}

// Prints the table of `gpu`'s rows, in sample and left out, and holds each to its bound. Returns
// the in-sample RMS.
double CheckTable(const std::string& gpu) {
  const std::vector<MeasuredRun> runs = FitRows(gpu);
  const EfficiencyCalibration calibration = ShippedCalibration(gpu);
  const auto loo = LeaveOneOut(runs, EfficiencyCalibration(), BoundsForGpu(gpu));
  EXPECT_THAT(loo.status(), IsOk());
  std::printf("%s under the %s preset\n", gpu.c_str(), gpu == kA100 ? "a100-dgx" : "h100-dgx");
  std::printf("%-20s %5s %7s %12s %3s %10s %10s %7s %7s\n", "source", "gpus", "params",
              "tp/cp/pp/dp", "v", "published", "predicted", "error", "l-o-o");
  double sum = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const MeasuredRun& run = runs[i];
    const auto e = PredictRun(run, calibration);
    EXPECT_THAT(e.status(), IsOk()) << run.source << " " << run.gpus;
    if (!e.ok()) continue;
    const double predicted = units::InFraction(e->mfu);
    const double error = 100.0 * (predicted - run.published_mfu);
    sum += error * error;
    const Parallelism& p = run.workload.parallelism();
    std::printf("%-20s %5lld %6.0fB %3u/%2u/%2u/%3u %3u %9.1f%% %9.1f%% %+7.2f %+7.2f\n",
                run.source.c_str(), static_cast<long long>(run.gpus),
                ParamsFromShape(run.workload) / 1e9, p.tp(), std::max<uint32_t>(p.cp(), 1), p.pp(),
                p.dp(), p.virtual_stages(), 100 * run.published_mfu, 100 * predicted, error,
                loo.ok() ? loo->error_points[i] : 0.0);
    EXPECT_LE(std::abs(error), BoundPoints(run)) << run.source << " on " << run.gpus << " GPUs";
  }
  const double rms = std::sqrt(sum / static_cast<double>(runs.size()));
  std::printf("RMS error %.2f MFU points in sample, %.2f leave-one-out (worst %.2f)\n\n", rms,
              loo.ok() ? loo->rms_points : 0.0, loo.ok() ? loo->max_abs_points : 0.0);
  return rms;
}

TEST(MeasuredRuns, A100RowsWithinTheirBounds) {
  ASSERT_EQ(FitRows(kA100).size(), 14u);
  EXPECT_LE(CheckTable(kA100), 2.5);  // 2.18 with the one-constant fit
}

TEST(MeasuredRuns, H100RowsWithinTheirBounds) {
  ASSERT_EQ(FitRows(kH100).size(), 8u);
  // 1.30 with the one-constant fit: near the ~2-point noise floor of published tables, not below
  // it (the five-constant fit's 0.12 had learned the rows).
  EXPECT_LE(CheckTable(kH100), 1.5);
}

TEST(MeasuredRuns, Llama3LongContextRowRunsAsGiven) {
  // The 131,072-token row (tp 8, cp 16, pp 16, dp 8, 8 chunks per stage on 126 layers) is accepted
  // as given; its MFU is printed as a check. If Meta counted attention causally (6 l s h a token
  // instead of PaLM's 12 l s h), its 38% is 38 x 5.67e12 / 4.05e12 = 53% in the PaLM convention.
  int rows = 0;
  for (const MeasuredRun& run : RunsOnGpu(Runs(), kH100)) {
    if (run.source != "llama3_2024_131k") continue;
    const auto e = PredictRun(run, ShippedCalibration(kH100));
    ASSERT_THAT(e.status(), IsOk());
    std::printf(
        "check: %s on %lld GPUs: published %.1f%% (its own convention), predicted %.1f%% "
        "(PaLM)\n",
        run.source.c_str(), static_cast<long long>(run.gpus), 100 * run.published_mfu,
        100 * units::InFraction(e->mfu));
    EXPECT_GT(units::InSeconds(e->context_parallel) + units::InSeconds(e->compute), 0.0);
    ++rows;
  }
  EXPECT_EQ(rows, 1);
}

TEST(MeasuredRuns, Fp8ChecksOfCurrentSoftwareRunAsGiven) {
  // NeMo 25.11's FP8 (current scaling) Llama rows on H100, B200 and GB200 (check rows, never
  // fitted), under the H100 fit the h100-dgx, b200-dgx and gb200-nvl72 presets carry. Each runs as
  // published; MFU is against the BF16 peak and, beside it, against the FP8 peak: the ratio of the
  // two is the ratio of the peaks (H100 1,979 / 989.4, B200 4,500 / 2,250, GB200 5,000 / 2,500 =
  // 2). The error is printed and held to a loose 10 points: these judge the model, they are
  // not its data. With the FP8 multiplies at the BF16 fit's fraction of the FP8 peak the model
  // over-predicted every one (+1 to +16 points); at the cited 1.75 x BF16's rate (cuBLAS 12.9,
  // Transformer Engine: FP8 tensor cores reach 0.875 of BF16's fraction of peak) the errors are
  // -6.2 to +9.4 (mean -0.1): the 8B rows still over (+4.9, +9.4), the 70B row under (-6.2).
  // Left visible rather than fitted away.
  const std::vector<MeasuredRun> all = Runs();
  int rows = 0;
  for (const MeasuredRun& run : all) {
    if (run.source.rfind("nemo2511_fp8", 0) != 0) continue;
    ASSERT_TRUE(IsCheckOnlyRun(run)) << run.source;
    EXPECT_EQ(run.workload.precision(), TRAINING_PRECISION_FP8);
    const auto e = PredictRun(run, ShippedCalibration(kH100));
    ASSERT_THAT(e.status(), IsOk()) << run.source << " " << run.gpus;
    const double mfu = units::InFraction(e->mfu);
    const Accelerator& acc = run.hardware.accelerator();
    EXPECT_NEAR(units::InFraction(e->mfu_at_precision_peak),
                mfu * acc.peak_flops_per_second() / acc.peak_fp8_flops_per_second(), 1e-12);
    std::printf(
        "check: %s (%s) on %lld GPUs: published %.1f%%, predicted %.1f%% (%+.1f); %.1f%% of "
        "the FP8 peak\n",
        run.source.c_str(), acc.name().c_str(), static_cast<long long>(run.gpus),
        100 * run.published_mfu, 100 * mfu, 100 * (mfu - run.published_mfu),
        100 * units::InFraction(e->mfu_at_precision_peak));
    EXPECT_LE(std::abs(mfu - run.published_mfu), 0.10) << run.source << " " << run.gpus;
    ++rows;
  }
  EXPECT_EQ(rows, 6);
}

TEST(MeasuredRuns, FsdpCheckRowRunsFullySharded) {
  // NeMo 25.07's Llama 3 70B on 64 GB200 with FSDP at tp 1, pp 1 (a check row, never fitted; no
  // constant moved for it): 70.6e9 parameters at 2 + 2 + 12 bytes need 1.1 TB, 17.6 GB a GPU
  // only when weights, gradients and optimizer state are all sharded over the 64 ranks; ZeRO-1
  // keeps 141 GB of weights and 141 GB of gradients on every GPU, more than the 167 GB usable. So
  // the model runs it as ZeRO-3, and predicts the published 4,066 tokens/s/GPU (78.3% MFU) within
  // 8 points under the H100 fit the gb200-nvl72 preset carries (-1.0 with FP8 multiplies at the
  // fit's fraction of the FP8 peak, -7.0 at the cited FP8 speedup of 1.75 over BF16).
  int rows = 0;
  for (const MeasuredRun& run : Runs()) {
    if (run.source != "nemo2507_fp8_70b_fsdp") continue;
    ASSERT_TRUE(IsCheckOnlyRun(run));
    const auto config = PredictRunConfig(run, ShippedCalibration(kH100));
    ASSERT_THAT(config.status(), IsOk());
    EXPECT_EQ(config->zero, 3);
    EXPECT_EQ(config->tp * config->pp * config->cp, 1);
    const auto e = PredictRun(run, ShippedCalibration(kH100));
    ASSERT_THAT(e.status(), IsOk());
    EXPECT_NEAR(run.published_mfu, 4066 * 4.8143e11 / 2.5e15, 1e-4);
    std::printf("check: %s on %lld GPUs (ZeRO-3): published %.1f%%, predicted %.1f%%\n",
                run.source.c_str(), static_cast<long long>(run.gpus), 100 * run.published_mfu,
                100 * units::InFraction(e->mfu));
    EXPECT_LE(std::abs(units::InFraction(e->mfu) - run.published_mfu), 0.08);
    ++rows;
  }
  EXPECT_EQ(rows, 1);
}

TEST(MeasuredRuns, MixtureOfExpertsCheckRowRunsItsExpertParallelism) {
  // Megatron-Core's Mixtral 8x7B (468 TFLOP/s per H100 = 47.3% MFU, BF16; its README's mapping:
  // 64 GPUs, tp 1, ep 8, pp 4) is a check row, never fitted. The run keeps its published ep 8,
  // which at tp 1 fits one 8-GPU NVLink server. Its model FLOPs count active parameters: per
  // layer attention 2 h^2 + 2 h kv = 2 x 4096^2 + 2 x 4096 x 1024 = 41.9e6 and top-2 of the SwiGLU
  // experts 2 x 3 x 4096 x 14336 = 352.3e6, over 32 layers 12.62e9, plus the untied embedding and
  // output layer 2 x 32000 x 4096 = 0.26e9: 12.9e9 active (Mistral: 12.9B) of 46.7e9. The error is
  // printed and held to 5 points (-1.9 when written).
  int rows = 0;
  for (const MeasuredRun& run : Runs()) {
    if (run.source != "mcore_moe_mixtral8x7b") continue;
    ASSERT_TRUE(IsCheckOnlyRun(run));
    EXPECT_EQ(run.workload.moe().experts(), 8u);
    const auto config = PredictRunConfig(run, ShippedCalibration(kH100));
    ASSERT_THAT(config.status(), IsOk());
    EXPECT_EQ(config->ep, 8);
    EXPECT_EQ(config->tp, 1);
    const auto e = PredictRun(run, ShippedCalibration(kH100));
    ASSERT_THAT(e.status(), IsOk());
    EXPECT_NEAR(run.published_mfu, 468.0 / 989.4, 1e-9);
    std::printf("check: %s on %lld GPUs (ep 8): published %.1f%%, predicted %.1f%%\n",
                run.source.c_str(), static_cast<long long>(run.gpus), 100 * run.published_mfu,
                100 * units::InFraction(e->mfu));
    EXPECT_LE(std::abs(units::InFraction(e->mfu) - run.published_mfu), 0.05);
    ++rows;
  }
  EXPECT_EQ(rows, 1);
}

TEST(MeasuredRuns, PublishedMfuUsesThePalmConvention) {
  // The 1T row: 163 TF/s "= 52%" of peak counts recomputation; in the PaLM convention it is 39.2%.
  for (const MeasuredRun& run : Runs()) {
    if (run.source == "narayanan2021_t1" && run.gpus == 3072) {
      EXPECT_NEAR(run.published_mfu, 0.392, 0.0005);
    }
  }
}

TEST(MeasuredRuns, MfuFallsWithDataParallelSizeAtFixedBatchPerReplica) {
  // Nemotron-4 15B at 4 sequences per replica on 96, 192 and 288 replicas: the published MFU falls
  // (34.3, 33.3, 30.5%) and so must the model's: its reduce-scatter and all-gather run as rings,
  // one per 40M-parameter gradient bucket, so their latency grows with the replicas (n - 1 steps).
  const EfficiencyCalibration calibration = ShippedCalibration(kH100);
  double last_published = 1, last_predicted = 1;
  int rows = 0;
  for (const MeasuredRun& run : Runs()) {
    if (run.source != "nemotron4_15b_2024") continue;
    const StepEstimate e = PredictRun(run, calibration).value();
    const double predicted = units::InFraction(e.mfu);
    EXPECT_LT(run.published_mfu, last_published) << run.gpus;
    EXPECT_LT(predicted, last_predicted) << run.gpus;
    last_published = run.published_mfu;
    last_predicted = predicted;
    ++rows;
  }
  EXPECT_EQ(rows, 3);
}

TEST(MeasuredRuns, MfuFallsWithGpuCountAtFixedBatch) {
  // MT-NLG 530B at a global batch of 1920 on 2240, 2800 and 3360 GPUs: the published MFU falls
  // (fewer micro-batches per pipeline, so a larger bubble share), and so does the model's.
  const EfficiencyCalibration calibration = ShippedCalibration();
  double last_published = 1, last_predicted = 1;
  int rows = 0;
  for (const MeasuredRun& run : Runs()) {
    if (run.source != "mtnlg2022") continue;
    const double predicted = units::InFraction(PredictRun(run, calibration).value().mfu);
    EXPECT_LT(run.published_mfu, last_published) << run.gpus;
    EXPECT_LT(predicted, last_predicted) << run.gpus;
    last_published = run.published_mfu;
    last_predicted = predicted;
    ++rows;
  }
  EXPECT_EQ(rows, 3);
}

TEST(MeasuredRuns, SearchedSplitIsAtLeastAsGoodAsThePublishedOne) {
  // For each A100 run, the search (dp free, the rest free too) on the same GPUs finds a split no
  // worse than the published one under the same model.
  const EfficiencyCalibration calibration = ShippedCalibration();
  for (const MeasuredRun& run : RunsOnGpu(Runs(), kA100)) {
    Hardware hardware = run.hardware;
    *hardware.mutable_calibration() = calibration;
    const TrainingHardware hw = BuildTrainingHardware(hardware);
    Workload free = run.workload;
    free.clear_parallelism();
    const auto best = SearchParallelism(BuildWorkloadModel(free).value(), hw, run.gpus);
    ASSERT_THAT(best.status(), IsOk());
    EXPECT_GE(units::InFraction(best->estimate.mfu),
              units::InFraction(PredictRun(run, calibration).value().mfu) - 1e-12)
        << run.source << " " << run.gpus;
  }
}

TEST(MeasuredRuns, PresetConstantsAreTheFit) {
  // Rerunning the fit per GPU type (examples/calibrate_efficiency.cc does the same) gives the
  // a100-dgx and h100-dgx presets' values to the decimals the presets record.
  for (const std::string gpu : {kA100, kH100}) {
    const auto fit = FitCalibration(FitRows(gpu), EfficiencyCalibration(), BoundsForGpu(gpu));
    ASSERT_THAT(fit.status(), IsOk());
    const EfficiencyCalibration shipped = ShippedCalibration(gpu);
    EXPECT_NEAR(fit->calibration.kernel_efficiency(), shipped.kernel_efficiency(), 0.0006) << gpu;
    EXPECT_NEAR(fit->calibration.gemm_knee_flops_per_byte(), shipped.gemm_knee_flops_per_byte(),
                0.06)
        << gpu;
    EXPECT_NEAR(fit->calibration.scale_up_bandwidth_efficiency(),
                shipped.scale_up_bandwidth_efficiency(), 0.0006)
        << gpu;
    EXPECT_NEAR(fit->calibration.scale_out_bandwidth_efficiency(),
                shipped.scale_out_bandwidth_efficiency(), 0.0006)
        << gpu;
    EXPECT_NEAR(fit->calibration.memory_bound_factor(), shipped.memory_bound_factor(), 0.0006)
        << gpu;
  }
}

}  // namespace
}  // namespace dcplan
