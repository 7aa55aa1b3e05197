// File: examples/cli/charts.h
//
// dcplan's two charts, drawn with svg.h: the seed chapter's "scale a cluster" picture for
// `dcplan scale --format=svg`, and the curves of a sweep for `dcplan sweep --format=svg`. Both put
// what was varied on the x axis (the scale chart: cluster size, GPUs, on a log axis), and mark
// where a cap binds.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::string svg, ScaleChartSvg(request, {1, 8, 512, 8192, 32768}));
//   DCPLAN_RETURN_IF_ERROR(WriteOutput(svg));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "planner/sweep/sweep.h"
#include "proto/request.pb.h"

namespace dcplan::cli {

// Compute, MFU and power from the smallest to the largest of `gpu_counts` (curves through many
// sizes in between, dots at the sizes given). When the request sets a cap, the largest cluster
// under it is marked with the cap that binds, and a power cap is drawn on the power panel; the x
// axis then reaches that cluster too.
absl::StatusOr<std::string> ScaleChartSvg(const PlanRequest& request,
                                          absl::Span<const int64_t> gpu_counts);

// The figures of a sweep against what it varied: the x axis is the last numeric axis, with the
// field's name and unit ("Facility power cap (MW, log scale)", "PUE", "Budget on capex ($B)"; log
// when the values span 30x or more), and every other axis (a preset axis, a second numeric one)
// makes one series per value, at most 10, named in the legend ("h100-dgx", "pue 1.2"). Panels:
// GPUs, realized compute and, when anything is priced, capex. The title says what was varied:
// "GPUs and realized compute vs facility power cap, three presets" (`base`'s name first when no
// preset axis). Dot shapes say which cap bound. Rows that failed or have no GPU are left out; the
// subtitle says how many failed. A sweep over the preset alone has nothing to plot against: an
// error that says so.
absl::StatusOr<std::string> SweepChartSvg(const Sweep& sweep, const PlanRequest& base,
                                          const std::vector<SweepRow>& rows);

}  // namespace dcplan::cli
