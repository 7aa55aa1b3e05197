// File: planner/presets/models.cc
//
// Looks model presets up in the table the genrule compiles in (presets_data.h) and parses their
// text with protobuf's TextFormat parser.
#include "planner/presets/models.h"

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
using presets_internal::kEmbeddedModelCount;
using presets_internal::kEmbeddedModels;

// The compiled-in model called `name`, or nullptr.
const EmbeddedPreset* FindModel(absl::string_view name) {
  for (int i = 0; i < kEmbeddedModelCount; ++i) {
    if (name == kEmbeddedModels[i].name) return &kEmbeddedModels[i];
  }
  return nullptr;
}

absl::Status UnknownModelError(absl::string_view name) {
  return absl::NotFoundError(absl::StrCat("unknown model \"", Clip(absl::CEscape(name)),
                                          "\"; known models: ", absl::StrJoin(ModelNames(), ", ")));
}

// Keeps the text-format parser's errors as "line:column: message", both one-based.
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

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  names.reserve(kEmbeddedModelCount);
  for (int i = 0; i < kEmbeddedModelCount; ++i) names.emplace_back(kEmbeddedModels[i].name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<Workload> LoadModel(absl::string_view name) {
  const EmbeddedPreset* model = FindModel(name);
  if (model == nullptr) return UnknownModelError(name);

  Workload workload;
  ParseErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(model->text), &workload)) {
    // The files are parsed by models_test, so this is a build of dcplan with a broken model.
    return absl::InternalError(
        absl::StrCat("compiled-in model \"", model->name,
                     "\" does not parse as a Workload: ", absl::StrJoin(errors.errors(), "; ")));
  }
  return workload;
}

absl::StatusOr<absl::string_view> ModelText(absl::string_view name) {
  const EmbeddedPreset* model = FindModel(name);
  if (model == nullptr) return UnknownModelError(name);
  return absl::string_view(model->text);
}

}  // namespace dcplan
