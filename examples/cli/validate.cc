// dcplan validate: checks a PlanRequest file (or a Plan file with --type=plan) and says what is
// wrong.
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "planner/model.h"
#include "proto/plan.pb.h"

namespace dcplan::cli {

absl::Status RunValidate() {
  const std::string file = absl::GetFlag(FLAGS_request);
  if (file.empty()) return absl::InvalidArgumentError("validate needs --request=FILE");
  const std::string type = absl::GetFlag(FLAGS_type);
  if (type == "plan") {
    Plan plan;
    absl::Status read = ReadMessageFile(file, std::nullopt, &plan);
    if (!read.ok()) return read;
    if (plan.schema_version() > SCHEMA_VERSION_1) {
      return absl::InvalidArgumentError(
          absl::StrCat("schema_version must be <= 1 (the newest this dcplan knows), got ",
                       plan.schema_version()));
    }
    std::cout << Printable(file) << ": a readable Plan (" << plan.counts().gpu_count()
              << " GPUs)\n";
    return absl::OkStatus();
  }
  if (type != "request") {
    return absl::InvalidArgumentError(
        absl::StrCat("--type must be request or plan; got \"", type, "\""));
  }
  PlanRequest request;
  absl::Status read = ReadMessageFile(file, std::nullopt, &request);
  if (!read.ok()) return read;
  // BuildModel validates every field, then checks that the parts fit together.
  auto model = BuildModel(request);
  if (!model.ok()) return model.status();
  std::cout << Printable(file) << ": a valid PlanRequest"
            << (request.name().empty() ? "" : absl::StrCat(" (", Printable(request.name()), ")"))
            << "\n";
  return absl::OkStatus();
}

}  // namespace dcplan::cli
