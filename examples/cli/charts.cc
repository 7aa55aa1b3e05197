#include "examples/cli/charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "examples/cli/report.h"
#include "examples/cli/svg.h"
#include "planner/planner.h"
#include "planner/request_edit.h"
#include "units/format.h"
#include "units/units.h"

namespace dcplan::cli {
namespace {

constexpr char kPeakColor[] = "#1f77b4";
constexpr char kRealizedColor[] = "#ff7f0e";
constexpr char kMfuColor[] = "#2ca02c";
constexpr char kItColor[] = "#9467bd";
constexpr char kMeterColor[] = "#8c564b";
constexpr char kCapColor[] = "#d62728";
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#d62728"};
constexpr int kMaxCurves = 10;

// Cluster sizes for smooth curves: `n` log-spaced whole sizes from lo to hi, with `extra` added.
std::vector<int64_t> DenseSizes(int64_t lo, int64_t hi, int n, const std::vector<int64_t>& extra) {
  std::vector<int64_t> sizes = extra;
  const double llo = std::log(static_cast<double>(lo)), lhi = std::log(static_cast<double>(hi));
  for (int i = 0; i < n; ++i) {
    sizes.push_back(static_cast<int64_t>(std::llround(std::exp(llo + (lhi - llo) * i / (n - 1)))));
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

ChartSeries Series(std::string name, const char* color, bool dashed) {
  ChartSeries s;
  s.name = std::move(name);
  s.color = color;
  s.dashed = dashed;
  return s;
}

// Dots only, not in the legend: the sizes the user asked for, on a curve of `color`.
ChartSeries Dots(const char* color) {
  ChartSeries s;
  s.color = color;
  s.markers = true;
  s.line = false;
  return s;
}

// The marker shape of a binding constraint: power caps round, money square, counts triangular.
const char* ShapeOf(BindingConstraint b) {
  switch (b) {
    case BINDING_CONSTRAINT_FACILITY_POWER:
    case BINDING_CONSTRAINT_IT_POWER:
    case BINDING_CONSTRAINT_SUBSTATION:
      return "circle";
    case BINDING_CONSTRAINT_BUDGET:
      return "square";
    case BINDING_CONSTRAINT_MAX_GPUS:
    case BINDING_CONSTRAINT_BUILDINGS:
      return "triangle";
    default:
      return "diamond";
  }
}

// A value of a sweep axis as people write it: "45.9 MW", "$2.50B", "0.080 USD/kWh", "1.3".
std::string AxisValueLabel(const SweepAxis& axis, int64_t i) {
  if (axis.is_preset()) return axis.presets[i];
  const double v = axis.values[i];
  if (axis.path == "constraints.max_gpus") {
    return absl::StrCat(units::FormatCount(static_cast<uint64_t>(v)), " GPUs");
  }
  if (absl::EndsWith(axis.path, "_watts")) return units::FormatPower(units::Watts(v));
  if (absl::EndsWith(axis.path, "_usd")) return units::FormatMoney(units::Usd(v));
  if (absl::EndsWith(axis.path, "_usd_per_kwh")) {
    return units::FormatMoneyPerEnergy(units::UsdPerKilowattHour(v));
  }
  return absl::StrFormat("%g", v);
}

// The last part of a field path: "site.pue" -> "pue".
std::string ShortName(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// The scale chart's curves over every size in `report`, with dots at the sizes `given`: peak and
// realized compute, MFU, IT and metered power.
void AddScaleSeries(const ScaleReport& report, const std::vector<int64_t>& given,
                    double flops_scale, double watts_scale, ChartPanel* compute, ChartPanel* mfu,
                    ChartPanel* power) {
  ChartSeries peak = Series("peak", kPeakColor, true);
  ChartSeries realized = Series("realized (peak x MFU)", kRealizedColor, false);
  ChartSeries eff = Series("MFU", kMfuColor, false);
  ChartSeries it = Series("IT power", kItColor, false);
  ChartSeries meter = Series("at the meter (IT x PUE)", kMeterColor, true);
  ChartSeries peak_dots = Dots(kPeakColor), realized_dots = Dots(kRealizedColor),
              mfu_dots = Dots(kMfuColor), it_dots = Dots(kItColor), meter_dots = Dots(kMeterColor);
  for (const ScaleRow& r : report.rows()) {
    const double g = static_cast<double>(r.counts().gpu_count());
    const double p = r.compute().peak_flops_per_second() / flops_scale;
    const double q = r.compute().realized_flops_per_second() / flops_scale;
    const double m = 100.0 * r.compute().mfu();
    const double w_it = r.power().it_power_watts() / watts_scale;
    const double w_meter = r.power().facility_power_watts() / watts_scale;
    peak.points.emplace_back(g, p);
    realized.points.emplace_back(g, q);
    eff.points.emplace_back(g, m);
    it.points.emplace_back(g, w_it);
    meter.points.emplace_back(g, w_meter);
    if (std::binary_search(given.begin(), given.end(),
                           static_cast<int64_t>(r.counts().gpu_count()))) {
      peak_dots.points.emplace_back(g, p);
      realized_dots.points.emplace_back(g, q);
      mfu_dots.points.emplace_back(g, m);
      it_dots.points.emplace_back(g, w_it);
      meter_dots.points.emplace_back(g, w_meter);
    }
  }
  compute->series = {peak, realized, peak_dots, realized_dots};
  mfu->series = {eff, mfu_dots};
  power->series = {it, meter, it_dots, meter_dots};
}

// The cap that binds in `plan`: a marker at its cluster size and, for a power cap, a line on the
// power panel (also named in the subtitle).
void AddCap(const PlanRequest& request, const Plan& plan, double watts_scale, Chart* chart,
            ChartPanel* power, std::string* subtitle) {
  const auto g = plan.counts().gpu_count();
  ChartMarker marker;
  marker.x = static_cast<double>(g);
  marker.label = absl::StrCat(BindingName(plan.binding_constraint()), " binds at ",
                              units::FormatCount(g), " GPUs");
  marker.color = kCapColor;
  chart->markers.push_back(marker);
  const Constraints& c = request.constraints();
  ChartLine line;
  line.color = kCapColor;
  if (c.power_cap_at() == POWER_CAP_AT_SUBSTATION ||
      plan.binding_constraint() == BINDING_CONSTRAINT_SUBSTATION) {
    line.y = plan.power().substation_capacity_watts() / watts_scale;
    line.label = absl::StrCat(
        "substation ", units::FormatPower(units::Watts(plan.power().substation_capacity_watts())));
  } else if (c.power_cap_watts() > 0) {
    line.y = c.power_cap_watts() / watts_scale;
    line.label = absl::StrCat(c.power_cap_at() == POWER_CAP_AT_IT ? "IT" : "facility",
                              " power cap ", units::FormatPower(units::Watts(c.power_cap_watts())));
  }
  if (!line.label.empty()) {
    power->lines.push_back(line);
    absl::StrAppend(subtitle, "; ", line.label);
  }
}

// How a sweep's x axis reads: the field's name for people, the unit its ticks are in and the scale
// that puts the axis's values in that unit.
struct XAxisUnit {
  std::string name;  // "facility power cap", "PUE", "budget"
  std::string unit;  // "MW", "$B", "USD/kWh", "GPUs", "" (a plain number)
  double scale = 1;  // divide a value in the field's own unit by this
};

// The money prefix that puts `max` in [1, 1000): {1e9, "B"} for $2.5e9, as FormatMoney prints.
std::pair<double, std::string> MoneyPrefix(double max) {
  if (max >= 1e12) return {1e12, "T"};
  if (max >= 1e9) return {1e9, "B"};
  if (max >= 1e6) return {1e6, "M"};
  if (max >= 1e3) return {1e3, "k"};
  return {1, ""};
}

XAxisUnit XAxisOf(const SweepAxis& axis, const PlanRequest& base) {
  XAxisUnit x;
  const std::string& path = axis.path;
  // The unit's prefix from the smallest value, so the ticks read 10, 100, 1K MW rather than 0.01
  // GW.
  double max = 0, min = 0;
  for (double v : axis.values) {
    max = std::max(max, std::abs(v));
    if (v > 0) min = min == 0 ? v : std::min(min, v);
  }
  const Constraints& c = base.constraints();
  if (path == "constraints.power_cap_watts") {
    x.name = c.power_cap_at() == POWER_CAP_AT_IT           ? "IT power cap"
             : c.power_cap_at() == POWER_CAP_AT_SUBSTATION ? "substation power cap"
                                                           : "facility power cap";
  } else if (path == "constraints.budget_usd") {
    x.name = c.budget_on() == BUDGET_ON_TCO ? "budget on TCO" : "budget on capex";
  } else if (path == "constraints.max_gpus") {
    x.name = "cluster size";
  } else if (path == "site.pue") {
    x.name = "PUE";
  } else if (path == "site.annual_pue") {
    x.name = "annual PUE";
  } else if (path == "costs.electricity_usd_per_kwh") {
    x.name = "electricity price";
  } else if (path == "costs.wacc") {
    x.name = "WACC";
  } else if (path == "costs.horizon_years") {
    x.name = "horizon";
  } else if (path == "hardware.accelerator.price_usd") {
    x.name = "GPU price";
  } else if (path == "hardware.server.price_usd") {
    x.name = "server price";
  } else {
    x.name = path;
  }
  if (absl::EndsWith(path, "_watts")) {
    const auto [scale, prefix] = SiPrefix(min > 0 ? min : max);
    x.scale = scale;
    x.unit = absl::StrCat(prefix, "W");
  } else if (absl::EndsWith(path, "_usd")) {
    const auto [scale, prefix] = MoneyPrefix(min > 0 ? min : max);
    x.scale = scale;
    x.unit = absl::StrCat("$", prefix);
  } else if (path == "constraints.max_gpus") {
    x.unit = "GPUs";
  } else if (path == "costs.horizon_years") {
    x.unit = "years";
  } else if (path == "costs.wacc") {
    x.unit = "fraction";
  } else if (auto field = ResolveField(path); field.ok()) {
    const std::string unit = FieldUnit(field->leaf());
    x.unit = unit == "1" ? "" : unit;
  }
  return x;
}

// "two", "three" ... "ten"; other numbers as digits.
std::string CountWord(int64_t n) {
  constexpr const char* kWords[] = {"zero", "one",   "two",   "three", "four", "five",
                                    "six",  "seven", "eight", "nine",  "ten"};
  return n >= 0 && n <= 10 ? kWords[n] : absl::StrCat(n);
}

// The largest of `rows`' figure `get`, over the rows that solved.
template <typename Get>
double MaxOf(const std::vector<SweepRow>& rows, Get get) {
  double m = 0;
  for (const SweepRow& r : rows) {
    if (r.status.ok() && r.gpus > 0) m = std::max(m, get(r));
  }
  return m;
}

// Whether a positive quantity spans enough (30x or more) to want a log axis.
template <typename Get>
bool WantsLog(const std::vector<SweepRow>& rows, Get get) {
  double lo = 0, hi = 0;
  for (const SweepRow& r : rows) {
    if (!r.status.ok() || r.gpus <= 0) continue;
    const double v = get(r);
    if (!(v > 0)) return false;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  return lo > 0 && hi / lo >= 30;
}

}  // namespace

absl::StatusOr<std::string> ScaleChartSvg(const PlanRequest& request,
                                          absl::Span<const int64_t> gpu_counts) {
  if (gpu_counts.empty()) return absl::InvalidArgumentError("gpus: give at least one cluster size");
  std::vector<int64_t> given(gpu_counts.begin(), gpu_counts.end());
  std::sort(given.begin(), given.end());
  given.erase(std::unique(given.begin(), given.end()), given.end());
  int64_t lo = given.front(), hi = given.back();

  // The largest cluster under the request's caps, when it sets any.
  absl::StatusOr<Plan> plan = SolvePlan(request);
  const bool capped = plan.ok() && plan->counts().gpu_count() > 0 &&
                      plan->binding_constraint() != BINDING_CONSTRAINT_NONE &&
                      plan->binding_constraint() != BINDING_CONSTRAINT_UNSPECIFIED;
  std::vector<int64_t> extra = given;
  if (capped) {
    const auto g = static_cast<int64_t>(plan->counts().gpu_count());
    lo = std::min(lo, g);
    hi = std::max(hi, g);
    extra.push_back(g);
  }
  const std::vector<int64_t> sizes = lo == hi ? extra : DenseSizes(lo, hi, 240, extra);
  DCPLAN_ASSIGN_OR_RETURN(ScaleReport report, Scale(request, sizes));

  double max_flops = 0, max_watts = 0;
  for (const ScaleRow& r : report.rows()) {
    max_flops = std::max(max_flops, r.compute().peak_flops_per_second());
    max_watts = std::max(max_watts, r.power().facility_power_watts());
  }
  const auto [flops_scale, flops_prefix] = SiPrefix(max_flops);
  const auto [watts_scale, watts_prefix] = SiPrefix(max_watts);

  Chart chart;
  chart.title =
      absl::StrCat(report.name().empty() ? "dcplan" : report.name(), ": scaling a cluster");
  chart.x_label = "Cluster size (GPUs, log scale)";
  ChartPanel compute, mfu, power;
  compute.y_label = absl::StrCat("Compute (", flops_prefix, "FLOP/s)");
  compute.log_y = true;
  mfu.y_label = "MFU (%)";
  power.y_label = absl::StrCat("Power (", watts_prefix, "W)");
  power.log_y = true;
  AddScaleSeries(report, given, flops_scale, watts_scale, &compute, &mfu, &power);

  const ScaleRow& first = report.rows(0);
  std::string subtitle = absl::StrCat(first.compute().efficiency_model(), "; PUE ",
                                      absl::StrFormat("%g", first.power().pue()),
                                      "; dots at --gpus=", absl::StrJoin(given, ","));
  if (capped) AddCap(request, *plan, watts_scale, &chart, &power, &subtitle);
  chart.subtitle = subtitle;
  chart.panels = {compute, mfu, power};
  return RenderSvg(chart);
}

absl::StatusOr<std::string> SweepChartSvg(const Sweep& sweep, const PlanRequest& base,
                                          const std::vector<SweepRow>& rows) {
  const std::vector<SweepAxis>& axes = sweep.axes();
  // The x axis: the last numeric axis (what the user varied). Every other axis makes the series.
  int xa = -1;
  for (int a = static_cast<int>(axes.size()) - 1; a >= 0 && xa < 0; --a) {
    if (!axes[a].is_preset()) xa = a;
  }
  if (xa < 0) {
    return absl::InvalidArgumentError(
        "--format=svg plots the figures against a numeric axis, and this sweep varies only the "
        "preset: compare presets with `dcplan compare --presets=...`, or add an axis to plot "
        "against, e.g. --vary=power=10MW:1GW:log20");
  }
  const SweepAxis& x_axis = axes[xa];
  const int64_t along = x_axis.size();
  const int64_t curves = sweep.size() / along;
  if (curves > kMaxCurves) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--format=svg draws at most %d series (one per combination of the axes other than the "
        "x axis, %s), got %d: sweep fewer values of the other axes, or write CSV",
        kMaxCurves, x_axis.path, curves));
  }
  const XAxisUnit xu = XAxisOf(x_axis, base);
  double xlo = 0, xhi = 0;
  for (double v : x_axis.values) {
    xlo = xlo == 0 ? v : std::min(xlo, v);
    xhi = std::max(xhi, v);
  }
  const bool log_x = xlo > 0 && xhi / xlo >= 30;

  auto gpus = [](const SweepRow& r) { return static_cast<double>(r.gpus); };
  auto realized = [](const SweepRow& r) { return units::InFlopsPerSecond(r.realized); };
  auto capex = [](const SweepRow& r) { return units::InUsd(r.capex); };
  const auto [flops_scale, flops_prefix] = SiPrefix(MaxOf(rows, realized));
  const double max_capex = MaxOf(rows, capex);
  const auto [money_scale, money_prefix] = MoneyPrefix(max_capex);

  // The series' names: the other axes' values ("h100-dgx", "pue 1.2", "h100-dgx, pue 1.2").
  std::vector<int> others;
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    if (a != xa) others.push_back(a);
  }
  // Point p's series: the other axes' indices in grid order, as one number.
  auto series_of = [&](int64_t p) {
    int64_t s = 0;
    for (int a : others) s = s * axes[a].size() + sweep.IndexAlong(p, a);
    return s;
  };
  std::vector<std::string> names(static_cast<size_t>(curves));
  for (int64_t p = 0; p < sweep.size(); ++p) {
    std::string& name = names[static_cast<size_t>(series_of(p))];
    if (!name.empty() || others.empty()) continue;
    std::vector<std::string> parts;
    for (int a : others) {
      parts.push_back(absl::StrCat(axes[a].is_preset() ? "" : ShortName(axes[a].path) + " ",
                                   AxisValueLabel(axes[a], sweep.IndexAlong(p, a))));
    }
    name = absl::StrJoin(parts, ", ");
  }

  Chart chart;
  const bool show_capex = max_capex > 0;
  const std::string figures =
      show_capex ? "GPUs, realized compute and capex" : "GPUs and realized compute";
  std::string what;  // ", three presets", ", two values of pue"
  if (curves > 1) {
    if (others.size() == 1 && axes[others[0]].is_preset()) {
      what = absl::StrCat(", ", CountWord(curves), " presets");
    } else if (others.size() == 1) {
      what = absl::StrCat(", ", CountWord(curves), " values of ", ShortName(axes[others[0]].path));
    } else {
      what = absl::StrCat(", ", CountWord(curves), " series");
    }
  }
  bool preset_axis = false;
  for (const SweepAxis& a : axes) preset_axis |= a.is_preset();
  chart.title = absl::StrCat(preset_axis || base.name().empty() ? "" : base.name() + ": ", figures,
                             " vs ", xu.name, what);
  const std::string unit_text = xu.unit.empty() ? "" : xu.unit;
  if (log_x || !unit_text.empty()) {
    chart.x_label = absl::StrCat(
        std::string(1, static_cast<char>(absl::ascii_toupper(xu.name[0]))), xu.name.substr(1), " (",
        unit_text, unit_text.empty() || !log_x ? "" : ", ", log_x ? "log scale" : "", ")");
  } else {
    chart.x_label = absl::StrCat(std::string(1, static_cast<char>(absl::ascii_toupper(xu.name[0]))),
                                 xu.name.substr(1));
  }
  chart.log_x = log_x;
  chart.subtitle = absl::StrCat(
      sweep.size(), " points; ", x_axis.path, " from ", AxisValueLabel(x_axis, 0), " to ",
      AxisValueLabel(x_axis, along - 1), "; dot shapes show the cap that binds");
  const int64_t failed =
      std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.status.ok(); });
  if (failed > 0) {
    absl::StrAppend(&chart.subtitle, "; ", failed, " of ", sweep.size(),
                    " points failed and are not drawn (the CSV says why)");
  }
  ChartPanel gpu_panel, compute_panel, capex_panel;
  gpu_panel.y_label = "GPUs";
  gpu_panel.log_y = WantsLog(rows, gpus);
  compute_panel.y_label = absl::StrCat("Realized compute (", flops_prefix, "FLOP/s)");
  compute_panel.log_y = WantsLog(rows, realized);
  capex_panel.y_label = absl::StrCat("Capex ($", money_prefix, ")");
  capex_panel.log_y = WantsLog(rows, capex);

  std::vector<ChartSeries> g_series, c_series, k_series;
  for (int64_t c = 0; c < curves; ++c) {
    const char* color = kPalette[c % kMaxCurves];
    const std::string label = curves == 1 ? "" : names[static_cast<size_t>(c)];
    for (auto* v : {&g_series, &c_series, &k_series}) {
      ChartSeries s = Series(label, color, false);
      s.markers = true;
      // Series that coincide stay visible: each is drawn narrower than the one before.
      s.width = std::max(1.0, 4.0 - 0.6 * static_cast<double>(c));
      v->push_back(s);
    }
  }
  std::map<std::string, std::vector<std::string>> shapes;  // shape -> binding names seen
  std::vector<BindingConstraint> previous(static_cast<size_t>(curves),
                                          BINDING_CONSTRAINT_UNSPECIFIED);
  for (int64_t p = 0; p < sweep.size(); ++p) {
    const SweepRow& r = rows[static_cast<size_t>(p)];
    if (!r.status.ok() || r.gpus <= 0) continue;
    const int64_t c = series_of(p);
    const int64_t j = sweep.IndexAlong(p, xa);
    const double x = x_axis.values[static_cast<size_t>(j)] / xu.scale;
    const char* shape = ShapeOf(r.binding);
    std::vector<std::string>& bound = shapes[shape];
    if (std::find(bound.begin(), bound.end(), BindingName(r.binding)) == bound.end()) {
      bound.push_back(BindingName(r.binding));
    }
    BindingConstraint& before = previous[static_cast<size_t>(c)];
    // Long curves get a dot every few points (and wherever the binding cap changes).
    const bool dot = along <= 120 || j % (along / 60) == 0 || r.binding != before;
    g_series[c].points.emplace_back(x, gpus(r));
    c_series[c].points.emplace_back(x, realized(r) / flops_scale);
    k_series[c].points.emplace_back(x, capex(r) / money_scale);
    for (auto* v : {&g_series, &c_series, &k_series})
      (*v)[c].shapes.push_back(dot ? shape : "none");
    if (c == 0 && before != BINDING_CONSTRAINT_UNSPECIFIED && r.binding != before &&
        chart.markers.size() < 4) {
      ChartMarker m;
      m.x = x;
      m.label = absl::StrCat(BindingName(r.binding), " binds from ", AxisValueLabel(x_axis, j));
      m.color = kCapColor;
      chart.markers.push_back(m);
    }
    before = r.binding;
  }
  gpu_panel.series = std::move(g_series);
  compute_panel.series = std::move(c_series);
  capex_panel.series = std::move(k_series);
  for (const auto& [shape, bound] : shapes) {
    chart.shapes.push_back({shape, absl::StrCat(absl::StrJoin(bound, " / "), " binds")});
  }
  chart.panels = {gpu_panel, compute_panel};
  if (show_capex) chart.panels.push_back(capex_panel);
  return RenderSvg(chart);
}

}  // namespace dcplan::cli
