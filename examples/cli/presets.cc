// dcplan presets: lists the compiled-in presets with their headline figures, or prints one
// (--preset=NAME --format=textproto) with its source comments.
#include "planner/presets/presets.h"

#include <iostream>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "planner/model.h"
#include "units/format.h"

namespace dcplan::cli {

absl::Status RunPresets() {
  auto format = FormatFlag({"table", "textproto", "text"});
  if (!format.ok()) return format.status();
  if (*format == OutputFormat::kText) {
    auto text = PresetText(absl::GetFlag(FLAGS_preset));
    if (!text.ok()) return text.status();
    absl::Status w = WriteOutput(*text);
    return w;
  }
  std::string out = absl::StrFormat("%-12s %-36s %8s %15s %10s %6s\n", "preset", "accelerator",
                                    "GPU/srv", "peak/GPU", "server", "PUE");
  for (const std::string& name : PresetNames()) {
    auto request = LoadPreset(name);
    if (!request.ok()) return request.status();
    auto model = BuildModel(*request);
    if (!model.ok()) return model.status();
    absl::StrAppendFormat(
        &out, "%-12s %-36s %8d %15s %10s %6.2f\n", name, request->hardware().accelerator().name(),
        model->server.gpus, units::FormatComputeRate(model->accelerator.peak, 2),
        units::FormatPower(model->ServerPower(), 1), units::InFraction(model->site.pue));
  }
  absl::Status w = WriteOutput(out);
  return w;
}

}  // namespace dcplan::cli
