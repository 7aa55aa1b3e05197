// The SVG helpers and a small chart, checked against values worked out by hand (until now only
// tests/svg_test.sh, which checks that whole charts are well-formed XML, saw them).
#include "examples/cli/svg.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dcplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

TEST(XmlEscape, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

TEST(XmlEscape, BlanksControlCharactersXmlForbidsButKeepsTabAndNewline) {
  EXPECT_EQ(XmlEscape(std::string("a\x01"
                                  "b\tc\nd\x1b")),
            "a b\tc\nd ");
}

TEST(TickLabel, UsesKMGTSuffixesAndShortNumbers) {
  EXPECT_EQ(TickLabel(0), "0");
  EXPECT_EQ(TickLabel(1), "1");
  EXPECT_EQ(TickLabel(100), "100");
  EXPECT_EQ(TickLabel(1000), "1K");
  EXPECT_EQ(TickLabel(2500), "2.5K");
  EXPECT_EQ(TickLabel(10e6), "10M");
  EXPECT_EQ(TickLabel(3e9), "3G");
  EXPECT_EQ(TickLabel(5e12), "5T");
  EXPECT_EQ(TickLabel(0.001), "0.001");
  EXPECT_EQ(TickLabel(-2000), "-2K");
}

TEST(SiPrefix, PutsTheMaximumBetweenOneAndAThousand) {
  EXPECT_THAT(SiPrefix(999), Pair(1.0, ""));
  EXPECT_THAT(SiPrefix(1000), Pair(1e3, "k"));
  EXPECT_THAT(SiPrefix(45.9e6), Pair(1e6, "M"));      // 45.9 MW
  EXPECT_THAT(SiPrefix(3.2768e19), Pair(1e18, "E"));  // 32.8 EFLOP/s
  EXPECT_THAT(SiPrefix(1.2e22), Pair(1e18, "E"));     // E is the largest
}

Chart TwoPointChart() {
  Chart c;
  c.title = "A & B";
  c.x_label = "GPUs";
  c.log_x = false;
  ChartPanel panel;
  panel.y_label = "power (MW)";
  ChartSeries s;
  s.name = "seed";
  s.color = "#1f77b4";
  s.points = {{0, 0}, {10, 5}};
  panel.series.push_back(s);
  c.panels.push_back(panel);
  return c;
}

TEST(RenderSvg, WritesAStandaloneDocumentWithTheTitleEscaped) {
  const std::string svg = RenderSvg(TwoPointChart());
  EXPECT_THAT(svg, testing::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  EXPECT_THAT(svg, testing::EndsWith("</svg>\n"));
  EXPECT_THAT(svg, HasSubstr("<title>A &amp; B</title>"));
  EXPECT_THAT(svg, Not(HasSubstr("A & B")));
  EXPECT_THAT(svg, HasSubstr(">seed</text>"));  // the legend names the series
  EXPECT_THAT(svg, HasSubstr("stroke=\"#1f77b4\""));
}

TEST(RenderSvg, DrawsOnePathThroughTheSeriesPoints) {
  const std::string svg = RenderSvg(TwoPointChart());
  // One series drawn as a line: exactly one <path> (markers are not paths here).
  const size_t first = svg.find("<path d=\"M");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(svg.find("<path d=\"M", first + 1), std::string::npos);
  // Two points: one move and one line segment.
  const std::string path = svg.substr(first, svg.find('"', first + 9) - first);
  EXPECT_EQ(path.find(" L"), path.rfind(" L")) << path;
}

TEST(RenderSvg, EachPanelHasItsOwnClipPath) {
  Chart c = TwoPointChart();
  c.panels.push_back(c.panels[0]);
  const std::string svg = RenderSvg(c);
  EXPECT_THAT(svg, HasSubstr("<clipPath id=\"plot0\">"));
  EXPECT_THAT(svg, HasSubstr("<clipPath id=\"plot1\">"));
  EXPECT_THAT(svg, HasSubstr("clip-path=\"url(#plot1)\""));
}

}  // namespace
}  // namespace dcplan::cli
