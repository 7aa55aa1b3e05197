// File: planner/presets/models.h
//
// The model presets compiled into dcplan: ready-made Workloads (proto/workload.proto) for published
// training runs, so a planner can say `llama3-405b` instead of typing its shape. Each is a
// text-format Workload in planner/presets/models/<name>.textproto whose `sources` cite every
// figure (papers, model cards; planner/presets/SOURCES.md). Dense models (llama3-8b, llama3-70b,
// llama3-405b, gpt3-175b, nemotron4-340b) validate and plan; the mixtures of experts
// (mixtral-8x22b, deepseek-v3) load but the workload validator refuses them until MoE is modelled.
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(Workload workload, LoadModel("llama3-405b"));
//   *request.mutable_workload() = workload;
//   for (const std::string& name : ModelNames()) std::cout << name << "\n";
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/workload.pb.h"

namespace dcplan {

// Names of the compiled-in model presets, sorted.
std::vector<std::string> ModelNames();

// The model preset parsed into a Workload; NotFound for an unknown name, message listing the known
// ones: `unknown model "llama9"; known models: deepseek-v3, gpt3-175b, ...`.
absl::StatusOr<Workload> LoadModel(absl::string_view name);

// The model preset's text exactly as compiled in (with its comments). NotFound for an unknown
// name, with the same message as LoadModel.
absl::StatusOr<absl::string_view> ModelText(absl::string_view name);

}  // namespace dcplan
