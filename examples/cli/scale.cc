// dcplan scale: peak, MFU, realized compute and power for given cluster sizes (the seed's table).
// Table, CSV and JSON stream: rows are evaluated and formatted a block at a time on every core and
// written as they come, so 100,000 sizes (with the slow workload model too) need memory for one
// block, not for the whole report, and show progress on a terminal.
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "examples/cli/charts.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/report.h"
#include "planner/planner.h"
#include "proto/io.h"

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

absl::Status StreamScale(const PlanRequest& request, const std::vector<int64_t>& sizes,
                         OutputFormat format) {
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
      break;
    case OutputFormat::kCsv:
      head = ScaleCsvHeader();
      break;
    default:
      DCPLAN_RETURN_IF_ERROR(JsonFrame(frame, &head, &tail));
  }
  ThreadPool pool(sizes.size() < 64 ? 1 : 0);
  DCPLAN_RETURN_IF_ERROR(pool.status());
  Progress progress("sizes", static_cast<int64_t>(sizes.size()));
  bool wrote_head = false;
  std::vector<std::string> pieces;
  DCPLAN_RETURN_IF_ERROR(ScaleEach(
      request, sizes, &pool, [&](int64_t first, absl::Span<const ScaleRow> rows) -> absl::Status {
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
            } else if (format == OutputFormat::kCsv) {
              AppendScaleCsvRow(rows[i], &piece);
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
      auto report = Scale(*request, *sizes);
      written = report.ok() ? WriteMessage(*report, *format) : report.status();
    }
  }
  return written;
}

}  // namespace dcplan::cli
