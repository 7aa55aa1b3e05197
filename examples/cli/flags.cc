#include "examples/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/field_checks.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "examples/cli/uncertainty.h"
#include "examples/cli/workload_flags.h"
#include "planner/defaults.h"
#include "planner/presets/presets.h"
#include "planner/request_edit.h"
#include "planner/validate.h"
#include "units/parse.h"

ABSL_FLAG(std::string, preset, "h100-dgx",
          "compiled-in preset to start from (dcplan presets lists them)");
ABSL_FLAG(std::string, request, "",
          "PlanRequest file to start from instead of a preset (.textproto, .json or .pb); flags "
          "override its fields");
ABSL_FLAG(std::string, format, "table",
          "output format: table, json, textproto (or csv, binary; jsonl and svg for sweep, svg for "
          "scale)");
ABSL_FLAG(std::string, out, "", "write the output to this file (atomically) instead of stdout");
ABSL_FLAG(std::string, power, "",
          "power cap with its unit, e.g. 50MW (constraints.power_cap_watts)");
ABSL_FLAG(std::string, power_at, "",
          "where the power cap is measured: facility (the meter), it, or substation");
ABSL_FLAG(std::string, pue, "",
          "design-day power usage effectiveness, >= 1.0: sizes the facility (site.pue)");
ABSL_FLAG(std::string, annual_pue, "",
          "annual average PUE, >= 1.0 and <= the design-day PUE: prices the energy "
          "(site.annual_pue)");
ABSL_FLAG(std::string, mfu_model, "",
          "what gives MFU: reference (the training-step model on the reference workload, "
          "llama3-405b unless --set=efficiency.reference_workload.model=NAME; the real presets' "
          "default) or log_linear (the seed chapter's curve 0.62 - 0.02 log2 GPUs)");
ABSL_FLAG(std::string, cooling, "",
          "air or liquid (direct-to-chip): sets site.cooling and its default PUEs, unless --pue "
          "or --annual_pue give them");
ABSL_FLAG(std::string, provisioning, "",
          "nameplate or measured: provision power for every device's nameplate, or for its "
          "measured draw under training load plus a margin (site.provisioning.basis)");
ABSL_FLAG(std::string, provisioning_margin, "",
          "margin over the measured draw with --provisioning=measured, e.g. 0.08 "
          "(site.provisioning.margin)");
ABSL_FLAG(std::string, max_gpus, "", "most GPUs wanted (constraints.max_gpus)");
ABSL_FLAG(std::string, max_buildings, "", "buildings available (site.max_buildings)");
ABSL_FLAG(std::string, budget, "",
          "budget cap, e.g. '$2.5B', '750M USD' or 2.5e9 (constraints.budget_usd)");
ABSL_FLAG(std::string, budget_on, "", "what the budget limits: capex or tco");
ABSL_FLAG(std::string, horizon_years, "", "TCO horizon in years (costs.horizon_years)");
ABSL_FLAG(std::string, electricity, "",
          "electricity price, e.g. '0.08 USD/kWh' (costs.electricity_usd_per_kwh)");
ABSL_FLAG(std::string, objective, "", "what to maximize: gpus or compute (realized FLOP/s)");
ABSL_FLAG(std::string, gpus, "1,8,512,8192,32768", "cluster sizes for scale, comma-separated");
ABSL_FLAG(std::string, presets, "", "presets to compare, comma-separated");
ABSL_FLAG(std::string, requests, "", "PlanRequest files to compare, comma-separated");
ABSL_FLAG(std::string, in, "", "input file for convert");
ABSL_FLAG(std::string, in_format, "",
          "input encoding of --in (convert) or --request (needed for --request=-): text, json or "
          "binary");
ABSL_FLAG(std::string, out_format, "", "output encoding for convert: text, json or binary");
ABSL_FLAG(std::string, type, "request", "message type for convert and validate: request or plan");
namespace dcplan::cli {

// Each occurrence of --set is parsed into a fresh value, so the occurrences so far are kept here.
// An empty text is the default's (abseil round-trips it in debug builds) and adds nothing.
bool AbslParseFlag(absl::string_view text, SetAssignments* out, std::string* /*error*/) {
  static auto* seen = new std::vector<std::string>();
  if (text.empty()) {
    out->items.clear();
    return true;
  }
  seen->emplace_back(text);
  out->items = *seen;
  return true;
}

std::string AbslUnparseFlag(const SetAssignments& value) { return absl::StrJoin(value.items, " "); }

}  // namespace dcplan::cli

ABSL_FLAG(dcplan::cli::SetAssignments, set, {},
          "PATH=VALUE: set any request field by its path, in its unit (repeatable): "
          "--set=hardware.accelerator.price_usd=35000 --set=costs.wacc=10% --set=site.pue=1.2 "
          "--set=site.cooling=liquid --set=hardware.network.upper_tier_oversubscription=[7]");
ABSL_FLAG(std::string, gpu_price, "",
          "price of one GPU, e.g. '$35K' (hardware.accelerator.price_usd; used when the server has "
          "no price of its own)");
ABSL_FLAG(std::string, server_price, "",
          "price of one whole server with its GPUs, e.g. '$400K' (hardware.server.price_usd)");
ABSL_FLAG(std::string, wacc, "",
          "cost of capital a year, e.g. 8% or 0.08: capex is charged as an annuity (costs.wacc)");
ABSL_FLAG(std::string, facility_cost, "",
          "facility build cost per IT watt, e.g. '$12/W' or '12M USD/MW' "
          "(costs.facility_usd_per_it_watt)");
ABSL_FLAG(std::string, gpu_power_limit, "",
          "power limit on each GPU, e.g. 960W, or auto: the limit with the most realized compute "
          "under the caps (with --objective=compute) (hardware.accelerator.power_limit_watts)");
ABSL_FLAG(std::string, it_life, "",
          "life of the IT hardware, e.g. 5 or 5y: its capex is spread over it "
          "(costs.it_life_years)");

namespace dcplan::cli {
namespace {}  // namespace

std::string ForTerminal(absl::string_view message) {
  std::string out;
  for (absl::string_view word : absl::StrSplit(Printable(message), ' ')) {
    if (!out.empty()) out.push_back(' ');
    // Values are clipped where they are quoted; a word this long is a pasted value or a path
    // longer than any real one.
    absl::StrAppend(&out, word.size() > 256 ? Clip(word, 200) : std::string(word));
  }
  return out.size() > 2000 ? Clip(out, 2000) : out;
}

namespace {

absl::Status FlagError(absl::string_view flag, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("--", flag, ": ", status.message()));
}

// "site.pue: expected a number" -> "expected a number" (the caller names the input).
std::string StripPath(absl::string_view message, absl::string_view path) {
  if (!path.empty() && absl::StartsWith(message, path)) {
    absl::string_view rest = message.substr(path.size());
    if (absl::ConsumePrefix(&rest, ": ")) return std::string(rest);
  }
  return std::string(message);
}

// A whole number in [min, max] (the field's real range), with ParseCount's suffixes ("8K").
absl::StatusOr<uint64_t> WholeCount(absl::string_view flag, absl::string_view text, uint64_t min,
                                    uint64_t max) {
  auto v = units::ParseCount(text);
  if (!v.ok()) return FlagError(flag, v.status());
  if (*v != std::floor(*v) || *v < static_cast<double>(min) || *v > static_cast<double>(max)) {
    return absl::OutOfRangeError(absl::StrCat("--", flag, ": expected a whole number in [", min,
                                              ", ", max, "], got \"", Clip(text), "\""));
  }
  return static_cast<uint64_t>(*v);
}

}  // namespace

absl::StatusOr<OutputFormat> FormatFlag(const std::vector<std::string>& allowed) {
  const std::string f = absl::AsciiStrToLower(absl::GetFlag(FLAGS_format));
  bool ok = false;
  for (const std::string& a : allowed) ok |= (a == f);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--format must be one of ", absl::StrJoin(allowed, ", "), "; got \"", Clip(f), "\""));
  }
  if (f == "json") return OutputFormat::kJson;
  if (f == "textproto" || f == "text") return OutputFormat::kText;
  if (f == "binary") return OutputFormat::kBinary;
  if (f == "csv") return OutputFormat::kCsv;
  if (f == "jsonl") return OutputFormat::kJsonLines;
  if (f == "svg") return OutputFormat::kSvg;
  return OutputFormat::kTable;
}

absl::StatusOr<PlanRequest> BaseRequest() {
  PlanRequest request;
  const std::string file = absl::GetFlag(FLAGS_request);
  if (!file.empty()) {
    // --in_format names the encoding when the name cannot: standard input ("-") or an unknown
    // extension.
    std::optional<Encoding> encoding;
    if (const std::string f = absl::GetFlag(FLAGS_in_format); !f.empty()) {
      auto e = ParseEncodingName(f);
      if (!e.ok()) return FlagError("in_format", e.status());
      encoding = *e;
    } else if (file == "-") {
      return absl::InvalidArgumentError(
          "--request=- reads standard input, whose encoding dcplan cannot tell: add "
          "--in_format=text, --in_format=json or --in_format=binary");
    }
    DCPLAN_RETURN_IF_ERROR(ReadMessageFile(file, encoding, &request));
    return request;
  }
  return LoadPreset(absl::GetFlag(FLAGS_preset));
}

namespace {

// The request flags that are plain aliases of a field (planner/request_edit.h Aliases()), in the
// order they apply: --cooling before the PUEs, so that a PUE given with it wins.
const std::vector<std::string>& RequestFlagNames() {
  static const auto* names = new std::vector<std::string>{"power",
                                                          "power_at",
                                                          "cooling",
                                                          "pue",
                                                          "annual_pue",
                                                          "provisioning",
                                                          "provisioning_margin",
                                                          "max_gpus",
                                                          "max_buildings",
                                                          "budget",
                                                          "budget_on",
                                                          "horizon_years",
                                                          "electricity",
                                                          "objective",
                                                          "gpu_price",
                                                          "server_price",
                                                          "wacc",
                                                          "facility_cost",
                                                          "it_life",
                                                          "gpu_power_limit"};
  return *names;
}

// What the user called each field they set: "--pue", "--set=site.pue".
absl::flat_hash_map<std::string, std::string>& UserNames() {
  static auto* names = new absl::flat_hash_map<std::string, std::string>();
  return *names;
}

// Sets the alias `name` from its flag when the flag is given.
absl::Status ApplyAliasFlag(const std::string& name, PlanRequest* r) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr) return absl::InternalError(absl::StrCat("no flag --", name));
  const std::string text = flag->CurrentValue();
  if (text.empty()) return absl::OkStatus();
  const std::string flag_name = absl::StrCat("--", name);
  const std::string path = ResolveAlias(name);
  RecordUserName(path, flag_name);
  DCPLAN_RETURN_IF_ERROR(SetField(name, text, flag_name, r));
  // A value that sets another field than the alias's own (--gpu_power_limit=auto sets
  // hardware.accelerator.power_limit_auto) is named by the flag and its value.
  for (const FieldSource& s : r->sources()) {
    if (s.source() == flag_name && s.path() != path) {
      RecordUserName(s.path(), absl::StrCat(flag_name, "=", text));
    }
  }
  return absl::OkStatus();
}

// --mfu_model: the efficiency model by name (the field paths under `efficiency` set its details).
absl::Status ApplyMfuModelFlag(PlanRequest* r) {
  const std::string name = absl::GetFlag(FLAGS_mfu_model);
  if (name.empty()) return absl::OkStatus();
  FieldSource source;
  source.set_origin(ORIGIN_USER);
  source.set_source("--mfu_model");
  if (name == "log_linear") {
    LogLinearMfu* curve = r->mutable_efficiency()->mutable_log_linear();
    curve->set_intercept(defaults::kMfuIntercept);
    curve->set_slope_per_doubling(defaults::kMfuSlopePerDoubling);
    source.set_path("efficiency.log_linear.intercept");
    *r->add_sources() = source;
    source.set_path("efficiency.log_linear.slope_per_doubling");
    *r->add_sources() = source;
    return absl::OkStatus();
  }
  if (name == "reference") {
    if (!r->efficiency().has_reference_workload()) {
      r->mutable_efficiency()->mutable_reference_workload();
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--mfu_model must be reference or log_linear, got \"", Clip(absl::CEscape(name)), "\""));
}

}  // namespace

void RecordUserName(absl::string_view path, absl::string_view name) {
  UserNames()[std::string(path)] = std::string(name);
}

std::string UserMessage(const absl::Status& status) {
  std::string message(status.message());
  const std::string path = FieldPathOf(status);
  if (!path.empty() && !UserNames().contains(path)) return message;
  // "site.pue must be >= 1.0, got 0.9" -> "--pue must be >= 1.0, got 0.9"; every other field the
  // user set and the message names is renamed too ("... with constraints.power_cap_at ..." ->
  // "... with --power_at ...").
  std::vector<std::pair<std::string, std::string>> names(UserNames().begin(), UserNames().end());
  std::sort(names.begin(), names.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  auto is_path_char = [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; };
  for (const auto& [field, name] : names) {
    for (size_t at = message.find(field); at != std::string::npos;
         at = message.find(field, at + name.size())) {
      const size_t end = at + field.size();
      if ((at > 0 && is_path_char(message[at - 1])) ||
          (end < message.size() && is_path_char(message[end]) && message[end] != '.')) {
        at += 1;
        if (at >= message.size()) break;
        continue;
      }
      message.replace(at, field.size(), name);
    }
  }
  return message;
}

absl::Status ApplyOverrides(PlanRequest* r) {
  DCPLAN_RETURN_IF_ERROR(ApplyWorkloadFile(r));
  for (const std::string& name : RequestFlagNames()) {
    DCPLAN_RETURN_IF_ERROR(ApplyAliasFlag(name, r));
  }
  for (const std::string& name : WorkloadFlagNames()) {
    DCPLAN_RETURN_IF_ERROR(ApplyAliasFlag(name, r));
  }
  DCPLAN_RETURN_IF_ERROR(ApplySpecialWorkloadFlags(r));
  DCPLAN_RETURN_IF_ERROR(ApplyMfuModelFlag(r));
  // With a training job, what a planner wants most is its compute: fit maximises realized compute
  // unless --objective (or the request) says otherwise.
  if (r->has_workload() && r->constraints().objective() == OBJECTIVE_UNSPECIFIED) {
    r->mutable_constraints()->set_objective(OBJECTIVE_MAX_REALIZED_COMPUTE);
    FieldSource* s = r->add_sources();
    s->set_path("constraints.objective");
    s->set_origin(ORIGIN_DERIVED);
    s->set_source(
        "derived: a workload is given, so the plan maximises its realized compute "
        "(--objective=gpus for the most GPUs)");
  }
  // --set=PATH=VALUE, in order, after the flags: the most specific word wins.
  for (const std::string& assignment : absl::GetFlag(FLAGS_set).items) {
    const size_t eq = assignment.find('=');
    const std::string name =
        absl::StrCat("--set=", eq == std::string::npos ? assignment : assignment.substr(0, eq));
    if (eq != std::string::npos) {
      RecordUserName(ResolveAlias(absl::StripAsciiWhitespace(assignment.substr(0, eq))), name);
    }
    absl::Status s = ApplyAssignment(assignment, "--set", r);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--set=", Clip(assignment), ": ",
                                                 StripPath(s.message(), FieldPathOf(s))));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFlagsMatter(const PlanRequest& r) {
  // Every cross-field rule lives in the validator, which names the field; UserMessage names the
  // flag that set it.
  return ValidateRequest(r);
}

absl::StatusOr<PlanRequest> RequestFromFlags() {
  DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, BaseRequest());
  DCPLAN_RETURN_IF_ERROR(ApplyOverrides(&request));
  DCPLAN_RETURN_IF_ERROR(ApplyUncertaintyFlags(&request));  // examples/cli/uncertainty.h
  DCPLAN_RETURN_IF_ERROR(CheckFlagsMatter(request));
  return request;
}

std::vector<std::string> InputFiles() {
  std::vector<std::string> files;
  for (const std::string& f :
       {absl::GetFlag(FLAGS_request), absl::GetFlag(FLAGS_in), absl::GetFlag(FLAGS_workload)}) {
    if (!f.empty() && f != "-") files.push_back(f);
  }
  return files;
}

absl::Status WriteOutput(absl::string_view text) {
  const std::string out = absl::GetFlag(FLAGS_out);
  return WriteFileAtomically(out.empty() ? "-" : out, text, InputFiles());
}

absl::Status WriteMessage(const google::protobuf::Message& message, OutputFormat format) {
  Encoding e = format == OutputFormat::kJson   ? Encoding::kJson
               : format == OutputFormat::kText ? Encoding::kText
                                               : Encoding::kBinary;
  DCPLAN_ASSIGN_OR_RETURN(std::string text, SerializeMessage(message, e));
  return WriteOutput(text);
}

absl::StatusOr<std::vector<int64_t>> ParseGpuList(absl::string_view text) {
  std::vector<int64_t> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    DCPLAN_ASSIGN_OR_RETURN(uint64_t v, WholeCount("gpus", part, 1, limits::kMaxGpus));
    out.push_back(static_cast<int64_t>(v));
  }
  if (out.size() > 100000) return absl::OutOfRangeError("--gpus: at most 100,000 sizes");
  return out;
}

}  // namespace dcplan::cli
