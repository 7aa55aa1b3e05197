// File: planner/presets/presets.cc
//
// Looks presets up in the table the genrule compiles in (presets_data.h) and parses their text with
// protobuf's TextFormat parser.
#include "planner/presets/presets.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/text.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "planner/presets/presets_data.h"

namespace dcplan {
namespace {

using presets_internal::EmbeddedPreset;
using presets_internal::kEmbeddedPresetCount;
using presets_internal::kEmbeddedPresets;

// The compiled-in preset called `name`, or nullptr.
const EmbeddedPreset* FindPreset(absl::string_view name) {
  for (int i = 0; i < kEmbeddedPresetCount; ++i) {
    if (name == kEmbeddedPresets[i].name) return &kEmbeddedPresets[i];
  }
  return nullptr;
}

absl::Status UnknownPresetError(absl::string_view name) {
  return absl::NotFoundError(
      absl::StrCat("unknown preset \"", Clip(absl::CEscape(name)),
                   "\"; known presets: ", absl::StrJoin(PresetNames(), ", ")));
}

// Keeps the text-format parser's errors (instead of its default of printing them to stderr) as
// "line:column: message", both one-based.
class ParseErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_.push_back(absl::StrCat(line + 1, ":", column + 1, ": ", message));
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  names.reserve(kEmbeddedPresetCount);
  for (int i = 0; i < kEmbeddedPresetCount; ++i) names.emplace_back(kEmbeddedPresets[i].name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<PlanRequest> LoadPreset(absl::string_view name) {
  const EmbeddedPreset* preset = FindPreset(name);
  if (preset == nullptr) return UnknownPresetError(name);

  PlanRequest request;
  ParseErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(preset->text), &request)) {
    // The files are parsed by presets_test, so this is a build of dcplan with a broken preset.
    return absl::InternalError(
        absl::StrCat("compiled-in preset \"", preset->name,
                     "\" does not parse as a PlanRequest: ", absl::StrJoin(errors.errors(), "; ")));
  }
  return request;
}

absl::StatusOr<absl::string_view> PresetText(absl::string_view name) {
  const EmbeddedPreset* preset = FindPreset(name);
  if (preset == nullptr) return UnknownPresetError(name);
  return absl::string_view(preset->text);
}

}  // namespace dcplan
