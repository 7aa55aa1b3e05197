// dcplan fit: the largest cluster (whole servers) under the power, GPU, building and budget caps.
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/report.h"
#include "examples/cli/training_report.h"
#include "examples/cli/uncertainty.h"
#include "planner/planner.h"
#include "planner/sweep/headline.h"

namespace dcplan::cli {

absl::Status RunFit() {
  auto format = FormatFlag({"table", "json", "textproto", "text", "binary", "csv"});
  if (!format.ok()) return format.status();
  auto request = RequestFromFlags();
  if (!request.ok()) return request.status();
  if (HasUncertainty(*request)) return WriteUncertainFit(*request, *format);  // uncertainty.h
  std::optional<SetupNotice> notice(std::in_place,
                                    "dcplan fit: solving");  // a workload can take seconds
  auto plan = SolvePlan(*request);
  notice.reset();
  if (!plan.ok()) return plan.status();
  if (*format == OutputFormat::kCsv) {  // the headline row (planner/sweep/headline.h)
    std::string csv = absl::StrCat(HeadlineCsvHeader(), "\n");
    AppendHeadlineCsvRow(*plan, &csv);
    csv += "\n";
    return WriteOutput(csv);
  }
  absl::Status written =
      *format == OutputFormat::kTable
          ? WriteOutput(plan->has_training()
                            ? absl::StrCat(PlanTable(*plan), TrainingTable(plan->training()))
                            : PlanTable(*plan))
          : WriteMessage(*plan, *format);
  return written;
}

}  // namespace dcplan::cli
