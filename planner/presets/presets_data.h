// File: planner/presets/presets_data.h
//
// Internal to planner/presets: the tables of preset and model preset files compiled into the
// binary. The definitions are generated at build time by embed_presets.sh (genrule
// :presets_data_cc) from the .textproto files; everything else reads them through
// planner/presets/presets.h.
//
// Example:
//   for (int i = 0; i < kEmbeddedPresetCount; ++i) Print(kEmbeddedPresets[i].name);
#pragma once

namespace dcplan::presets_internal {

// One compiled-in preset file.
struct EmbeddedPreset {
  // The file's stem, e.g. "h100-dgx".
  const char* name;
  // The file's text, verbatim (NUL-terminated; the files contain no NUL).
  const char* text;
};

// The preset files, in the order the genrule received them (not necessarily sorted).
extern const EmbeddedPreset kEmbeddedPresets[];
// The number of entries in kEmbeddedPresets.
extern const int kEmbeddedPresetCount;

// The model preset files (planner/presets/models/*.textproto, text-format Workloads), likewise
// (genrule :models_data_cc).
extern const EmbeddedPreset kEmbeddedModels[];
extern const int kEmbeddedModelCount;

}  // namespace dcplan::presets_internal
