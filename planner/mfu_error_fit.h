// File: planner/mfu_error_fit.h
//
// Computes the MFU error spreads of planner/mfu_error.h from the published runs, and writes them as
// planner/mfu_error_data.h. examples/mfu_error_constants.cc runs it on tests/data (the one command
// that regenerates the header); tests/mfu_error_test.cc runs it and compares with the header.
//
// Every spread is the RMS of ln(predicted MFU / published MFU) over the runs it is scored on (the
// runs IsCheckOnlyRun leaves out of the fit are left out here too):
//   - A100, H100: LeaveOneSourceOut of each family's runs (FitBounds per BoundsForGpu);
//   - transfer: the fit to all A100 runs predicting the H100 runs, and the H100 fit the A100 runs;
//   - log-linear: the seed's curve (planner/defaults.h) at each run's GPU count, every run.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::vector<MeasuredRun> runs, ReadMeasuredRuns(csv, setup_csv));
//   DCPLAN_ASSIGN_OR_RETURN(MfuErrorData d, ComputeMfuErrorData(runs));
//   std::string header = MfuErrorDataHeader(d);
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "planner/workload/calibration.h"

namespace dcplan {

struct MfuErrorData {
  double sigma_a100 = 0, rms_points_a100 = 0;
  int runs_a100 = 0, sources_a100 = 0;
  double sigma_h100 = 0, rms_points_h100 = 0;
  int runs_h100 = 0, sources_h100 = 0;
  double sigma_transfer = 0;
  int runs_transfer = 0;
  double sigma_log_linear = 0;
  int runs_log_linear = 0;
};

// The spreads from `runs` (both CSV files' runs, check-only rows included: they are skipped).
absl::StatusOr<MfuErrorData> ComputeMfuErrorData(const std::vector<MeasuredRun>& runs);

// planner/mfu_error_data.h's text for `data`.
std::string MfuErrorDataHeader(const MfuErrorData& data);

}  // namespace dcplan
