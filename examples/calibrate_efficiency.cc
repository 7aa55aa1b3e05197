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
// (planner/calibration.h) chooses kernel_efficiency, scale_up_bandwidth_efficiency,
// scale_out_bandwidth_efficiency and memory_bound_factor by Nelder-Mead inside physical bounds,
// minimizing the RMS error in MFU points; gradient_sync_overlap, the latencies and
// hbm_usable_fraction keep their defaults (the runs cannot pin them: the data-parallel sync is a
// few percent of their steps).
//
// Relative paths are taken from the workspace when run with `bazel run`.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "planner/calibration.h"
#include "planner/workload_model.h"
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

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto runs = dcplan::ReadMeasuredRuns(FromWorkspace(absl::GetFlag(FLAGS_csv)),
                                       FromWorkspace(absl::GetFlag(FLAGS_setup)));
  if (!runs.ok()) {
    std::cerr << "calibrate_efficiency: " << runs.status().message() << "\n";
    return 1;
  }
  auto fit = dcplan::FitCalibration(*runs, dcplan::EfficiencyCalibration());
  if (!fit.ok()) {
    std::cerr << "calibrate_efficiency: " << fit.status().message() << "\n";
    return 1;
  }
  const dcplan::EfficiencyCalibration& c = fit->calibration;
  std::cout << absl::StrFormat(
      "# Fitted to %d runs: RMS error %.2f MFU points, worst %.2f.\n"
      "calibration {\n"
      "  kernel_efficiency: %.3f\n"
      "  scale_up_bandwidth_efficiency: %.3f\n"
      "  scale_out_bandwidth_efficiency: %.3f\n"
      "  memory_bound_factor: %.3f\n"
      "}\n\n",
      runs->size(), fit->rms_points, fit->max_abs_points, c.kernel_efficiency(),
      c.scale_up_bandwidth_efficiency(), c.scale_out_bandwidth_efficiency(),
      c.memory_bound_factor());
  std::cout << absl::StrFormat("%-17s %5s %6s %9s %6s %6s %6s | %5s %5s %5s %5s %5s %5s\n",
                               "source", "gpus", "params", "tp/pp/dp", "pub", "model", "error",
                               "comp", "mem", "tp", "p2p", "bubbl", "dp");
  for (size_t i = 0; i < runs->size(); ++i) {
    const dcplan::MeasuredRun& r = (*runs)[i];
    auto e = dcplan::PredictRun(r, c);
    if (!e.ok()) continue;
    const double step = dcplan::units::InSeconds(e->step);
    auto share = [&](dcplan::units::Time t) { return 100.0 * dcplan::units::InSeconds(t) / step; };
    const dcplan::Parallelism& p = r.workload.parallelism();
    std::cout << absl::StrFormat(
        "%-17s %5d %5.0fB %9s %5.1f%% %5.1f%% %+6.1f | %4.0f%% %4.0f%% %4.0f%% %4.0f%% %4.0f%% "
        "%4.0f%%\n",
        r.source, r.gpus, dcplan::ParamsFromShape(r.workload) / 1e9,
        absl::StrCat(p.tp(), "/", p.pp(), "/", p.dp()), 100 * r.published_mfu,
        100 * dcplan::units::InFraction(e->mfu), fit->error_points[i], share(e->compute),
        share(e->memory_bound), share(e->tensor_parallel), share(e->pipeline_p2p),
        share(e->pipeline_bubble), share(e->data_parallel_exposed));
  }
  return 0;
}
