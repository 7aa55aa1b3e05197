#include "examples/cli/charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "examples/cli/report.h"
#include "examples/cli/svg.h"
#include "planner/planner.h"
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

// Curve `c` of a sweep chart: the points along the last axis at one combination of the others,
// in compute, MFU and power, with dots shaped by the binding cap (`shapes`: shape -> the binding
// names it stands for). The first curve also marks where the binding cap changes.
void AddSweepCurve(const Sweep& sweep, const std::vector<SweepRow>& rows, int64_t c,
                   double flops_scale, double watts_scale, Chart* chart, ChartPanel* compute,
                   ChartPanel* mfu, ChartPanel* power,
                   std::map<std::string, std::vector<std::string>>* shapes) {
  const std::vector<SweepAxis>& axes = sweep.axes();
  const int last = static_cast<int>(axes.size()) - 1;
  const int64_t along = axes[last].size();
  const int64_t curves = sweep.size() / along;
  const char* color = kPalette[c % kMaxCurves];
  std::vector<std::string> parts;
  for (int a = 0; a < last; ++a) {
    parts.push_back(absl::StrCat(axes[a].is_preset() ? "" : ShortName(axes[a].path) + " ",
                                 AxisValueLabel(axes[a], sweep.IndexAlong(c * along, a))));
  }
  const std::string label = absl::StrJoin(parts, ", ");
  ChartSeries peak = Series(c == 0 ? "peak (dashed)" : "", color, true);
  ChartSeries realized = Series(curves == 1 ? "realized" : label, color, false);
  ChartSeries eff = Series(curves == 1 ? "MFU" : label, color, false);
  ChartSeries meter = Series(curves == 1 ? "at the meter" : label, color, false);
  // Curves over the same cluster sizes coincide in compute and MFU: each is drawn narrower than
  // the one before, on top of it, so all stay visible.
  const double width = std::max(1.0, 4.0 - 0.6 * static_cast<double>(c));
  for (ChartSeries* s : {&peak, &realized, &eff, &meter}) s->width = width;
  for (ChartSeries* s : {&realized, &eff, &meter}) s->markers = true;
  BindingConstraint previous = BINDING_CONSTRAINT_UNSPECIFIED;
  for (int64_t j = 0; j < along; ++j) {
    const SweepRow& r = rows[c * along + j];
    if (!r.status.ok() || r.gpus <= 0) continue;
    const double g = static_cast<double>(r.gpus);
    const char* shape = ShapeOf(r.binding);
    std::vector<std::string>& names = (*shapes)[shape];
    if (std::find(names.begin(), names.end(), BindingName(r.binding)) == names.end()) {
      names.push_back(BindingName(r.binding));
    }
    peak.points.emplace_back(g, units::InFlopsPerSecond(r.peak) / flops_scale);
    realized.points.emplace_back(g, units::InFlopsPerSecond(r.realized) / flops_scale);
    eff.points.emplace_back(g, 100.0 * units::InFraction(r.mfu));
    meter.points.emplace_back(g, units::InWatts(r.facility_power) / watts_scale);
    // Long curves get a dot every few points (and wherever the binding cap changes).
    const bool dot = along <= 120 || j % (along / 60) == 0 || r.binding != previous;
    for (ChartSeries* s : {&realized, &eff, &meter}) s->shapes.push_back(dot ? shape : "none");
    if (c == 0 && previous != BINDING_CONSTRAINT_UNSPECIFIED && r.binding != previous &&
        chart->markers.size() < 4) {
      ChartMarker m;
      m.x = g;
      m.label = absl::StrCat(BindingName(r.binding), " binds from ",
                             units::FormatCount(static_cast<uint64_t>(r.gpus)), " GPUs");
      m.color = kCapColor;
      chart->markers.push_back(m);
    }
    previous = r.binding;
  }
  compute->series.push_back(peak);
  compute->series.push_back(realized);
  mfu->series.push_back(eff);
  power->series.push_back(meter);
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

absl::StatusOr<std::string> SweepChartSvg(const Sweep& sweep, const std::string& title,
                                          const std::vector<SweepRow>& rows) {
  const std::vector<SweepAxis>& axes = sweep.axes();
  const int last = static_cast<int>(axes.size()) - 1;
  const int64_t along = axes[last].size();
  const int64_t curves = sweep.size() / along;
  if (curves > kMaxCurves) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--format=svg draws at most %d curves (one per value of the axes before the last), got "
        "%d: sweep fewer values of the outer axes, or write CSV",
        kMaxCurves, curves));
  }
  double max_flops = 0, max_watts = 0;
  for (const SweepRow& r : rows) {
    max_flops = std::max(max_flops, units::InFlopsPerSecond(r.peak));
    max_watts = std::max(max_watts, units::InWatts(r.facility_power));
  }
  const auto [flops_scale, flops_prefix] = SiPrefix(max_flops);
  const auto [watts_scale, watts_prefix] = SiPrefix(max_watts);

  Chart chart;
  chart.title = title;
  chart.x_label = "Cluster size (GPUs, log scale)";
  chart.subtitle =
      absl::StrCat(sweep.size(), " points; each curve follows ", axes[last].path, " from ",
                   AxisValueLabel(axes[last], 0), " to ", AxisValueLabel(axes[last], along - 1),
                   "; dot shapes show the cap that binds");
  const int64_t failed =
      std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r.status.ok(); });
  if (failed > 0) {
    absl::StrAppend(&chart.subtitle, "; ", failed, " of ", sweep.size(),
                    " points failed and are not drawn (the CSV says why)");
  }
  ChartPanel compute, mfu, power;
  compute.y_label = absl::StrCat("Compute (", flops_prefix, "FLOP/s)");
  compute.log_y = true;
  mfu.y_label = "MFU (%)";
  power.y_label = absl::StrCat("Power at the meter (", watts_prefix, "W)");
  power.log_y = true;

  std::map<std::string, std::vector<std::string>> shapes;  // shape -> binding names seen
  for (int64_t c = 0; c < curves; ++c) {
    AddSweepCurve(sweep, rows, c, flops_scale, watts_scale, &chart, &compute, &mfu, &power,
                  &shapes);
  }
  for (const auto& [shape, names] : shapes) {
    chart.shapes.push_back({shape, absl::StrCat(absl::StrJoin(names, " / "), " binds")});
  }
  chart.panels = {compute, mfu, power};
  return RenderSvg(chart);
}

}  // namespace dcplan::cli
