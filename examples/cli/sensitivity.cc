// dcplan sensitivity: which uncertain input moves the answer most (a tornado table, SVG or JSON).
#include "absl/status/status.h"
#include "base/status_macros.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/uncertainty.h"

namespace dcplan::cli {

absl::Status RunSensitivity() {
  DCPLAN_ASSIGN_OR_RETURN(OutputFormat format,
                          FormatFlag({"table", "json", "textproto", "text", "binary", "svg"}));
  DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, RequestFromFlags());
  if (!HasUncertainty(request)) {
    return absl::InvalidArgumentError(
        "sensitivity needs at least one --uncertain input (or `uncertain` entries in --request)");
  }
  request.mutable_monte_carlo()->set_sensitivity(true);
  return WriteUncertainFit(request, format);
}

}  // namespace dcplan::cli
