// dcplan compare: solves the same caps for several presets (and request files) and ranks them by
// realized compute, with the cost per realized EFLOP/s-year and the energy a year beside it.
#include "planner/compare.h"

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/report.h"
#include "examples/cli/uncertainty.h"
#include "planner/presets/presets.h"
#include "planner/sweep/compare_monte_carlo.h"
#include "units/format.h"

ABSL_DECLARE_FLAG(int, threads);

namespace dcplan::cli {
namespace {

bool Estimated(const Comparison& comparison, const Plan& plan) {
  for (const std::string& name : comparison.estimated_efficiency()) {
    if (name == plan.name()) return true;
  }
  return false;
}

}  // namespace

absl::Status RunCompare() {
  auto format = FormatFlag({"table", "json", "textproto", "text", "binary"});
  if (!format.ok()) return format.status();
  std::vector<std::string> names =
      absl::StrSplit(absl::GetFlag(FLAGS_presets), ',', absl::SkipWhitespace());
  if (names.empty() && absl::GetFlag(FLAGS_requests).empty()) {
    for (const std::string& n : PresetNames()) {
      if (n != "seed") names.push_back(n);
    }
  }
  std::vector<PlanRequest> requests;
  for (const std::string& name : names) {
    auto request = LoadPreset(name);
    if (!request.ok()) return request.status();
    absl::Status applied = ApplyOverrides(&*request);
    if (!applied.ok()) return applied;
    applied = ApplyUncertaintyFlags(&*request);
    if (!applied.ok()) return applied;
    requests.push_back(*std::move(request));
  }
  const std::vector<std::string> files =
      absl::StrSplit(absl::GetFlag(FLAGS_requests), ',', absl::SkipWhitespace());
  for (const std::string& file : files) {
    PlanRequest request;
    absl::Status read = ReadMessageFile(file, std::nullopt, &request);
    if (!read.ok()) return read;
    if (request.name().empty()) request.set_name(file);
    absl::Status applied = ApplyOverrides(&request);
    if (!applied.ok()) return applied;
    applied = ApplyUncertaintyFlags(&request);
    if (!applied.ok()) return applied;
    requests.push_back(std::move(request));
  }
  MonteCarloOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  auto compared = CompareUncertain(requests, options);
  if (!compared.ok()) return compared.status();
  const Comparison& comparison = *compared;
  if (*format != OutputFormat::kTable) {
    absl::Status w = WriteMessage(comparison, *format);
    return w;
  }
  std::string out = absl::StrCat("MFU: ", comparison.efficiency_basis(), "\n");
  absl::StrAppendFormat(&out, "%-4s %-12s %10s %14s %8s %10s %10s %16s %12s %s\n", "rank", "preset",
                        "GPUs", "realized", "MFU", "meter", "capex", "TCO/EFLOP/s-yr", "MWh/year",
                        "binding");
  int rank = 0;
  for (const Plan& p : comparison.plans()) {
    absl::StrAppendFormat(
        &out, "%-4d %-12s %10s %14s %7.1f%%%s %10s %10s %16s %12s %s\n", ++rank,
        Printable(p.name()), units::FormatCount(p.counts().gpu_count()),
        units::FormatComputeRate(units::FlopsPerSecond(p.compute().realized_flops_per_second()), 2),
        100.0 * p.compute().mfu(), Estimated(comparison, p) ? "*" : " ",
        units::FormatPower(units::Watts(p.power().facility_power_watts()), 1),
        units::FormatMoney(units::Usd(p.cost().capex_usd()), 2),
        units::FormatMoney(units::Usd(p.cost().usd_per_realized_eflops_year()), 2),
        units::FormatCount(static_cast<uint64_t>(p.cost().energy_mwh_per_year() + 0.5)),
        BindingName(p.binding_constraint()));
  }
  if (!comparison.estimated_efficiency().empty()) {
    absl::StrAppend(&out,
                    "* estimate: no published run on this hardware; its step-model constants are "
                    "another GPU's fit, carried over\n");
  }
  if (comparison.p_best_size() == comparison.plans_size() && comparison.plans_size() > 0) {
    const Distributions& d0 = comparison.plans(0).distribution();
    absl::StrAppendFormat(
        &out,
        "\nUncertainty: %s samples (seed %d) per option on common random numbers (sample i draws "
        "the same inputs and model error for every option); ranked above at the medians\n",
        units::FormatCount(d0.samples()), d0.seed());
    absl::StrAppendFormat(&out, "%-4s %-12s %-30s %-24s %s\n", "rank", "preset",
                          "realized P10 .. P90", "TCO P10 .. P90", "P(most compute)");
    rank = 0;
    for (const Plan& p : comparison.plans()) {
      const Distributions& d = p.distribution();
      absl::StrAppendFormat(
          &out, "%-4d %-12s %-30s %-24s %.1f%%\n", rank + 1, Printable(p.name()),
          absl::StrCat(units::FormatComputeRate(
                           units::FlopsPerSecond(d.realized_flops_per_second().p10()), 2),
                       " .. ",
                       units::FormatComputeRate(
                           units::FlopsPerSecond(d.realized_flops_per_second().p90()), 2)),
          absl::StrCat(units::FormatMoney(units::Usd(d.tco_usd().p10()), 2), " .. ",
                       units::FormatMoney(units::Usd(d.tco_usd().p90()), 2)),
          100 * comparison.p_best(rank));
      ++rank;
    }
  }
  if (!comparison.differing_assumptions().empty()) {
    absl::StrAppend(&out,
                    "\nnot like for like: these assumptions differ between the presets "
                    "(--cooling, --pue, --set=PATH=VALUE set them for all)\n");
    absl::StrAppendFormat(&out, "  %-32s", "");
    for (const Plan& p : comparison.plans())
      absl::StrAppendFormat(&out, " %14s", Printable(p.name()));
    absl::StrAppend(&out, "\n");
    for (const std::string& path : comparison.differing_assumptions()) {
      absl::StrAppendFormat(&out, "  %-32s", path);
      for (const Plan& p : comparison.plans()) {
        std::string value = "-";
        for (const Assumption& a : p.assumptions()) {
          if (a.path() == path) value = AssumptionText(a);
        }
        absl::StrAppendFormat(&out, " %14s", value);
      }
      absl::StrAppend(&out, "\n");
    }
  }
  absl::Status w = WriteOutput(out);
  return w;
}

}  // namespace dcplan::cli
