// File: planner/mfu_error.h
//
// The efficiency model's own uncertainty: how far a predicted MFU lies from what a training run
// reaches, per GPU family, from cross-validation on the published runs the project calibrates on
// (tests/data/measured_training_runs.csv). Each source (paper or table) is predicted by the fit to
// the other sources only (LeaveOneSourceOut, planner/workload/calibration.h); the spread is the RMS
// of ln(predicted / published) over those held-out predictions, so a source's shared framework,
// cluster and way of counting are not in the fit that predicts it.
//
// The error is modelled as lognormal around the point estimate: true MFU = predicted x exp(sigma
// Z), Z standard normal. P10 and P90 are predicted x exp(-+1.2816 sigma) (P90 at most 1).
//
// Which spread a plan gets (MfuErrorFor) follows the MFU model it uses:
//   - the log-linear curve (the seed's toy model, or any `efficiency { log_linear {...} }`): its
//   own
//     spread, the curve's error on every published run (it is fitted to none of them, so every run
//     is out of sample); wide;
//   - any other model (the workload's step model, a measured table, a constant): the spread of the
//     GPU's family, found from the accelerator's name: A100 and H100 from their own runs; every
//     other GPU (H200, B200, GB200, MI300X, a custom one) has no published run of its own, so its
//     estimate is the H100 fit carried over and the spread is widened by the transfer error (the
//     H100 fit predicting the A100 runs and the A100 fit the H100 runs), labelled carried_over.
//
// The numbers are in planner/mfu_error_data.h, written by a program from the calibration data;
// after changing the data or the step model regenerate them with
//   ./bazelw run //examples:mfu_error_constants
// (tests/mfu_error_test.cc recomputes them and fails when the checked-in values drift).
//
// Example:
//   MfuErrorSpread e = MfuErrorFor(request);
//   MfuInterval i = MfuIntervalOf(0.405, e);   // {p10 0.36, p90 0.45, basis "...", ...}
#pragma once

#include <string>

#include "proto/request.pb.h"
#include "proto/uncertainty.pb.h"

namespace dcplan {

// The standard normal's 90th percentile: P10 and P90 lie this many sigmas from the median.
inline constexpr double kZ90 = 1.2815515655446004;

// One MFU model's error spread.
struct MfuErrorSpread {
  // The sd of ln(reached MFU / predicted MFU); 0 = no spread known.
  double sigma = 0;
  // Where it comes from, e.g. "leave-one-source-out on 8 published H100 runs from 3 sources".
  std::string basis;
  // The GPU has no published runs of its own: the spread of the H100 fit, widened.
  bool carried_over = false;
};

// The GPU families with published runs (kMfuErrorFamily* in mfu_error_data.h) or none.
enum class MfuFamily { kA100, kH100, kCarried };
// The family of an accelerator, by name ("A100 SXM 80GB" -> kA100, "H100 SXM5 80GB" -> kH100,
// anything else kCarried).
MfuFamily FamilyOfAccelerator(const std::string& accelerator_name);

// The spread for the MFU model `request` uses (see above).
MfuErrorSpread MfuErrorFor(const PlanRequest& request);

// The interval around a predicted MFU; empty (all zero) when mfu <= 0.
MfuInterval MfuIntervalOf(double mfu, const MfuErrorSpread& spread);

}  // namespace dcplan
