// calibrate_efficiency: fits the workload efficiency model's free constants to published training
// runs and prints them, ready to paste into a preset's hardware.calibration, with every run's
// error.
//
//   ./bazelw run //examples:calibrate_efficiency
//   ./bazelw run //examples:calibrate_efficiency -- --csv=/path/runs.csv --setup=/path/setup.csv
//
// The runs are tests/data/measured_training_runs.csv (shape, batch, published parallelism, achieved
// FLOP/s and the FLOP convention) and tests/data/measured_training_runs_setup.csv (micro-batch,
// interleaving, recomputation, framework features, hardware figures). The fit
// (planner/workload/calibration.h) chooses kernel_efficiency, gemm_knee_flops_per_byte,
// scale_up_bandwidth_efficiency, scale_out_bandwidth_efficiency and memory_bound_factor (per GPU
// type, FitBounds says which are held) by Nelder-Mead inside physical bounds,
// minimizing the RMS error in MFU points; gradient_sync_overlap, the latencies and
// hbm_usable_fraction keep their defaults (the runs cannot pin them: the data-parallel sync is a
// few percent of their steps).
//
// Relative paths are taken from the workspace when run with `bazel run`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "planner/workload/calibration.h"
#include "planner/workload/workload_model.h"
#include "units/units.h"

ABSL_FLAG(std::string, csv, "tests/data/measured_training_runs.csv",
          "the measured runs (source, shape, batch, parallelism, FLOP/s per GPU, convention)");
ABSL_FLAG(std::string, setup, "tests/data/measured_training_runs_setup.csv",
          "what the runs file leaves out (micro-batch, interleaving, recomputation, framework, "
          "hardware), one row per run");

namespace {

std::string FromWorkspace(const std::string& path) {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (path.empty() || path[0] == '/' || ws == nullptr) return path;
  return absl::StrCat(ws, "/", path);
}

// How many constants `bounds` leaves free, and their names.
std::pair<int, std::string> FittedNames(const dcplan::FitBounds& bounds) {
  static const char* const kNames[] = {"kernel_efficiency", "gemm_knee_flops_per_byte",
                                       "scale_up_bandwidth_efficiency",
                                       "scale_out_bandwidth_efficiency", "memory_bound_factor"};
  std::pair<int, std::string> out{0, ""};
  for (size_t i = 0; i < bounds.lower.size() && i < 5; ++i) {
    if (bounds.lower[i] == bounds.upper[i]) continue;
    ++out.first;
    out.second += out.second.empty() ? kNames[i] : absl::StrCat(", ", kNames[i]);
  }
  return out;
}

// Prints the fit of `runs` (one GPU type) as a calibration block, every run's error in sample and
// left out, and where each run's step goes.
int Report(const std::string& gpu, const std::vector<dcplan::MeasuredRun>& all,
           dcplan::EfficiencyCalibration* fitted) {
  std::vector<dcplan::MeasuredRun> fit_runs, checks;
  for (const dcplan::MeasuredRun& r : dcplan::RunsOnGpu(all, gpu)) {
    (dcplan::IsCheckOnlyRun(r) ? checks : fit_runs).push_back(r);
  }
  if (fit_runs.empty()) return 0;
  const dcplan::FitBounds bounds = dcplan::BoundsForGpu(gpu);
  auto fit = dcplan::FitCalibration(fit_runs, dcplan::EfficiencyCalibration(), bounds);
  if (!fit.ok()) {
    std::cerr << "calibrate_efficiency: " << fit.status().message() << "\n";
    return 1;
  }
  auto loo = dcplan::LeaveOneOut(fit_runs, dcplan::EfficiencyCalibration(), bounds);
  if (!loo.ok()) {
    std::cerr << "calibrate_efficiency: " << loo.status().message() << "\n";
    return 1;
  }
  auto loso = dcplan::LeaveOneSourceOut(fit_runs, dcplan::EfficiencyCalibration(), bounds);
  if (!loso.ok()) {
    std::cerr << "calibrate_efficiency: " << loso.status().message() << "\n";
    return 1;
  }
  const dcplan::EfficiencyCalibration& c = fit->calibration;
  *fitted = c;
  // The fused attention kernel's speed is a fact of the runs' software on this GPU (their setup
  // rows), not fitted: printed so the block is complete.
  std::string attention;
  if (fit_runs.front().attention_efficiency > 0) {
    attention = absl::StrFormat("  attention_efficiency: %.3f  # (ref) the runs' setup rows\n",
                                fit_runs.front().attention_efficiency);
  }
  std::cout << absl::StrFormat(
      "# %s: fitted to %d runs: RMS error %.2f MFU points, worst %.2f; leave-one-out RMS %.2f, "
      "worst %.2f; leave-one-source-out RMS %.2f, worst %.2f.\n"
      "# %s: %d fitted constant(s): %s\n"
      "calibration {\n"
      "  kernel_efficiency: %.3f\n"
      "  gemm_knee_flops_per_byte: %.3f\n"
      "  scale_up_bandwidth_efficiency: %.3f\n"
      "  scale_out_bandwidth_efficiency: %.3f\n"
      "  memory_bound_factor: %.3f\n"
      "%s"
      "}\n",
      gpu, fit_runs.size(), fit->rms_points, fit->max_abs_points, loo->rms_points,
      loo->max_abs_points, loso->rms_points, loso->max_abs_points, gpu, FittedNames(bounds).first,
      FittedNames(bounds).second, c.kernel_efficiency(), c.gemm_knee_flops_per_byte(),
      c.scale_up_bandwidth_efficiency(), c.scale_out_bandwidth_efficiency(),
      c.memory_bound_factor(), attention);
  // The constants' spread over the leave-one-out folds.
  auto spread = [&](double (dcplan::EfficiencyCalibration::*get)() const) {
    double lo = 1e300, hi = -1e300;
    for (const dcplan::EfficiencyCalibration& f : loo->folds) {
      lo = std::min(lo, (f.*get)());
      hi = std::max(hi, (f.*get)());
    }
    // The jackknife standard error of the fitted value: sqrt((n - 1) / n x the sum of squared
    // deviations of the n leave-one-out fits from their mean).
    double mean = 0;
    for (const dcplan::EfficiencyCalibration& f : loo->folds) mean += (f.*get)();
    const double n = static_cast<double>(loo->folds.size());
    mean /= n;
    double squares = 0;
    for (const dcplan::EfficiencyCalibration& f : loo->folds) {
      squares += ((f.*get)() - mean) * ((f.*get)() - mean);
    }
    return absl::StrFormat("%.3f..%.3f (+-%.3f)", lo, hi, std::sqrt((n - 1) / n * squares));
  };
  std::cout << absl::StrFormat(
      "# leave-one-out range (+- jackknife standard error): kernel_efficiency %s, "
      "gemm_knee_flops_per_byte %s, "
      "scale_up_bandwidth_efficiency %s, scale_out_bandwidth_efficiency %s, memory_bound_factor "
      "%s\n",
      spread(&dcplan::EfficiencyCalibration::kernel_efficiency),
      spread(&dcplan::EfficiencyCalibration::gemm_knee_flops_per_byte),
      spread(&dcplan::EfficiencyCalibration::scale_up_bandwidth_efficiency),
      spread(&dcplan::EfficiencyCalibration::scale_out_bandwidth_efficiency),
      spread(&dcplan::EfficiencyCalibration::memory_bound_factor));
  std::cout << absl::StrFormat(
      "%-20s %5s %6s %12s %6s %6s %6s %6s %6s | %5s %5s %5s %5s %5s %5s %5s\n", "source", "gpus",
      "params", "tp/cp/pp/dp", "pub", "model", "error", "l-o-o", "l-s-o", "comp", "mem", "tp", "cp",
      "p2p", "bubbl", "dp");
  std::vector<dcplan::MeasuredRun> rows = fit_runs;
  rows.insert(rows.end(), checks.begin(), checks.end());
  for (size_t i = 0; i < rows.size(); ++i) {
    const dcplan::MeasuredRun& r = rows[i];
    auto e = dcplan::PredictRun(r, c);
    if (!e.ok()) {
      std::cout << r.source << " " << r.gpus << ": " << e.status().message() << "\n";
      continue;
    }
    const double step = dcplan::units::InSeconds(e->step);
    auto share = [&](dcplan::units::Time t) { return 100.0 * dcplan::units::InSeconds(t) / step; };
    const dcplan::Parallelism& p = r.workload.parallelism();
    const double err = 100 * (dcplan::units::InFraction(e->mfu) - r.published_mfu);
    const std::string left_out =
        i < fit_runs.size() ? absl::StrFormat("%+6.1f", loo->error_points[i]) : " check";
    const std::string source_out =
        i < fit_runs.size() ? absl::StrFormat("%+6.1f", loso->error_points[i]) : " check";
    auto chosen = dcplan::PredictRunConfig(r, c);
    std::cout << absl::StrFormat(
        "%-20s %5d %5.0fB %12s %5.1f%% %5.1f%% %+6.1f %6s %6s | %4.0f%% %4.0f%% %4.0f%% %4.0f%% "
        "%4.0f%% "
        "%4.0f%% %4.0f%% | %s\n",
        r.source, r.gpus, dcplan::ParamsFromShape(r.workload) / 1e9,
        absl::StrCat(p.tp(), "/", p.cp(), "/", p.pp(), "/", p.dp()), 100 * r.published_mfu,
        100 * dcplan::units::InFraction(e->mfu), err, left_out, source_out, share(e->compute),
        share(e->memory_bound), share(e->tensor_parallel), share(e->context_parallel),
        share(e->pipeline_p2p), share(e->pipeline_bubble), share(e->data_parallel_exposed),
        chosen.ok() ? dcplan::DescribeConfig(*chosen) : "");
  }
  std::cout << "\n";
  return 0;
}

// Prints the check rows of a GPU type no run is fitted on (B200, GB200) under `carried`, the
// constants its presets carry over (the H100 fit): they judge the model, they do not move it.
void PrintCarriedChecks(const std::string& gpu, const std::vector<dcplan::MeasuredRun>& all,
                        const dcplan::EfficiencyCalibration& carried) {
  const std::vector<dcplan::MeasuredRun> rows = dcplan::RunsOnGpu(all, gpu);
  std::cout << absl::StrFormat(
      "# %s: no run fitted; %d check row(s) under the H100-SXM5 fit (carried, as the presets "
      "do)\n",
      gpu, rows.size());
  std::cout << absl::StrFormat("%-22s %5s %12s %6s %6s %6s %9s\n", "source", "gpus", "tp/cp/pp/dp",
                               "pub", "model", "error", "fp8-peak");
  for (const dcplan::MeasuredRun& r : rows) {
    auto e = dcplan::PredictRun(r, carried);
    if (!e.ok()) {
      std::cout << r.source << " " << r.gpus << ": " << e.status().message() << "\n";
      continue;
    }
    const dcplan::Parallelism& p = r.workload.parallelism();
    const double mfu = dcplan::units::InFraction(e->mfu);
    std::cout << absl::StrFormat("%-22s %5d %12s %5.1f%% %5.1f%% %+6.1f %8.1f%%\n", r.source,
                                 r.gpus,
                                 absl::StrCat(p.tp(), "/", p.cp(), "/", p.pp(), "/", p.dp()),
                                 100 * r.published_mfu, 100 * mfu, 100 * (mfu - r.published_mfu),
                                 100 * dcplan::units::InFraction(e->mfu_at_precision_peak));
  }
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto runs = dcplan::ReadMeasuredRuns(FromWorkspace(absl::GetFlag(FLAGS_csv)),
                                       FromWorkspace(absl::GetFlag(FLAGS_setup)));
  if (!runs.ok()) {
    std::cerr << "calibrate_efficiency: " << runs.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> gpus;
  for (const dcplan::MeasuredRun& r : *runs) {
    const std::string& g = r.hardware.accelerator().name();
    if (std::find(gpus.begin(), gpus.end(), g) == gpus.end()) gpus.push_back(g);
  }
  dcplan::EfficiencyCalibration h100;
  std::vector<std::string> unfitted;
  for (const std::string& g : gpus) {
    dcplan::EfficiencyCalibration fitted;
    bool any_fit = false;
    for (const dcplan::MeasuredRun& r : dcplan::RunsOnGpu(*runs, g)) {
      any_fit = any_fit || !dcplan::IsCheckOnlyRun(r);
    }
    if (!any_fit) {
      unfitted.push_back(g);
      continue;
    }
    if (int rc = Report(g, *runs, &fitted); rc != 0) return rc;
    if (g == "H100-SXM5") h100 = fitted;
  }
  for (const std::string& g : unfitted) PrintCarriedChecks(g, *runs, h100);
  return 0;
}
