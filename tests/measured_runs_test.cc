// Published-data test of the workload efficiency model: every row of
// tests/data/measured_training_runs.csv (Narayanan et al. 2021 Table 1, MT-NLG 2022, BLOOM 2022;
// all A100) evaluated with its published parallelism (and the setup facts of
// measured_training_runs_setup.csv) under the calibration the a100-dgx preset ships, against the
// published MFU converted to the PaLM convention. Prints the table and holds every row to a bound:
//   - 3.0 MFU points for the benchmark runs (Narayanan) and BLOOM;
//   - 4.0 points for MT-NLG, a production run: its own three rows fit
//     iteration = (m + p - 1) t_mb + C with t_mb = 0.206 s (the model: 0.198 s) and a per-step
//     overhead C of ~3.6 s that no term of the model explains (its data-parallel sync and optimizer
//     give ~0.6 s); Narayanan's benchmark of the same 530B model has none. So the model is 2.8-3.8
//     points optimistic there.
// It also checks that MFU moves the right way with GPU count at a fixed batch, and that the
// preset's constants are what examples/calibrate_efficiency.cc fits.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/calibration.h"
#include "planner/parallelism_search.h"
#include "planner/presets/presets.h"
#include "planner/status_matchers.h"
#include "planner/workload_model.h"
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

EfficiencyCalibration ShippedCalibration() {
  return LoadPreset("a100-dgx").value().hardware().calibration();
}

double BoundPoints(const MeasuredRun& run) { return run.source == "mtnlg2022" ? 4.0 : 3.0; }

TEST(MeasuredRuns, EveryRowWithinItsBound) {
  const std::vector<MeasuredRun> runs = Runs();
  ASSERT_EQ(runs.size(), 14u);
  const EfficiencyCalibration calibration = ShippedCalibration();
  std::printf("%-17s %5s %7s %9s %6s %10s %10s %7s\n", "source", "gpus", "params", "tp/pp/dp", "v",
              "published", "predicted", "error");
  double sum = 0;
  for (const MeasuredRun& run : runs) {
    const auto e = PredictRun(run, calibration);
    ASSERT_THAT(e.status(), IsOk()) << run.source << " " << run.gpus;
    const double predicted = units::InFraction(e->mfu);
    const double error = 100.0 * (predicted - run.published_mfu);
    sum += error * error;
    const Parallelism& p = run.workload.parallelism();
    std::printf("%-17s %5lld %6.0fB %3u/%2u/%2u %6u %9.1f%% %9.1f%% %+7.2f\n", run.source.c_str(),
                static_cast<long long>(run.gpus), ParamsFromShape(run.workload) / 1e9, p.tp(),
                p.pp(), p.dp(), p.virtual_stages(), 100 * run.published_mfu, 100 * predicted,
                error);
    EXPECT_LE(std::abs(error), BoundPoints(run)) << run.source << " on " << run.gpus << " GPUs";
  }
  const double rms = std::sqrt(sum / static_cast<double>(runs.size()));
  std::printf("RMS error %.2f MFU points\n", rms);
  EXPECT_LE(rms, 2.0);
}

TEST(MeasuredRuns, PublishedMfuUsesThePalmConvention) {
  // The 1T row: 163 TF/s "= 52%" of peak counts recomputation; in the PaLM convention it is 39.2%.
  for (const MeasuredRun& run : Runs()) {
    if (run.gpus == 3072) EXPECT_NEAR(run.published_mfu, 0.392, 0.0005);
  }
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
  // For each run, the search (dp free, the rest free too) on the same GPUs finds a split no worse
  // than the published one under the same model.
  const EfficiencyCalibration calibration = ShippedCalibration();
  for (const MeasuredRun& run : Runs()) {
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
  // Rerunning the fit (examples/calibrate_efficiency.cc does the same) gives the a100-dgx preset's
  // values to the three decimals the preset records.
  const auto fit = FitCalibration(Runs(), EfficiencyCalibration());
  ASSERT_THAT(fit.status(), IsOk());
  const EfficiencyCalibration shipped = ShippedCalibration();
  EXPECT_NEAR(fit->calibration.kernel_efficiency(), shipped.kernel_efficiency(), 0.0006);
  EXPECT_NEAR(fit->calibration.scale_up_bandwidth_efficiency(),
              shipped.scale_up_bandwidth_efficiency(), 0.0006);
  EXPECT_NEAR(fit->calibration.scale_out_bandwidth_efficiency(),
              shipped.scale_out_bandwidth_efficiency(), 0.0006);
  EXPECT_NEAR(fit->calibration.memory_bound_factor(), shipped.memory_bound_factor(), 0.0006);
}

}  // namespace
}  // namespace dcplan
