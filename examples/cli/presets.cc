// dcplan presets: lists the compiled-in presets with their headline figures, or prints one
// (--preset=NAME --format=textproto) with its source comments.
#include "planner/presets/presets.h"

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/workload_flags.h"
#include "google/protobuf/text_format.h"
#include "planner/model.h"
#include "planner/presets/models.h"
#include "units/format.h"

ABSL_FLAG(bool, models, false,
          "presets: list the model presets (training jobs for --model) instead of the hardware");

namespace dcplan::cli {

namespace {

// `presets --models`: the compiled-in training jobs, or one (--model=NAME --format=textproto).
absl::Status RunModels(OutputFormat format) {
  if (format == OutputFormat::kText) {
    const std::string name = absl::GetFlag(FLAGS_model);
    if (name.empty()) return absl::InvalidArgumentError("--format=textproto needs --model=NAME");
    auto text = ModelText(name);
    if (!text.ok()) return text.status();
    return WriteOutput(*text);
  }
  std::string out =
      absl::StrFormat("%-15s %8s %7s %7s %9s %7s %12s %8s  %s\n", "model", "params", "layers",
                      "hidden", "heads/kv", "seq", "batch", "tokens", "runs");
  for (const std::string& name : ModelNames()) {
    auto text = ModelText(name);
    Workload w;
    if (!text.ok() || !google::protobuf::TextFormat::ParseFromString(std::string(*text), &w)) {
      return absl::InternalError(absl::StrCat("model preset ", name, " does not parse"));
    }
    const std::string batch =
        w.global_batch_tokens() > 0
            ? absl::StrCat(units::FormatCount(w.global_batch_tokens()), " tok")
            : absl::StrCat(units::FormatCount(w.global_batch_sequences()), " seq");
    absl::StrAppendFormat(&out, "%-15s %8s %7d %7d %9s %7d %12s %8s  %s\n", name,
                          absl::StrFormat("%.4gB", w.params() / 1e9), w.layers(), w.hidden(),
                          absl::StrCat(w.heads(), "/", w.kv_heads() ? w.kv_heads() : w.heads()),
                          w.seq_len(), batch, absl::StrFormat("%.3gT", w.train_tokens() / 1e12),
                          w.has_moe() ? "not yet: mixtures of experts are not modelled"
                                      : "dcplan train --model=" + name);
  }
  return WriteOutput(out);
}

}  // namespace

absl::Status RunPresets() {
  auto format = FormatFlag({"table", "textproto", "text"});
  if (!format.ok()) return format.status();
  if (absl::GetFlag(FLAGS_models)) return RunModels(*format);
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
