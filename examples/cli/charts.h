// File: examples/cli/charts.h
//
// dcplan's two charts, drawn with svg.h: the seed chapter's "scale a cluster" picture for
// `dcplan scale --format=svg`, and the curves of a sweep for `dcplan sweep --format=svg`. Both put
// cluster size (GPUs) on a log x axis over three panels: peak and realized compute, MFU, and power
// (IT and at the meter), and mark where a cap binds.
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

// One curve per combination of the sweep's axes but the last (at most 10 curves), each through its
// points' solved cluster sizes along the last axis. Dot shapes say which cap bound; a change of
// binding cap along the first curve is marked. Rows that failed or have no GPU are left out; the
// subtitle says how many failed.
absl::StatusOr<std::string> SweepChartSvg(const Sweep& sweep, const std::string& title,
                                          const std::vector<SweepRow>& rows);

}  // namespace dcplan::cli
