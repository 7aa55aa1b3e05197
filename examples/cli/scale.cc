// dcplan scale: peak, MFU, realized compute and power for given cluster sizes (the seed's table).
// Table, CSV and JSON stream: rows are evaluated and formatted a block at a time on every core and
// written as they come, so 100,000 sizes (with the slow workload model too) need memory for one
// block, not for the whole report, and show progress on a terminal.
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "examples/cli/charts.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/report.h"
#include "examples/cli/uncertainty.h"
#include "planner/planner.h"
#include "planner/sweep/scale_monte_carlo.h"
#include "planner/uncertain.h"
#include "proto/io.h"
#include "units/format.h"

ABSL_DECLARE_FLAG(int, threads);

namespace dcplan::cli {
namespace {

// The JSON of `report` (its rows left empty) split around its rows: what comes before the first
// row and after the last, exactly as SerializeMessage prints a whole ScaleReport.
absl::Status JsonFrame(const ScaleReport& report, std::string* head, std::string* tail) {
  DCPLAN_ASSIGN_OR_RETURN(std::string empty, SerializeMessage(report, Encoding::kJson));
  const std::string kRows = "\"rows\": []";
  const size_t at = empty.find(kRows);
  if (at == std::string::npos) return absl::InternalError("no rows in a ScaleReport's JSON");
  *head = absl::StrCat(empty.substr(0, at), "\"rows\": [\n");
  *tail = absl::StrCat("\n ]", empty.substr(at + kRows.size()));
  return absl::OkStatus();
}

// One row as an element of the rows array: its JSON indented two more spaces, as the printer
// indents a nested message.
absl::Status AppendJsonRow(const ScaleRow& row, bool first, std::string* out) {
  DCPLAN_ASSIGN_OR_RETURN(std::string json, SerializeMessage(row, Encoding::kJson));
  if (!json.empty() && json.back() == '\n') json.pop_back();
  if (!first) out->append(",\n");
  absl::StrAppend(out, "  ", absl::StrReplaceAll(json, {{"\n", "\n  "}}));
  return absl::OkStatus();
}

// With uncertain inputs: the line under a table row, P10 / P50 / P90 of realized compute, MFU and
// facility power over the samples at that size.
void AppendScaleTableSpread(const ScaleRow& row, std::string* s) {
  const Distributions& d = row.distribution();
  absl::StrAppendFormat(
      s,
      "%12s P10/P50/P90: realized %.2f / %.2f / %.2f EF/s, MFU %.1f / %.1f / %.1f%%, meter %.1f "
      "/ %.1f / %.1f MW\n",
      "", d.realized_flops_per_second().p10() / 1e18, d.realized_flops_per_second().p50() / 1e18,
      d.realized_flops_per_second().p90() / 1e18, 100 * d.mfu().p10(), 100 * d.mfu().p50(),
      100 * d.mfu().p90(), d.facility_power_watts().p10() / 1e6,
      d.facility_power_watts().p50() / 1e6, d.facility_power_watts().p90() / 1e6);
}

// With uncertain inputs, the CSV's columns after the plain ones: P10, P50 and P90 of realized
// compute, MFU and facility power.
constexpr const char* kSpreadColumns[] = {"realized_flops_per_second", "mfu",
                                          "facility_power_watts"};

std::string ScaleCsvSpreadHeader() {
  std::string s = ScaleCsvHeader();
  s.pop_back();  // its newline
  for (const char* c : kSpreadColumns) absl::StrAppend(&s, ",", c, "_p10,", c, "_p50,", c, "_p90");
  return s + "\n";
}

void AppendScaleCsvSpread(const ScaleRow& row, std::string* s) {
  AppendScaleCsvRow(row, s);
  s->pop_back();
  const Distributions& d = row.distribution();
  for (const Percentiles* p :
       {&d.realized_flops_per_second(), &d.mfu(), &d.facility_power_watts()}) {
    absl::StrAppendFormat(s, ",%.17g,%.17g,%.17g", p->p10(), p->p50(), p->p90());
  }
  *s += "\n";
}

absl::Status StreamScale(const PlanRequest& request, const std::vector<int64_t>& sizes,
                         OutputFormat format) {
  const bool uncertain = HasUncertainty(request);
  const std::string path = absl::GetFlag(FLAGS_out);
  DCPLAN_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> out,
                          FileWriter::Open(path.empty() ? "-" : path, InputFiles()));
  ScaleReport frame;
  frame.set_schema_version(SCHEMA_VERSION_1);
  frame.set_name(request.name());
  std::string head, tail;
  switch (format) {
    case OutputFormat::kTable:
      head = ScaleTableHeader();
      if (uncertain) {
        const MonteCarlo& mc = request.monte_carlo();
        head = absl::StrFormat(
            "Uncertainty: %s samples (seed %d) per size, the caps not applied; each row is at "
            "every input's median, the line under it the spread over the samples\n%s",
            units::FormatCount(mc.has_samples() ? mc.samples() : kDefaultMonteCarloSamples),
            mc.has_seed() ? mc.seed() : kDefaultMonteCarloSeed, head);
      }
      break;
    case OutputFormat::kCsv:
      head = uncertain ? ScaleCsvSpreadHeader() : ScaleCsvHeader();
      break;
    default:
      DCPLAN_RETURN_IF_ERROR(JsonFrame(frame, &head, &tail));
  }
  // Sizes alone are not worth threads under 64; with samples every row is.
  ThreadPool pool(uncertain ? absl::GetFlag(FLAGS_threads) : sizes.size() < 64 ? 1 : 0);
  DCPLAN_RETURN_IF_ERROR(pool.status());
  Progress progress("sizes", static_cast<int64_t>(sizes.size()));
  bool wrote_head = false;
  std::vector<std::string> pieces;
  MonteCarloOptions options;
  options.pool = &pool;
  DCPLAN_RETURN_IF_ERROR(ScaleEachUncertain(
      request, sizes, options, [&](int64_t first, absl::Span<const ScaleRow> rows) -> absl::Status {
        // The header only once the request is known to be valid: a failed run writes nothing.
        if (!wrote_head) DCPLAN_RETURN_IF_ERROR(out->Append(head));
        wrote_head = true;
        constexpr int64_t kChunk = 256;
        const int64_t n = static_cast<int64_t>(rows.size());
        pieces.assign(static_cast<size_t>((n + kChunk - 1) / kChunk), std::string());
        std::vector<absl::Status> errors(pieces.size());
        pool.ParallelFor(n, kChunk, [&](int64_t b, int64_t e) {
          std::string& piece = pieces[b / kChunk];
          for (int64_t i = b; i < e && errors[b / kChunk].ok(); ++i) {
            if (format == OutputFormat::kTable) {
              AppendScaleTableRow(rows[i], &piece);
              if (uncertain) AppendScaleTableSpread(rows[i], &piece);
            } else if (format == OutputFormat::kCsv) {
              if (uncertain) {
                AppendScaleCsvSpread(rows[i], &piece);
              } else {
                AppendScaleCsvRow(rows[i], &piece);
              }
            } else {
              errors[b / kChunk] = AppendJsonRow(rows[i], first + i == 0, &piece);
            }
          }
        });
        for (size_t k = 0; k < pieces.size(); ++k) {
          DCPLAN_RETURN_IF_ERROR(errors[k]);
          DCPLAN_RETURN_IF_ERROR(out->Append(pieces[k]));
        }
        progress.Update(first + n);
        return absl::OkStatus();
      }));
  progress.Finish();
  DCPLAN_RETURN_IF_ERROR(out->Append(tail));
  return out->Commit();
}

}  // namespace

absl::Status RunScale() {
  auto format = FormatFlag({"table", "json", "textproto", "text", "binary", "csv", "svg"});
  if (!format.ok()) return format.status();
  auto sizes = ParseGpuList(absl::GetFlag(FLAGS_gpus));
  if (!sizes.ok()) return sizes.status();
  auto request = RequestFromFlags();
  if (!request.ok()) return request.status();
  if (HasUncertainty(*request)) {
    // Every size runs every sample: bound the work before starting, in the flags' words.
    const MonteCarlo& mc = request->monte_carlo();
    const uint64_t samples = mc.has_samples() ? mc.samples() : kDefaultMonteCarloSamples;
    if (!CheckScaleMonteCarloWork(static_cast<int64_t>(sizes->size()),
                                  static_cast<int64_t>(samples))
             .ok()) {
      return absl::OutOfRangeError(absl::StrFormat(
          "--gpus gives %d sizes and --samples %d: %.4g evaluations, more than 10^8 (every size "
          "runs every sample); give fewer sizes or fewer samples",
          sizes->size(), samples, static_cast<double>(sizes->size()) * samples));
    }
    if (*format == OutputFormat::kSvg) {
      return absl::InvalidArgumentError(
          "scale --format=svg does not draw --uncertain inputs; use --format=table, csv or json");
    }
  }
  absl::Status written;
  switch (*format) {
    case OutputFormat::kSvg: {
      auto svg = ScaleChartSvg(*request, *sizes);
      written = svg.ok() ? WriteOutput(*svg) : svg.status();
      break;
    }
    case OutputFormat::kTable:
    case OutputFormat::kCsv:
    case OutputFormat::kJson:
      written = StreamScale(*request, *sizes, *format);
      break;
    default: {
      MonteCarloOptions options;
      options.threads = absl::GetFlag(FLAGS_threads);
      auto report = ScaleUncertain(*request, *sizes, options);
      written = report.ok() ? WriteMessage(*report, *format) : report.status();
    }
  }
  return written;
}

}  // namespace dcplan::cli
