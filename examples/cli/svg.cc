#include "examples/cli/svg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "units/si_prefix.h"

namespace dcplan::cli {
namespace {

// Layout, in SVG user units (pixels).
constexpr double kWidth = 1100;
constexpr double kLeft = 90;  // room for the y tick labels and the y axis label
constexpr double kPlotWidth = 680;
constexpr double kLegendLeft = kLeft + kPlotWidth + 25;
constexpr double kTop = 80;  // title and subtitle above
constexpr double kPanelHeight = 210;
constexpr double kPanelGap = 60;  // x tick labels (and the x label) under each panel
constexpr char kFont[] = "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\"";

// One axis: its range and how values map onto it.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in data units; for a log axis, powers of ten

  double Fraction(double v) const {
    if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return (v - lo) / (hi - lo);
  }
  bool Shows(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

// 1, 2 or 5 times a power of ten, at least `raw`.
double NiceStep(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  }
  return 10 * p;
}

Axis MakeAxis(bool log, double min, double max, bool from_zero) {
  Axis a;
  a.log = log;
  if (!(min <= max)) {  // no data
    min = log ? 1 : 0;
    max = log ? 10 : 1;
  }
  if (log) {
    a.lo = std::pow(10.0, std::floor(std::log10(min) + 1e-9));
    a.hi = std::pow(10.0, std::ceil(std::log10(max) - 1e-9));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    return a;
  }
  if (from_zero && min > 0) min = 0;
  if (max == min) {
    max = min == 0 ? 1 : min + std::abs(min) * 0.5;
    min = min == 0 ? 0 : min - std::abs(min) * 0.5;
  }
  const double step = NiceStep((max - min) / 5);
  a.lo = std::floor(min / step + 1e-9) * step;
  a.hi = std::ceil(max / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  return a;
}

// Major ticks (with labels) and minor ticks (gridlines only).
void Ticks(const Axis& a, std::vector<double>* major, std::vector<double>* minor) {
  if (a.log) {
    const int lo = static_cast<int>(std::lround(std::log10(a.lo)));
    const int hi = static_cast<int>(std::lround(std::log10(a.hi)));
    // Many decades: label every second or third one.
    const int every = hi - lo > 12 ? 3 : hi - lo > 7 ? 2 : 1;
    for (int k = lo; k <= hi; ++k) {
      const double d = std::pow(10.0, k);
      ((k - lo) % every == 0 ? major : minor)->push_back(d);
      if (k < hi && hi - lo <= 7) {
        for (int m = 2; m <= 9; ++m) minor->push_back(m * d);
      }
    }
    return;
  }
  const double step = NiceStep((a.hi - a.lo) / 5);
  for (double v = a.lo; v <= a.hi + step * 1e-6; v += step) {
    major->push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
}

std::string Num(double v) { return absl::StrFormat("%.2f", v); }

// A marker of `shape` centred at (x, y), `r` across from its centre to its edge (about).
std::string Marker(const std::string& shape, double x, double y, const std::string& color,
                   double r = 3.5) {
  const std::string fill =
      absl::StrCat("fill=\"", color, "\" stroke=\"white\" stroke-width=\"0.8\"");
  if (shape == "square") {
    return absl::StrCat("<rect x=\"", Num(x - r), "\" y=\"", Num(y - r), "\" width=\"", Num(2 * r),
                        "\" height=\"", Num(2 * r), "\" ", fill, "/>\n");
  }
  if (shape == "triangle") {
    const double t = r * 1.3;
    return absl::StrCat("<path d=\"M", Num(x), " ", Num(y - t), " L", Num(x + t), " ", Num(y + r),
                        " L", Num(x - t), " ", Num(y + r), " Z\" ", fill, "/>\n");
  }
  if (shape == "diamond") {
    const double d = r * 1.4;
    return absl::StrCat("<path d=\"M", Num(x), " ", Num(y - d), " L", Num(x + d), " ", Num(y), " L",
                        Num(x), " ", Num(y + d), " L", Num(x - d), " ", Num(y), " Z\" ", fill,
                        "/>\n");
  }
  return absl::StrCat("<circle cx=\"", Num(x), "\" cy=\"", Num(y), "\" r=\"", Num(r), "\" ", fill,
                      "/>\n");
}

std::string Text(double x, double y, const std::string& text, const std::string& extra) {
  return absl::StrCat("<text x=\"", Num(x), "\" y=\"", Num(y), "\" ", extra, ">", XmlEscape(text),
                      "</text>\n");
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string TickLabel(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  const char* sign = v < 0 ? "-" : "";
  struct Suffix {
    double scale;
    const char* name;
  };
  for (const Suffix& s :
       {Suffix{1e12, "T"}, Suffix{1e9, "G"}, Suffix{1e6, "M"}, Suffix{1e3, "K"}}) {
    if (a >= s.scale) return absl::StrCat(sign, absl::StrFormat("%g", a / s.scale), s.name);
  }
  return absl::StrCat(sign, absl::StrFormat("%g", a));
}

std::pair<double, std::string> SiPrefix(double max) {
  const std::optional<units::SiPrefix> p = units::LargestSiPrefixUpTo(max);
  if (!p.has_value()) return {1.0, ""};
  return {p->factor, std::string(1, p->letter)};
}

// Where one panel sits and how its values map to pixels.
struct PanelFrame {
  int index = 0;
  double top = 0, bottom = 0;
  Axis x, y;
  std::vector<double> x_major, x_minor, y_major, y_minor;
  std::string clip;  // the id of the plot area's clip path

  double Px(double v) const { return kLeft + x.Fraction(v) * kPlotWidth; }
  double Py(double v) const { return bottom - y.Fraction(v) * kPanelHeight; }
};

// The x axis all panels share: it covers every panel's points and the markers.
Axis SharedXAxis(const Chart& chart) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  auto see_x = [&](double x) {
    if (!std::isfinite(x) || (chart.log_x && x <= 0)) return;
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
  };
  for (const ChartPanel& p : chart.panels) {
    for (const ChartSeries& s : p.series) {
      for (const auto& [x, y] : s.points) see_x(x);
    }
  }
  for (const ChartMarker& m : chart.markers) see_x(m.x);
  return MakeAxis(chart.log_x, xmin, xmax, false);
}

// Panel `index`'s frame: its place, the shared x axis and a y axis over what it shows.
PanelFrame MakePanelFrame(const Chart& chart, int index, const Axis& xaxis) {
  const ChartPanel& panel = chart.panels[index];
  PanelFrame f;
  f.index = index;
  f.top = kTop + index * (kPanelHeight + kPanelGap);
  f.bottom = f.top + kPanelHeight;
  f.x = xaxis;
  Ticks(f.x, &f.x_major, &f.x_minor);
  double ymin = std::numeric_limits<double>::infinity(), ymax = -ymin;
  auto see_y = [&](double y) {
    if (!std::isfinite(y) || (panel.log_y && y <= 0)) return;
    ymin = std::min(ymin, y);
    ymax = std::max(ymax, y);
  };
  for (const ChartSeries& s : panel.series) {
    for (const auto& [x, y] : s.points) {
      if (xaxis.Shows(x)) see_y(y);
    }
  }
  for (const ChartLine& l : panel.lines) see_y(l.y);
  f.y = MakeAxis(panel.log_y, ymin, ymax, panel.y_from_zero);
  Ticks(f.y, &f.y_major, &f.y_minor);
  f.clip = absl::StrCat("plot", index);
  return f;
}

// The grid, tick labels, frame and axis labels of one panel.
void AppendPanelAxes(const Chart& chart, const ChartPanel& panel, const PanelFrame& f,
                     std::string* svg) {
  // Grid: minor lines lighter than major ones.
  for (double x : f.x_minor) {
    absl::StrAppend(svg, "<line x1=\"", Num(f.Px(x)), "\" y1=\"", Num(f.top), "\" x2=\"",
                    Num(f.Px(x)), "\" y2=\"", Num(f.bottom), "\" stroke=\"#f0f0f0\"/>\n");
  }
  for (double y : f.y_minor) {
    absl::StrAppend(svg, "<line x1=\"", Num(kLeft), "\" y1=\"", Num(f.Py(y)), "\" x2=\"",
                    Num(kLeft + kPlotWidth), "\" y2=\"", Num(f.Py(y)), "\" stroke=\"#f0f0f0\"/>\n");
  }
  for (double x : f.x_major) {
    absl::StrAppend(svg, "<line x1=\"", Num(f.Px(x)), "\" y1=\"", Num(f.top), "\" x2=\"",
                    Num(f.Px(x)), "\" y2=\"", Num(f.bottom), "\" stroke=\"#d8d8d8\"/>\n");
    absl::StrAppend(svg, Text(f.Px(x), f.bottom + 16, TickLabel(x),
                              absl::StrCat(kFont, " font-size=\"11\" text-anchor=\"middle\"")));
  }
  for (double y : f.y_major) {
    absl::StrAppend(svg, "<line x1=\"", Num(kLeft), "\" y1=\"", Num(f.Py(y)), "\" x2=\"",
                    Num(kLeft + kPlotWidth), "\" y2=\"", Num(f.Py(y)), "\" stroke=\"#d8d8d8\"/>\n");
    absl::StrAppend(svg, Text(kLeft - 6, f.Py(y) + 4, TickLabel(y),
                              absl::StrCat(kFont, " font-size=\"11\" text-anchor=\"end\"")));
  }
  absl::StrAppend(svg, "<rect x=\"", Num(kLeft), "\" y=\"", Num(f.top), "\" width=\"",
                  Num(kPlotWidth), "\" height=\"", Num(kPanelHeight),
                  "\" fill=\"none\" stroke=\"#444\"/>\n");
  // The y label, rotated along the axis.
  const double ylx = kLeft - 62, yly = f.top + kPanelHeight / 2;
  absl::StrAppend(svg, Text(ylx, yly, panel.y_label,
                            absl::StrCat(kFont,
                                         " font-size=\"13\" text-anchor=\"middle\" "
                                         "transform=\"rotate(-90 ",
                                         Num(ylx), " ", Num(yly), ")\"")));
  // The x label under every panel: each reads on its own.
  absl::StrAppend(svg, Text(kLeft + kPlotWidth / 2, f.bottom + 36, chart.x_label,
                            absl::StrCat(kFont, " font-size=\"13\" text-anchor=\"middle\"")));
}

// One panel's lines, series and markers, clipped to the plot.
void AppendPanelData(const Chart& chart, const ChartPanel& panel, const PanelFrame& f,
                     std::string* svg) {
  // Data, clipped to the plot.
  absl::StrAppend(svg, "<g clip-path=\"url(#", f.clip, ")\">\n");
  for (const ChartLine& l : panel.lines) {
    if (!f.y.Shows(l.y)) continue;
    absl::StrAppend(svg, "<line x1=\"", Num(kLeft), "\" y1=\"", Num(f.Py(l.y)), "\" x2=\"",
                    Num(kLeft + kPlotWidth), "\" y2=\"", Num(f.Py(l.y)), "\" stroke=\"", l.color,
                    "\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n");
  }
  for (const ChartSeries& s : panel.series) {
    std::string path;
    bool pen_down = false;
    for (const auto& [x, y] : s.points) {
      if (!f.x.Shows(x) || !f.y.Shows(y)) {
        pen_down = false;
        continue;
      }
      absl::StrAppend(&path, pen_down ? " L" : (path.empty() ? "M" : " M"), Num(f.Px(x)), " ",
                      Num(f.Py(y)));
      pen_down = true;
    }
    if (!path.empty() && s.line) {
      absl::StrAppend(svg, "<path d=\"", path, "\" fill=\"none\" stroke=\"", s.color,
                      "\" stroke-width=\"", Num(s.width), "\"",
                      s.dashed ? " stroke-dasharray=\"6 4\"" : "", "/>\n");
    }
    if (s.markers) {
      for (size_t i = 0; i < s.points.size(); ++i) {
        const auto& [x, y] = s.points[i];
        if (!f.x.Shows(x) || !f.y.Shows(y)) continue;
        if (i < s.shapes.size() && s.shapes[i] == "none") continue;
        absl::StrAppend(svg, Marker(i < s.shapes.size() ? s.shapes[i] : "circle", f.Px(x), f.Py(y),
                                    s.color, 1.5 + s.width));
      }
    }
  }
  for (const ChartMarker& m : chart.markers) {
    if (!f.x.Shows(m.x)) continue;
    absl::StrAppend(svg, "<line x1=\"", Num(f.Px(m.x)), "\" y1=\"", Num(f.top), "\" x2=\"",
                    Num(f.Px(m.x)), "\" y2=\"", Num(f.bottom), "\" stroke=\"", m.color,
                    "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n");
  }
  absl::StrAppend(svg, "</g>\n");
}

// Marker labels on the first panel, beside the line; line labels at the right end.
void AppendPanelLabels(const Chart& chart, const ChartPanel& panel, const PanelFrame& f,
                       std::string* svg) {
  if (f.index == 0) {
    int k = 0;
    for (const ChartMarker& m : chart.markers) {
      if (!f.x.Shows(m.x)) continue;
      const double x = f.Px(m.x);
      const bool left = x > kLeft + kPlotWidth * 0.6;
      absl::StrAppend(svg, Text(left ? x - 5 : x + 5, f.top + 14 + 14 * (k++ % 3), m.label,
                                absl::StrCat(kFont, " font-size=\"11\" fill=\"", m.color, "\"",
                                             left ? " text-anchor=\"end\"" : "")));
    }
  }
  for (const ChartLine& l : panel.lines) {
    if (!f.y.Shows(l.y)) continue;
    absl::StrAppend(svg, Text(kLeft + 6, f.Py(l.y) - 5, l.label,
                              absl::StrCat(kFont, " font-size=\"11\" fill=\"", l.color, "\"")));
  }
}

// The legend, right of the plot: the series, the lines and (first panel) the markers.
void AppendPanelLegend(const Chart& chart, const ChartPanel& panel, const PanelFrame& f,
                       std::string* svg) {
  double ly = f.top + 12;
  for (const ChartSeries& s : panel.series) {
    if (s.name.empty()) continue;
    if (s.line) {
      absl::StrAppend(svg, "<line x1=\"", Num(kLegendLeft), "\" y1=\"", Num(ly - 4), "\" x2=\"",
                      Num(kLegendLeft + 26), "\" y2=\"", Num(ly - 4), "\" stroke=\"", s.color,
                      "\" stroke-width=\"2\"", s.dashed ? " stroke-dasharray=\"6 4\"" : "", "/>\n");
    }
    if (s.markers) absl::StrAppend(svg, Marker("circle", kLegendLeft + 13, ly - 4, s.color));
    absl::StrAppend(svg,
                    Text(kLegendLeft + 34, ly, s.name, absl::StrCat(kFont, " font-size=\"12\"")));
    ly += 18;
  }
  for (const ChartLine& l : panel.lines) {
    absl::StrAppend(svg, "<line x1=\"", Num(kLegendLeft), "\" y1=\"", Num(ly - 4), "\" x2=\"",
                    Num(kLegendLeft + 26), "\" y2=\"", Num(ly - 4), "\" stroke=\"", l.color,
                    "\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n");
    absl::StrAppend(svg,
                    Text(kLegendLeft + 34, ly, l.label, absl::StrCat(kFont, " font-size=\"12\"")));
    ly += 18;
  }
  if (f.index == 0) {
    for (const ChartMarker& m : chart.markers) {
      absl::StrAppend(svg, "<line x1=\"", Num(kLegendLeft + 13), "\" y1=\"", Num(ly - 12),
                      "\" x2=\"", Num(kLegendLeft + 13), "\" y2=\"", Num(ly + 2), "\" stroke=\"",
                      m.color,
                      "\" stroke-width=\"1.5\" "
                      "stroke-dasharray=\"5 3\"/>\n");
      absl::StrAppend(
          svg, Text(kLegendLeft + 34, ly, m.label, absl::StrCat(kFont, " font-size=\"12\"")));
      ly += 18;
    }
  }
}

// The key of the marker shapes, under the panels.
void AppendShapesKey(const Chart& chart, std::string* svg) {
  const int n = static_cast<int>(chart.panels.size());
  if (!chart.shapes.empty()) {
    double x = kLeft;
    const double y = kTop + n * (kPanelHeight + kPanelGap) + 12;
    absl::StrAppend(svg, Text(x, y + 4, "Markers:", absl::StrCat(kFont, " font-size=\"12\"")));
    x += 62;
    for (const ChartShape& s : chart.shapes) {
      absl::StrAppend(svg, Marker(s.shape, x, y, "#555"));
      absl::StrAppend(svg, Text(x + 9, y + 4, s.label, absl::StrCat(kFont, " font-size=\"12\"")));
      x += 20 + 6.5 * static_cast<double>(s.label.size());
    }
  }
}

std::string RenderSvg(const Chart& chart) {
  const Axis xaxis = SharedXAxis(chart);
  const int n = static_cast<int>(chart.panels.size());
  const double shapes_height = chart.shapes.empty() ? 0 : 30;
  const double height = kTop + n * (kPanelHeight + kPanelGap) + 20 + shapes_height;
  std::string svg = absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"", Num(kWidth),
      "\" height=\"", Num(height), "\" viewBox=\"0 0 ", Num(kWidth), " ", Num(height), "\">\n",
      "<title>", XmlEscape(chart.title), "</title>\n", "<rect x=\"0\" y=\"0\" width=\"",
      Num(kWidth), "\" height=\"", Num(height), "\" fill=\"white\"/>\n");
  absl::StrAppend(&svg, Text(kLeft, 30, chart.title,
                             absl::StrCat(kFont, " font-size=\"18\" font-weight=\"bold\"")));
  if (!chart.subtitle.empty()) {
    absl::StrAppend(&svg, Text(kLeft, 52, chart.subtitle,
                               absl::StrCat(kFont, " font-size=\"12\" fill=\"#444\"")));
  }

  for (int pi = 0; pi < n; ++pi) {
    const ChartPanel& panel = chart.panels[pi];
    const PanelFrame f = MakePanelFrame(chart, pi, xaxis);
    absl::StrAppend(&svg, "<g>\n<clipPath id=\"", f.clip, "\"><rect x=\"", Num(kLeft), "\" y=\"",
                    Num(f.top), "\" width=\"", Num(kPlotWidth), "\" height=\"", Num(kPanelHeight),
                    "\"/></clipPath>\n");
    AppendPanelAxes(chart, panel, f, &svg);
    AppendPanelData(chart, panel, f, &svg);
    AppendPanelLabels(chart, panel, f, &svg);
    AppendPanelLegend(chart, panel, f, &svg);
    absl::StrAppend(&svg, "</g>\n");
  }
  AppendShapesKey(chart, &svg);
  absl::StrAppend(&svg, "</svg>\n");
  return svg;
}

}  // namespace dcplan::cli
