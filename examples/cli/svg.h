// File: examples/cli/svg.h
//
// Charts as standalone SVG files for `dcplan scale --format=svg` and `dcplan sweep --format=svg`:
// panels stacked over one shared x axis (log scale with a tick per decade, or linear), each with
// its own labelled y axis (log or linear) and legend, curves and point markers, horizontal
// reference lines (a power cap) and vertical markers across every panel (where a cap binds). The
// output is well-formed XML (text is escaped) with no script and no external reference, so any
// browser opens it as it is.
//
// Numbers come in already converted to the units the axis labels name ("Compute (EFLOP/s)"): this
// is printing, the one place where quantities become plain numbers.
//
// Example:
//   Chart chart;
//   chart.title = "seed: scaling a cluster";
//   chart.x_label = "Cluster size (GPUs)";
//   ChartPanel& mfu = chart.panels.emplace_back();
//   mfu.y_label = "MFU (%)";
//   ChartSeries& s = mfu.series.emplace_back();
//   s.name = "MFU";
//   s.color = "#2ca02c";
//   s.points = {{1, 62}, {8, 56}, {512, 44}};
//   std::string svg = RenderSvg(chart);
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dcplan::cli {

// One curve: a polyline through its points in the order given, with optional point markers.
struct ChartSeries {
  std::string name;   // legend text; empty = not in the legend
  std::string color;  // any SVG color, e.g. "#1f77b4"
  bool dashed = false;
  bool markers = false;  // a dot on every point
  bool line = true;      // false: markers only
  double width = 2;      // line width; markers grow with it (a wide curve stays visible under a
                         // narrower one drawn on top of it)
  // (x, y) in the axes' units. Points a log axis cannot show (<= 0) or that are not finite are
  // skipped, and break the line there.
  std::vector<std::pair<double, double>> points;
  // Per point (parallel to `points`, or empty): the marker's shape, "circle", "square",
  // "triangle", "diamond", or "none" for no marker on that point.
  std::vector<std::string> shapes;
};

// A horizontal line at `y` across a panel, e.g. a power cap.
struct ChartLine {
  double y = 0;
  std::string label;
  std::string color = "#d62728";
};

// A vertical dashed line at `x` across every panel, e.g. the largest cluster under the caps.
struct ChartMarker {
  double x = 0;
  std::string label;
  std::string color = "#d62728";
};

// An entry of the shape legend: what a marker shape means ("circle" = "facility power binds").
struct ChartShape {
  std::string shape;
  std::string label;
};

struct ChartPanel {
  std::string y_label;  // with its unit: "Power (MW)"
  bool log_y = false;
  bool y_from_zero = true;  // linear axes: start at 0 (else at the data's minimum)
  std::vector<ChartSeries> series;
  std::vector<ChartLine> lines;
};

struct Chart {
  std::string title;
  std::string subtitle;  // e.g. the preset and the caps
  std::string x_label;   // with its unit
  bool log_x = true;
  std::vector<ChartPanel> panels;
  std::vector<ChartMarker> markers;
  std::vector<ChartShape> shapes;  // legend of marker shapes, under the chart
};

// The chart as a standalone SVG document.
std::string RenderSvg(const Chart& chart);

// `text` with &, <, >, " and ' escaped for XML.
std::string XmlEscape(const std::string& text);

// A short tick label: 1, 10, 100, 1K, 10K, 1M, 0.1, 0.001, 2.5.
std::string TickLabel(double v);

// The SI prefix that puts `max` (> 0) in [1, 1000), between k and E: {1e18, "E"} for 1.2e19.
// Below 1000 it is {1, ""}.
std::pair<double, std::string> SiPrefix(double max);

}  // namespace dcplan::cli
