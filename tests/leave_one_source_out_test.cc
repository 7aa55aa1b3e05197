// Leave-one-source-out error of the workload efficiency model, per GPU type: each source (paper or
// table) of tests/data/measured_training_runs.csv predicted by the fit to the other sources only,
// beside the in-sample and leave-one-run-out errors. Prints the table README quotes (MFU points,
// predicted - published) and holds the errors to what it says.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status_matchers.h"
#include "gtest/gtest.h"
#include "planner/workload/calibration.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;

std::vector<MeasuredRun> FitRows(const std::string& gpu) {
  auto runs = ReadMeasuredRuns("tests/data/measured_training_runs.csv",
                               "tests/data/measured_training_runs_setup.csv");
  EXPECT_THAT(runs.status(), IsOk());
  std::vector<MeasuredRun> out;
  if (!runs.ok()) return out;
  for (const MeasuredRun& r : RunsOnGpu(*runs, gpu)) {
    if (!IsCheckOnlyRun(r)) out.push_back(r);
  }
  return out;
}

struct Errors {
  double in_sample = 0, one_out = 0, source_out = 0;
};

Errors Table(const std::string& gpu) {
  const std::vector<MeasuredRun> runs = FitRows(gpu);
  const FitBounds bounds = BoundsForGpu(gpu);
  auto fit = FitCalibration(runs, EfficiencyCalibration(), bounds);
  auto loo = LeaveOneOut(runs, EfficiencyCalibration(), bounds);
  auto loso = LeaveOneSourceOut(runs, EfficiencyCalibration(), bounds);
  EXPECT_THAT(fit.status(), IsOk());
  EXPECT_THAT(loo.status(), IsOk());
  EXPECT_THAT(loso.status(), IsOk());
  if (!fit.ok() || !loo.ok() || !loso.ok()) return {};
  std::printf("%s: MFU error in points (predicted - published)\n", gpu.c_str());
  std::printf("%-22s %6s %10s %10s %12s\n", "source", "gpus", "in-sample", "run out", "source out");
  for (size_t i = 0; i < runs.size(); ++i) {
    std::printf("%-22s %6lld %10.2f %10.2f %12.2f\n", runs[i].source.c_str(),
                static_cast<long long>(runs[i].gpus), fit->error_points[i], loo->error_points[i],
                loso->error_points[i]);
  }
  std::printf("%-22s %6s %10.2f %10.2f %12.2f\n", "RMS", "", fit->rms_points, loo->rms_points,
              loso->rms_points);
  std::printf("%-22s %6s %10.2f %10.2f %12.2f\n\n", "max |error|", "", fit->max_abs_points,
              loo->max_abs_points, loso->max_abs_points);
  return {fit->rms_points, loo->rms_points, loso->rms_points};
}

TEST(LeaveOneSourceOut, IsWorseThanInSampleAndStaysBounded) {
  for (const std::string gpu : {"A100-80GB", "H100-SXM5"}) {
    const Errors e = Table(gpu);
    // Leaving a whole source out can only lose information the fit had in sample.
    EXPECT_GE(e.source_out, e.in_sample) << gpu;
    EXPECT_TRUE(std::isfinite(e.source_out)) << gpu;
    // Issue 19's one-constant fits (below): A100 3.62, H100 1.88 points RMS, with ~10% slack.
    EXPECT_LE(e.source_out, gpu == "A100-80GB" ? 4.0 : 2.1) << gpu;
  }
}

TEST(LeaveOneSourceOut, OneFittedConstantPerFamily) {
  // Issue 19: kernel_efficiency alone is fitted for A100 and H100 (the others held at cited or
  // physical values). Leaving a whole source out, the A100 fit missed by 4.03 points RMS with five
  // fitted constants and by 3.62 with one; the H100 fit by 2.41 with three (the fp32-gradient,
  // GPT-block model) and 1.88 with one. Bounds: those figures with ~10% slack.
  for (const std::string gpu : {"A100-80GB", "H100-SXM5"}) {
    const FitBounds b = BoundsForGpu(gpu);
    int fitted = 0;
    for (size_t i = 0; i < b.lower.size(); ++i) fitted += b.lower[i] < b.upper[i] ? 1 : 0;
    EXPECT_EQ(fitted, 1) << gpu;
    EXPECT_LT(b.lower[0], b.upper[0]) << gpu << ": kernel_efficiency is the fitted one";
  }
}

}  // namespace
}  // namespace dcplan
