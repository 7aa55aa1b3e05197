#include "examples/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "base/text.h"
#include "examples/cli/workload_flags.h"
#include "planner/presets/presets.h"
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

// "0", "0.0", "-0": zero, which is zero in every unit, so it needs none.
bool IsZero(absl::string_view text) {
  double v = 1;
  return absl::SimpleAtod(absl::StripAsciiWhitespace(text), &v) && v == 0;
}

absl::Status FlagError(absl::string_view flag, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("--", flag, ": ", status.message()));
}

absl::StatusOr<double> PlainNumber(absl::string_view flag, absl::string_view text) {
  double v = 0;
  if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": expected a number, got \"", Clip(text), "\""));
  }
  return v;
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

absl::Status ApplyOverrides(PlanRequest* r) {
  if (std::string s = absl::GetFlag(FLAGS_power); !s.empty()) {
    auto p = IsZero(s) ? absl::StatusOr<units::Power>(units::Watts(0.0)) : units::ParsePower(s);
    if (!p.ok()) return FlagError("power", p.status());
    // In a request 0 W means "no power cap"; on the command line a cap of zero would fit no
    // server. Neither reading is safe to guess, so zero is refused.
    if (units::InWatts(*p) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--power=", Clip(s),
          ": a power cap of zero fits no server (and 0 W in a request means no cap); leave --power "
          "out to solve without a power cap"));
    }
    r->mutable_constraints()->set_power_cap_watts(units::InWatts(*p));
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_power_at)); !s.empty()) {
    if (s == "facility" || s == "meter") {
      r->mutable_constraints()->set_power_cap_at(POWER_CAP_AT_FACILITY);
    } else if (s == "it") {
      r->mutable_constraints()->set_power_cap_at(POWER_CAP_AT_IT);
    } else if (s == "substation") {
      r->mutable_constraints()->set_power_cap_at(POWER_CAP_AT_SUBSTATION);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--power_at must be facility, it or substation; got \"", Clip(s), "\""));
    }
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_cooling)); !s.empty()) {
    if (s == "air") {
      r->mutable_site()->set_cooling(COOLING_AIR);
    } else if (s == "liquid" || s == "direct_liquid") {
      r->mutable_site()->set_cooling(COOLING_DIRECT_LIQUID);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--cooling must be air or liquid; got \"", Clip(s), "\""));
    }
    // The cooling type's PUEs replace the request's, unless the flags below give them.
    r->mutable_site()->clear_pue();
    r->mutable_site()->clear_annual_pue();
  }
  if (std::string s = absl::GetFlag(FLAGS_pue); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, PlainNumber("pue", s));
    r->mutable_site()->set_pue(v);
  }
  if (std::string s = absl::GetFlag(FLAGS_annual_pue); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, PlainNumber("annual_pue", s));
    r->mutable_site()->set_annual_pue(v);
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_provisioning)); !s.empty()) {
    if (s == "nameplate") {
      r->mutable_site()->mutable_provisioning()->set_basis(PROVISIONING_BASIS_NAMEPLATE);
    } else if (s == "measured") {
      r->mutable_site()->mutable_provisioning()->set_basis(PROVISIONING_BASIS_MEASURED);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--provisioning must be nameplate or measured; got \"", Clip(s), "\""));
    }
  }
  if (std::string s = absl::GetFlag(FLAGS_provisioning_margin); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, PlainNumber("provisioning_margin", s));
    r->mutable_site()->mutable_provisioning()->set_margin(v);
  }
  if (std::string s = absl::GetFlag(FLAGS_max_gpus); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(uint64_t v, WholeCount("max_gpus", s, 0, limits::kMaxGpus));
    r->mutable_constraints()->set_max_gpus(v);
  }
  if (std::string s = absl::GetFlag(FLAGS_max_buildings); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(uint64_t v, WholeCount("max_buildings", s, 0, limits::kMaxBuildings));
    r->mutable_site()->set_max_buildings(static_cast<uint32_t>(v));
  }
  if (std::string s = absl::GetFlag(FLAGS_budget); !s.empty()) {
    auto m = units::ParseMoney(s);
    if (!m.ok()) return FlagError("budget", m.status());
    if (units::InUsd(*m) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--budget=", Clip(s),
          ": a budget of zero buys no server (and $0 in a request means no budget); leave --budget "
          "out to solve without a budget"));
    }
    r->mutable_constraints()->set_budget_usd(units::InUsd(*m));
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_budget_on)); !s.empty()) {
    if (s == "capex") {
      r->mutable_constraints()->set_budget_on(BUDGET_ON_CAPEX);
    } else if (s == "tco") {
      r->mutable_constraints()->set_budget_on(BUDGET_ON_TCO);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--budget_on must be capex or tco; got \"", Clip(s), "\""));
    }
  }
  if (std::string s = absl::GetFlag(FLAGS_horizon_years); !s.empty()) {
    DCPLAN_ASSIGN_OR_RETURN(double v, PlainNumber("horizon_years", s));
    r->mutable_costs()->set_horizon_years(v);
  }
  if (std::string s = absl::GetFlag(FLAGS_electricity); !s.empty()) {
    // Zero needs no unit: free electricity.
    auto p = IsZero(s) ? absl::StatusOr<units::MoneyPerEnergy>(units::UsdPerKilowattHour(0.0))
                       : units::ParseMoneyPerEnergy(s);
    if (!p.ok()) return FlagError("electricity", p.status());
    r->mutable_costs()->set_electricity_usd_per_kwh(units::InUsdPerKilowattHour(*p));
  }
  if (std::string s = absl::AsciiStrToLower(absl::GetFlag(FLAGS_objective)); !s.empty()) {
    if (s == "gpus") {
      r->mutable_constraints()->set_objective(OBJECTIVE_MAX_GPUS);
    } else if (s == "compute") {
      r->mutable_constraints()->set_objective(OBJECTIVE_MAX_REALIZED_COMPUTE);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--objective must be gpus or compute; got \"", Clip(s), "\""));
    }
  }
  // The training job and the network overrides (workload_flags.h).
  return ApplyWorkloadFlags(r);
}

absl::Status CheckFlagsMatter(const PlanRequest& r) {
  // A value out of its field's range is the first thing to fix: the validator says so later.
  if (!ValidateRequest(r).ok()) return absl::OkStatus();
  if (const std::string margin = absl::GetFlag(FLAGS_provisioning_margin);
      !margin.empty() && r.site().provisioning().basis() != PROVISIONING_BASIS_MEASURED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--provisioning_margin=", Clip(margin),
        " has no effect: power is provisioned for the nameplate; add --provisioning=measured"));
  }
  const std::string power = absl::GetFlag(FLAGS_power);
  if (!power.empty() && r.constraints().power_cap_watts() > 0 &&
      r.constraints().power_cap_at() == POWER_CAP_AT_SUBSTATION) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--power=", Clip(power), " has no effect with ",
        absl::GetFlag(FLAGS_power_at).empty()
            ? "the request's power_cap_at: POWER_CAP_AT_SUBSTATION"
            : "--power_at=substation",
        ", which caps at the substation's rating (site.substation.transformer_rating_va): drop "
        "--power, or measure it at the facility or it"));
  }
  const std::string buildings = absl::GetFlag(FLAGS_max_buildings);
  if (!buildings.empty() && r.site().max_buildings() > 0 &&
      r.site().building().critical_it_power_watts() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_buildings=", Clip(buildings),
        " caps nothing: the request has no building power limit "
        "(site.building.critical_it_power_watts is 0), so one building holds any cluster; give "
        "one in a --request file, or drop --max_buildings"));
  }
  const std::string budget = absl::GetFlag(FLAGS_budget);
  const Hardware& h = r.hardware();
  const bool tco = r.constraints().budget_on() == BUDGET_ON_TCO;
  if (!budget.empty() && r.constraints().budget_usd() > 0 && h.server().price_usd() <= 0 &&
      h.accelerator().price_usd() <= 0 && h.server().non_gpu_price_usd() <= 0 &&
      r.costs().facility_usd_per_it_watt() <= 0 &&
      !(tco && r.costs().electricity_usd_per_kwh() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--budget=", Clip(budget), " caps nothing: nothing in ",
                     absl::GetFlag(FLAGS_request).empty()
                         ? absl::StrCat("the preset ", Clip(absl::GetFlag(FLAGS_preset)))
                         : "the request",
                     " has a price (hardware.server.price_usd, hardware.accelerator.price_usd, "
                     "costs.facility_usd_per_it_watt",
                     tco ? ", costs.electricity_usd_per_kwh" : "",
                     " are 0); use a preset with prices, or drop --budget"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PlanRequest> RequestFromFlags() {
  DCPLAN_ASSIGN_OR_RETURN(PlanRequest request, BaseRequest());
  DCPLAN_RETURN_IF_ERROR(ApplyOverrides(&request));
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
