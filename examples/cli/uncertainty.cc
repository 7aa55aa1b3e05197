// File: examples/cli/uncertainty.cc
#include "examples/cli/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "examples/cli/progress.h"
#include "examples/cli/report.h"
#include "examples/cli/svg.h"
#include "examples/cli/training_report.h"
#include "planner/sweep/monte_carlo.h"
#include "planner/sweep/sensitivity.h"
#include "planner/sweep/train_monte_carlo.h"
#include "planner/uncertain.h"
#include "units/format.h"
#include "units/units.h"

namespace dcplan::cli {
namespace {

// --uncertain may be given several times, and its values hold commas, so it is not a list flag:
// Abseil keeps only a flag's last value, so each parse also appends the text here, in order.
std::vector<std::string>& UncertainSpecs() {
  static auto* specs = new std::vector<std::string>;
  return *specs;
}

}  // namespace

// The type of --uncertain: its last value; every value given is in UncertainSpecs().
struct UncertainFlag {
  std::string last;
};

bool AbslParseFlag(absl::string_view text, UncertainFlag* flag, std::string*) {
  flag->last = std::string(text);
  // Abseil also parses the default's text ("") once, to check that it round-trips.
  if (!text.empty()) UncertainSpecs().push_back(flag->last);
  return true;
}

std::string AbslUnparseFlag(const UncertainFlag& flag) { return flag.last; }

// --correlate=PATH_A,PATH_B=RHO, repeatable, kept the same way.
std::vector<std::string>& CorrelateSpecs() {
  static auto* specs = new std::vector<std::string>;
  return *specs;
}

struct CorrelateFlag {
  std::string last;
};

bool AbslParseFlag(absl::string_view text, CorrelateFlag* flag, std::string*) {
  flag->last = std::string(text);
  if (!text.empty()) CorrelateSpecs().push_back(flag->last);
  return true;
}

std::string AbslUnparseFlag(const CorrelateFlag& flag) { return flag.last; }

}  // namespace dcplan::cli

ABSL_FLAG(
    dcplan::cli::UncertainFlag, uncertain, dcplan::cli::UncertainFlag{},
    "an uncertain input, PATH=DIST (repeatable): pue=uniform(1.1, 1.4), "
    "electricity=triangular(0.06 USD/kWh, 0.08 USD/kWh, 0.12 USD/kWh), gpu_price=normal($30K, "
    "$3K), wacc=lognormal(8%, 0.2), pue=discrete(1.2:0.5, 1.4:0.5)");
ABSL_FLAG(dcplan::cli::CorrelateFlag, correlate, dcplan::cli::CorrelateFlag{},
          "a rank (Spearman) correlation between two --uncertain inputs, PATH_A,PATH_B=RHO "
          "(repeatable): pue,electricity=0.6");
ABSL_FLAG(std::string, samples, "", "Monte Carlo samples (default 10,000; at most 1,000,000)");
ABSL_FLAG(std::string, seed, "", "Monte Carlo seed (default 1): the same seed, the same answer");
ABSL_FLAG(std::string, samples_out, "", "write every Monte Carlo sample (inputs, outputs) as CSV");
ABSL_FLAG(bool, sensitivity, false, "also rank the uncertain inputs by their swing (a tornado)");
ABSL_FLAG(std::string, output, "",
          "the output the sensitivity ranks by: gpu_count (default), tco_usd, "
          "realized_flops_per_second, ... or a Plan field path");
ABSL_FLAG(bool, model_mfu_error, true,
          "with --uncertain, also sample the efficiency model's own MFU error (from the published "
          "runs, leave one source out); --model_mfu_error=false samples the inputs only");
ABSL_DECLARE_FLAG(int, threads);

namespace dcplan::cli {
namespace {

absl::StatusOr<uint64_t> Count(absl::string_view flag, const std::string& text) {
  uint64_t v;
  if (!absl::SimpleAtoi(text, &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " takes a whole number, got \"", text, "\""));
  }
  return v;
}

std::string Figure(int output, double v) {
  switch (output) {
    case kOutGpuCount:
      return units::FormatCount(static_cast<uint64_t>(std::max(0.0, v)));
    case kOutRealizedFlopsPerSecond:
      return units::FormatComputeRate(units::FlopsPerSecond(v));
    case kOutItPowerWatts:
    case kOutFacilityPowerWatts:
      return units::FormatPower(units::Watts(v));
    case kOutCapexUsd:
    case kOutTcoUsd:
      return units::FormatMoney(units::Usd(v));
    case kOutUsdPerGpuHour:
      return absl::StrFormat("$%.2f", v);
    case kOutMfu:
    case kOutGoodput:
      return units::FormatPercent(units::Fraction(v));
    case kOutTimeToTrainSeconds:
      return absl::StrFormat("%.1f days", v / 86400);
    default:
      return absl::StrFormat("%.6g", v);
  }
}

const char* kLabels[kNumSampleOutputs] = {
    "GPUs", "Realized compute", "IT power", "Facility power", "Capex",
    "TCO",  "$/GPU-hour",       "MFU",      "Time to train",  "Goodput"};

const Percentiles* PercentilesOf(const Distributions& d, int k) {
  const auto* f = Distributions::descriptor()->FindFieldByName(OutputName(k));
  if (f == nullptr || !d.GetReflection()->HasField(d, f)) return nullptr;
  return static_cast<const Percentiles*>(&d.GetReflection()->GetMessage(d, f));
}

// A figure of an output (a Distributions name or a Plan path) for the tornado.
std::string OutputFigure(const std::string& name, double v) {
  for (int k = 0; k < kNumSampleOutputs; ++k) {
    if (name == OutputName(k)) return Figure(k, v);
  }
  return absl::StrFormat("%.6g", v);
}

std::string InputFigure(const std::string& path, double v) {
  // The tornado's row for the MFU model's own error: its inputs are the MFU interval's ends.
  if (path == kMfuModelErrorPath) return absl::StrFormat("MFU %.1f%%", 100 * v);
  auto f = ResolveField(path);
  if (!f.ok()) return absl::StrFormat("%.6g", v);
  const std::string unit = FieldUnit(f->leaf());
  if (unit == "W") return units::FormatPower(units::Watts(v));
  if (unit == "USD") return units::FormatMoney(units::Usd(v));
  if (unit == "USD/kWh") return units::FormatMoneyPerEnergy(units::UsdPerKilowattHour(v));
  if (unit == "1" || unit.empty()) return absl::StrFormat("%.4g", v);
  return absl::StrFormat("%.4g %s", v, unit);
}

absl::Status WriteSamplesCsv(const MonteCarloRun& run, const std::string& path) {
  std::string csv = "sample";
  for (const UncertainInput& in : run.inputs()) absl::StrAppend(&csv, ",", in.field.path);
  absl::StrAppend(&csv, ",mfu_error_factor,ok,binding_constraint");
  for (int k = 0; k < kNumSampleOutputs; ++k) absl::StrAppend(&csv, ",", OutputName(k));
  csv += "\n";
  MonteCarloOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  DCPLAN_RETURN_IF_ERROR(run.Run(options, [&](int64_t first, absl::Span<const SampleResult> rows) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t s = first + static_cast<int64_t>(i);
      absl::StrAppend(&csv, s);
      for (size_t j = 0; j < run.inputs().size(); ++j) {
        absl::StrAppend(&csv, ",",
                        absl::StrFormat("%.17g", run.InputValue(s, static_cast<int>(j))));
      }
      absl::StrAppend(&csv, ",", absl::StrFormat("%.17g", run.MfuFactor(s)));
      absl::StrAppend(&csv, rows[i].ok ? ",true," : ",false,",
                      rows[i].ok ? BindingConstraint_Name(rows[i].binding) : "");
      for (double v : rows[i].outputs) absl::StrAppend(&csv, ",", absl::StrFormat("%.17g", v));
      csv += "\n";
    }
    return absl::OkStatus();
  }));
  return WriteFileAtomically(path, csv, InputFiles());
}

}  // namespace

absl::Status ApplyUncertaintyFlags(PlanRequest* request) {
  for (const std::string& spec : UncertainSpecs()) {
    auto u = ParseUncertain(spec);
    if (!u.ok()) {
      return absl::Status(u.status().code(),
                          absl::StrCat("--uncertain=", spec, ": ", u.status().message()));
    }
    *request->add_uncertain() = *std::move(u);
  }
  MonteCarlo* mc = request->mutable_monte_carlo();
  for (const std::string& spec : CorrelateSpecs()) {
    const size_t eq = spec.rfind('=');
    const size_t comma = spec.find(',');
    double rho = 0;
    if (eq == std::string::npos || comma == std::string::npos || comma > eq ||
        !absl::SimpleAtod(spec.substr(eq + 1), &rho)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--correlate=", spec, ": give PATH_A,PATH_B=RHO, e.g. pue,electricity=0.6"));
    }
    Correlation* c = mc->add_correlations();
    c->set_a(spec.substr(0, comma));
    c->set_b(spec.substr(comma + 1, eq - comma - 1));
    c->set_rank(rho);
  }
  if (!absl::GetFlag(FLAGS_samples).empty()) {
    DCPLAN_ASSIGN_OR_RETURN(uint64_t n, Count("samples", absl::GetFlag(FLAGS_samples)));
    if (n < 1 || n > kMaxMonteCarloSamples) {
      return absl::OutOfRangeError(absl::StrCat(
          "--samples must be in [1, ", kMaxMonteCarloSamples,
          "] (every sample is kept for the percentiles), got ", absl::GetFlag(FLAGS_samples)));
    }
    mc->set_samples(n);
  }
  if (!absl::GetFlag(FLAGS_seed).empty()) {
    DCPLAN_ASSIGN_OR_RETURN(uint64_t s, Count("seed", absl::GetFlag(FLAGS_seed)));
    mc->set_seed(s);
  }
  if (absl::GetFlag(FLAGS_sensitivity)) mc->set_sensitivity(true);
  if (!absl::GetFlag(FLAGS_model_mfu_error)) mc->set_model_mfu_error(false);
  if (!absl::GetFlag(FLAGS_output).empty()) {
    DCPLAN_RETURN_IF_ERROR(CheckOutputName(absl::GetFlag(FLAGS_output)));
    mc->set_sensitivity_output(absl::GetFlag(FLAGS_output));
  }
  if (mc->ByteSizeLong() == 0) request->clear_monte_carlo();
  if (request->has_monte_carlo() && request->uncertain_size() == 0) {
    return absl::InvalidArgumentError(
        "--samples, --seed, --sensitivity, --output, --correlate and --model_mfu_error need at "
        "least one "
        "--uncertain input");
  }
  return absl::OkStatus();
}

absl::Status WriteUncertainFit(const PlanRequest& request, OutputFormat format) {
  MonteCarloOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  std::optional<SetupNotice> notice(std::in_place, "dcplan: Monte Carlo");
  auto plan = SolveUncertainPlan(request, options);
  notice.reset();
  if (!plan.ok()) return plan.status();
  if (!absl::GetFlag(FLAGS_samples_out).empty()) {
    DCPLAN_ASSIGN_OR_RETURN(MonteCarloRun run, MonteCarloRun::Create(request));
    DCPLAN_RETURN_IF_ERROR(WriteSamplesCsv(run, absl::GetFlag(FLAGS_samples_out)));
  }
  if (format == OutputFormat::kSvg) return WriteOutput(TornadoSvg(*plan));
  if (format != OutputFormat::kTable) return WriteMessage(*plan, format);
  std::string text = PlanTable(*plan);
  if (plan->has_training()) text += TrainingTable(plan->training());
  text += DistributionTable(*plan);
  if (plan->sensitivity_size() > 0) text += TornadoTable(*plan);
  return WriteOutput(text);
}

absl::Status WriteUncertainTraining(const PlanRequest& request, int64_t gpus, OutputFormat format) {
  MonteCarloOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  std::optional<SetupNotice> notice(std::in_place, "dcplan train: Monte Carlo");
  auto plan = SolveUncertainTraining(request, gpus, options);
  notice.reset();
  if (!plan.ok()) return plan.status();
  if (format != OutputFormat::kTable) return WriteMessage(*plan, format);
  return WriteOutput(TrainingTable(*plan) + DistributionTable(plan->distribution()));
}

std::string DistributionTable(const Plan& plan) { return DistributionTable(plan.distribution()); }

std::string DistributionTable(const Distributions& d) {
  std::string s = absl::StrFormat(
      "\nUncertainty: %s samples (seed %d)%s; the plan above is at every input's median\n",
      units::FormatCount(d.samples()), d.seed(),
      d.failed_samples() > 0 ? absl::StrCat(", ", d.failed_samples(), " with no plan") : "");
  absl::StrAppend(&s, absl::StrFormat("  %-18s %-44s %s\n", "", "P10 / P50 / P90", "mean"));
  for (int k = 0; k < kNumSampleOutputs; ++k) {
    const Percentiles* p = PercentilesOf(d, k);
    if (p == nullptr) continue;
    absl::StrAppend(
        &s, absl::StrFormat("  %-18s %-44s %s\n", kLabels[k],
                            absl::StrCat(Figure(k, p->p10()), " / ", Figure(k, p->p50()), " / ",
                                         Figure(k, p->p90())),
                            Figure(k, p->mean())));
  }
  if (d.mfu_error_sigma() > 0) {
    absl::StrAppend(&s, absl::StrFormat("  MFU model error sampled: sd of ln(MFU) %.3f (%s)\n",
                                        d.mfu_error_sigma(), d.mfu_error_basis()));
  }
  for (const BindingShare& b : d.binding()) {
    BindingConstraint c;
    const std::string name = BindingConstraint_Parse(b.binding_constraint(), &c)
                                 ? BindingName(c)
                                 : b.binding_constraint();
    absl::StrAppend(
        &s, absl::StrFormat("  binds: %-24s in %.1f%% of samples\n", name, 100 * b.fraction()));
  }
  return s;
}

std::string TornadoTable(const Plan& plan) {
  const std::string& out = plan.sensitivity_output();
  std::string s = absl::StrFormat(
      "\nSensitivity of %s (each input at its P10 and P90, the others at P50), largest swing "
      "first\n",
      out);
  absl::StrAppend(&s, absl::StrFormat("  %-32s %-32s %-30s %s\n", "input", "P10 .. P90",
                                      "output at P10 .. P90", "swing"));
  for (const SensitivityEntry& e : plan.sensitivity()) {
    absl::StrAppend(&s, absl::StrFormat("  %-32s %-32s %-30s %s\n", e.path(),
                                        absl::StrCat(InputFigure(e.path(), e.low_input()), " .. ",
                                                     InputFigure(e.path(), e.high_input())),
                                        absl::StrCat(OutputFigure(out, e.output_at_low()), " .. ",
                                                     OutputFigure(out, e.output_at_high())),
                                        OutputFigure(out, e.swing())));
  }
  return s;
}

std::string TornadoSvg(const Plan& plan) {
  // Horizontal bars around the output at every input's median, one row per input, the largest
  // swing on top: the low input's end in blue, the high input's in orange.
  const std::string& out = plan.sensitivity_output();
  double base = 0;
  if (auto v = PlanOutput(plan, out); v.ok()) base = *v;
  double lo = base, hi = base;
  for (const SensitivityEntry& e : plan.sensitivity()) {
    lo = std::min({lo, e.output_at_low(), e.output_at_high()});
    hi = std::max({hi, e.output_at_low(), e.output_at_high()});
  }
  if (hi == lo) hi = lo + 1;
  const double pad = 0.08 * (hi - lo);
  lo -= pad;
  hi += pad;
  const int left = 480, right = 40, top = 70, row = 34, width = 1080;
  const int rows = plan.sensitivity_size();
  const int height = top + rows * row + 70;
  const double plot = width - left - right;
  auto x = [&](double v) { return left + (v - lo) / (hi - lo) * plot; };
  std::string s = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
      "font-family=\"DejaVu Sans, sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      width, height, width, height);
  absl::StrAppend(
      &s,
      absl::StrFormat("<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
                      20, XmlEscape(absl::StrCat(plan.name(), ": sensitivity of ", out))));
  absl::StrAppend(
      &s, absl::StrFormat("<text x=\"%d\" y=\"44\" fill=\"#555\">%s</text>\n", 20,
                          XmlEscape(absl::StrCat("each input at its P10 (blue) and P90 (orange), "
                                                 "the others at P50; line: all at P50 = ",
                                                 OutputFigure(out, base)))));
  for (int i = 0; i < rows; ++i) {
    const SensitivityEntry& e = plan.sensitivity(i);
    const int y = top + i * row;
    absl::StrAppend(
        &s, absl::StrFormat(
                "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 10, y + 21,
                XmlEscape(absl::StrCat(e.path(), " ", InputFigure(e.path(), e.low_input()), "..",
                                       InputFigure(e.path(), e.high_input())))));
    for (int side = 0; side < 2; ++side) {
      const double v = side == 0 ? e.output_at_low() : e.output_at_high();
      const double a = std::min(x(base), x(v)), b = std::max(x(base), x(v));
      absl::StrAppend(&s, absl::StrFormat("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                                          "fill=\"%s\"/>\n",
                                          a, y + 6, std::max(b - a, 1.0), row - 10,
                                          side == 0 ? "#1f77b4" : "#ff7f0e"));
    }
  }
  const int axis = top + rows * row + 6;
  absl::StrAppend(&s, absl::StrFormat("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                                      "stroke=\"black\" stroke-width=\"1.5\"/>\n",
                                      x(base), top - 4, x(base), axis));
  absl::StrAppend(&s, absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                                      "stroke=\"#888\"/>\n",
                                      left, axis, width - right, axis));
  for (int t = 0; t <= 4; ++t) {
    const double v = lo + (hi - lo) * t / 4;
    absl::StrAppend(&s, absl::StrFormat("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                                        "fill=\"#555\">%s</text>\n",
                                        x(v), axis + 18, XmlEscape(OutputFigure(out, v))));
  }
  absl::StrAppend(&s,
                  absl::StrFormat("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                                  left + plot / 2, axis + 40, XmlEscape(out)));
  s += "</svg>\n";
  return s;
}

}  // namespace dcplan::cli
