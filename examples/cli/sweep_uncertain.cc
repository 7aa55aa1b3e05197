// File: examples/cli/sweep_uncertain.cc
//
// `dcplan sweep --uncertain`: every grid point's Monte Carlo (planner/sweep/sweep_monte_carlo.h),
// written as the plain sweep's CSV or JSON lines (the axes, the headline columns of the plan at the
// medians, the error) with the percentile columns after them (CSV) or the point's `distribution`
// (JSON lines). Apart from sweep.cc, whose writer is tuned for millions of plain points a second.
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_io.h"
#include "base/json.h"
#include "base/numbers.h"
#include "base/status_macros.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/uncertainty.h"
#include "google/protobuf/util/json_util.h"
#include "planner/sweep/headline.h"
#include "planner/sweep/sweep.h"
#include "planner/sweep/sweep_monte_carlo.h"
#include "planner/uncertain.h"

ABSL_DECLARE_FLAG(int, threads);

namespace dcplan::cli {

absl::Status WriteUncertainSweep(const Sweep& sweep, const PlanRequest& base, OutputFormat format) {
  if (format != OutputFormat::kCsv && format != OutputFormat::kJsonLines) {
    return absl::InvalidArgumentError(
        "sweep --uncertain writes --format=csv or jsonl (the percentiles of every point), not a "
        "chart");
  }
  const MonteCarlo& mc = base.monte_carlo();
  const uint64_t samples = mc.has_samples() ? mc.samples() : kDefaultMonteCarloSamples;
  if (!CheckSweepMonteCarloWork(sweep.size(), static_cast<int64_t>(samples)).ok()) {
    return absl::OutOfRangeError(absl::StrFormat(
        "--vary spans %d points and --samples is %d: %.4g solves, more than 10^8 (every point "
        "runs every sample); give fewer points or fewer samples",
        sweep.size(), samples, static_cast<double>(sweep.size()) * samples));
  }
  const bool json = format == OutputFormat::kJsonLines;
  const std::string path = absl::GetFlag(FLAGS_out);
  DCPLAN_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> out,
                          FileWriter::Open(path.empty() ? "-" : path, InputFiles()));
  if (!json) {
    std::string header;
    for (const SweepAxis& a : sweep.axes()) absl::StrAppend(&header, a.path, ",");
    absl::StrAppend(&header, HeadlineCsvHeader(), ",error,",
                    absl::StrJoin(SweepPercentileColumns(), ","), "\n");
    DCPLAN_RETURN_IF_ERROR(out->Append(header));
  }
  MonteCarloOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  Progress progress("points", sweep.size());
  int64_t failed = 0;
  absl::Status first_failure;
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  print.always_print_primitive_fields = true;
  std::string row;
  DCPLAN_RETURN_IF_ERROR(RunUncertainSweep(
      sweep, options, [&](int64_t p, const UncertainSweepPoint& point) -> absl::Status {
        const bool ok = point.status.ok();
        if (!ok && failed++ == 0) first_failure = point.status;
        row.clear();
        if (json) row.push_back('{');
        for (size_t a = 0; a < sweep.axes().size(); ++a) {
          const SweepAxis& axis = sweep.axes()[a];
          const int64_t i = sweep.IndexAlong(p, static_cast<int>(a));
          if (json) {
            if (a > 0) row.push_back(',');
            AppendJsonString(axis.path, &row);
            row.push_back(':');
          }
          if (axis.is_preset()) {
            if (json) {
              AppendJsonString(axis.presets[i], &row);
            } else {
              row.append(axis.presets[i]);
            }
          } else {
            AppendShortestDouble(axis.values[i], &row);
          }
          if (!json) row.push_back(',');
        }
        bool first_column = true;
        for (const HeadlineColumn& c : HeadlineColumns()) {
          if (json) {
            absl::StrAppend(&row, ",\"", c.name, "\":");
          } else if (!first_column) {
            row.push_back(',');
          }
          first_column = false;
          if (c.kind == HeadlineColumn::Kind::kBinding) {
            const std::string name =
                ok ? BindingConstraint_Name(point.plan.binding_constraint()) : "";
            absl::StrAppend(&row, json ? "\"" : "", name, json ? "\"" : "");
          } else {
            AppendHeadlineValue(c, ok ? c.from_plan(point.plan) : 0.0, &row);
          }
        }
        if (json) {
          if (!ok) {
            row.append(",\"error\":");
            AppendJsonString(point.status.message(), &row);
          } else {
            std::string d;
            if (!google::protobuf::util::MessageToJsonString(point.distribution, &d, print).ok()) {
              return absl::InternalError("a distribution did not print as JSON");
            }
            absl::StrAppend(&row, ",\"distribution\":", d);
          }
          row.append("}\n");
        } else {
          row.push_back(',');
          if (!ok) AppendJsonString(point.status.message(), &row);  // quoted, as CSV takes it
          AppendSweepPercentiles(point.distribution, ok, &row);
          row.push_back('\n');
        }
        DCPLAN_RETURN_IF_ERROR(out->Append(row));
        progress.Update(p + 1);
        return absl::OkStatus();
      }));
  progress.Finish();
  if (failed == sweep.size()) {
    return absl::Status(first_failure.code(),
                        absl::StrCat("every point failed; the first: ", first_failure.message()));
  }
  return out->Commit();
}

}  // namespace dcplan::cli
