// dcplan scale: peak, MFU, realized compute and power for given cluster sizes (the seed's table).
#include "absl/flags/flag.h"
#include "examples/cli/charts.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/report.h"
#include "planner/planner.h"

namespace dcplan::cli {

int RunScale() {
  auto format = FormatFlag({"table", "json", "textproto", "text", "binary", "csv", "svg"});
  if (!format.ok()) return Fail(format.status());
  auto sizes = ParseGpuList(absl::GetFlag(FLAGS_gpus));
  if (!sizes.ok()) return Fail(sizes.status());
  auto request = RequestFromFlags();
  if (!request.ok()) return Fail(request.status());
  if (*format == OutputFormat::kSvg) {
    auto svg = ScaleChartSvg(*request, *sizes);
    if (!svg.ok()) return Fail(svg.status());
    absl::Status written = WriteOutput(*svg);
    return written.ok() ? 0 : Fail(written);
  }
  auto report = Scale(*request, *sizes);
  if (!report.ok()) return Fail(report.status());
  absl::Status written;
  switch (*format) {
    case OutputFormat::kTable:
      written = WriteOutput(ScaleTable(*report));
      break;
    case OutputFormat::kCsv:
      written = WriteOutput(ScaleCsv(*report));
      break;
    default:
      written = WriteMessage(*report, *format);
  }
  return written.ok() ? 0 : Fail(written);
}

}  // namespace dcplan::cli
