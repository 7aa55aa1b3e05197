// File: examples/cli/uncertainty.h
//
// The CLI's uncertainty layer: --uncertain=PATH=DIST (repeatable; the paths, aliases and value
// grammar of --set), --samples, --seed, --samples_out, --sensitivity and --output, turned into the
// request's `uncertain` and `monte_carlo` fields; and the output of a plan with distributions: the
// percentile table beside the plan's own, the tornado table and chart, every sample as CSV.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "examples/cli/flags.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {
class Sweep;
}  // namespace dcplan

namespace dcplan::cli {

// Adds the uncertainty flags to `request` (nothing when none is given). Called by
// RequestFromFlags, so every command that reads a request takes them.
absl::Status ApplyUncertaintyFlags(PlanRequest* request);

// Whether the request asks for a Monte Carlo run.
inline bool HasUncertainty(const PlanRequest& request) { return request.uncertain_size() > 0; }

// fit with uncertain inputs: the plan at the medians with its distributions (and sensitivity with
// --sensitivity), written in `format`; --samples_out writes every sample as CSV.
absl::Status WriteUncertainFit(const PlanRequest& request, OutputFormat format);

// train with uncertain inputs: the training plan at the medians with its distribution of MFU,
// realized compute, time to train and goodput, written in `format`.
absl::Status WriteUncertainTraining(const PlanRequest& request, int64_t gpus, OutputFormat format);

// sweep with uncertain inputs (`base` is the sweep's request): every point's plan at the medians
// and the percentiles of its headline figures, as CSV or JSON lines
// (examples/cli/sweep_uncertain.cc).
absl::Status WriteUncertainSweep(const Sweep& sweep, const PlanRequest& base, OutputFormat format);

// "P10 / P50 / P90" of each headline figure, with the share of samples each cap binds.
std::string DistributionTable(const Plan& plan);
std::string DistributionTable(const Distributions& d);
// The tornado as a table (one row per input, largest swing first) and as an SVG chart.
std::string TornadoTable(const Plan& plan);
std::string TornadoSvg(const Plan& plan);

}  // namespace dcplan::cli
