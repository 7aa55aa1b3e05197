// File: planner/presets/presets.h
//
// The presets compiled into dcplan: ready-made PlanRequests for the seed chapter's toy model and
// for common AI clusters (DGX A100/H100/H200/B200, GB200 NVL72, MI300X). Each preset is a
// text-format PlanRequest in planner/presets/<name>.textproto whose `sources` cite every figure it
// sets (a public source, or an estimate or judgement with its reasoning; planner/presets/SOURCES.md
// has a row for each, which the file's comments name as SOURCES.md#<row>); the files are
// embedded at build time, so a user's machine needs none of them. `dcplan presets` lists them and
// `--show` prints their text.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, LoadPreset("h100-dgx"));
//   request.mutable_constraints()->set_power_cap_watts(50e6);
//   for (const std::string& name : PresetNames()) std::cout << name << "\n";
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/request.pb.h"

namespace dcplan {

// Names of the compiled-in presets, sorted.
std::vector<std::string> PresetNames();

// The preset parsed into a PlanRequest; NotFound for an unknown name, message listing the known
// ones: `unknown preset "h900"; known presets: a100-dgx, b200-dgx, ...`.
absl::StatusOr<PlanRequest> LoadPreset(absl::string_view name);

// The preset's text exactly as compiled in (with its comments), for `dcplan presets --show`.
// NotFound for an unknown name, with the same message as LoadPreset.
absl::StatusOr<absl::string_view> PresetText(absl::string_view name);

}  // namespace dcplan
