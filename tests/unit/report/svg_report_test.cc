// The attribution report in SVG: well-formed, self-contained, one bar per category and
// side.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <pugixml.hpp>
#include <string>

#include "perfgate/report/formats.h"
#include "support/report_render.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Parsed {
  pugi::xml_document doc;
  pugi::xml_parse_result result;
};

void Parse(const std::string& svg, Parsed& p) { p.result = p.doc.load_string(svg.c_str()); }

size_t Count(const pugi::xml_document& doc, const char* xpath) {
  return doc.select_nodes(xpath).size();
}

TEST(SvgReport, WellFormedAndSelfContained) {
  std::string svg = RenderSvg(testdata::Iter22());
  Parsed p;
  Parse(svg, p);
  ASSERT_TRUE(p.result) << p.result.description() << " at offset " << p.result.offset;
  pugi::xml_node root = p.doc.document_element();
  EXPECT_STREQ(root.name(), "svg");
  EXPECT_STREQ(root.attribute("xmlns").value(), "http://www.w3.org/2000/svg");
  EXPECT_STREQ(root.attribute("font-family").value(), "sans-serif");
  EXPECT_EQ(Count(p.doc, "//script"), 0u);
  EXPECT_EQ(Count(p.doc, "//style"), 0u);
  EXPECT_EQ(Count(p.doc, "//*[@href]"), 0u);
  EXPECT_THAT(svg, Not(HasSubstr("url(")));
  EXPECT_THAT(svg, Not(HasSubstr("@font-face")));
  EXPECT_THAT(svg, Not(HasSubstr("xlink")));
}

TEST(SvgReport, OneBarPerCategoryAndSide) {
  Parsed p;
  Parse(RenderSvg(testdata::Iter22()), p);
  ASSERT_TRUE(p.result);
  // 5 buckets + 3 phases, engine and baseline each.
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-engine']"), 8u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-baseline']"), 8u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='legend-swatch']"), 4u);  // both sides, over each of the two charts
  // Value labels beside the bars, and axis ticks.
  EXPECT_EQ(Count(p.doc, "//text[.='9703.2']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[.='8930.3']"), 1u);
  EXPECT_GE(Count(p.doc, "//g[@class='axis']/line"), 4u);
  EXPECT_EQ(Count(p.doc, "//g[@class='axis']/text[.='10000']"), 2u);  // both charts reach 10,000
}

TEST(SvgReport, BarLengthsFollowTheValues) {
  Parsed p;
  Parse(RenderSvg(testdata::Iter22()), p);
  ASSERT_TRUE(p.result);
  auto width = [&](const char* cls, const char* category) {
    std::string xpath = std::string("//g[title='") + category + "']/rect[@class='" + cls + "']";
    pugi::xpath_node n = p.doc.select_node(xpath.c_str());
    EXPECT_TRUE(n) << xpath;
    return n.node().attribute("width").as_double(-1);
  };
  double xl_e = width("bar-engine", "xl_>=80us");
  double xl_b = width("bar-baseline", "xl_>=80us");
  EXPECT_GT(xl_e, xl_b);
  EXPECT_NEAR(xl_e / xl_b, 9703.2 / 8930.3, 0.01);
  EXPECT_LE(xl_e, 540.0);
  EXPECT_EQ(width("bar-engine", "xs_<2us"), 0.0);
  // The phase chart: Command Buffer 0 is large on the baseline side only.
  EXPECT_GT(width("bar-baseline", "Command Buffer 0"), width("bar-engine", "Command Buffer 0"));
}

TEST(SvgReport, TopTenPhasesByEitherSide) {
  Report r = testdata::Iter22();
  for (int i = 0; i < 12; ++i) {
    r.comparison->phases.push_back(testdata::D("phase." + std::to_string(i), 0.0, 100.0 + i));
  }
  Parsed p;
  Parse(RenderSvg(r), p);
  ASSERT_TRUE(p.result);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-engine']"), 5u + 10u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-baseline']"), 5u + 10u);
  // Ranked by the larger of the two sides: a baseline-only phase makes the cut.
  EXPECT_EQ(Count(p.doc, "//g[title='phase.11']"), 1u);
  EXPECT_EQ(Count(p.doc, "//g[title='phase.0']"), 0u);
}

TEST(SvgReport, EngineOnly) {
  Parsed p;
  Parse(RenderSvg(testdata::EngineOnly()), p);
  ASSERT_TRUE(p.result);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-engine']"), 8u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-baseline']"), 0u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='legend-swatch']"), 2u);  // the engine, over each of the two charts
}

TEST(SvgReport, LabelsAreEscaped) {
  Report r = testdata::Iter22();
  const std::string label = "a<b & \"c\" 'd'";
  r.comparison->phases.push_back(testdata::D(label, 5000.0, 1.0));
  std::string svg = RenderSvg(r);
  EXPECT_THAT(svg, HasSubstr("a&lt;b &amp; &quot;c&quot; &apos;d&apos;"));
  Parsed p;
  Parse(svg, p);
  ASSERT_TRUE(p.result) << p.result.description();
  bool found = false;
  for (auto n : p.doc.select_nodes("//g[@class='category']/title")) {
    found = found || label == n.node().child_value();
  }
  EXPECT_TRUE(found);
}

TEST(SvgReport, NothingSummarisedHasNoPictureAndSaysSo) {
  const StatusOr<std::string> svg = document::Render(AttributeDocument(Report{}), "svg");
  ASSERT_FALSE(svg.ok());
  EXPECT_THAT(svg.status().message(), HasSubstr("the report has no chart"));
}

TEST(SvgReport, TraceJsonNoteSaysWhatADispatchIs) {
  EXPECT_THAT(RenderSvg(testdata::Iter22()), HasSubstr("A submission is one GPU execution-point pair"));
  const std::string json = RenderSvg(testdata::Iter22FromTraceJson());
  EXPECT_THAT(json, HasSubstr("A dispatch is one GPU kernel event (memcpy and memset included)."));
  EXPECT_THAT(json, Not(HasSubstr("execution-point pair")));
  EXPECT_THAT(json, HasSubstr("GPU µs/token by kernel-duration bucket"));
  EXPECT_THAT(RenderSvg(testdata::Iter22()), HasSubstr("GPU µs/token by submission-duration bucket"));
}

TEST(SvgReport, DeltaChartsWithDeltaAndPPerRowAndTheAttackTarget) {
  Parsed p;
  Parse(RenderSvg(testdata::Iter22()), p);
  ASSERT_TRUE(p.result);
  // 5 bucket rows and 3 phase rows; xs_<2us (Δ 0) draws no bar.
  EXPECT_EQ(Count(p.doc, "//g[@class='delta-row']"), 8u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-delta regressed']"), 4u + 2u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='bar-delta improved']"), 1u);  // Command Buffer 0
  EXPECT_EQ(Count(p.doc, "//text[@class='delta-value'][.='+9.2 µs/tok (+255.6%), p 0.008']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[@class='delta-value'][.='+14.8 µs/tok (n/a), p 0.008']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[@class='delta-value'][.='+772.9 µs/tok (+8.7%), p 0.008']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[@class='attack-target-label'][.='attack target']"), 1u);
  EXPECT_EQ(Count(p.doc, "//rect[@class='attack-target']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[.='▶ xl_>=80us']"), 1u);
  // Signed log scale: md's +9.2 is log10(10.2) / log10(773.9) = 0.35 of xl's +772.9.
  auto width = [&](const char* name) {
    for (auto n : p.doc.select_nodes("//rect[starts-with(@class, 'bar-delta')]")) {
      if (std::string(n.node().child_value("title")).rfind(std::string(name) + ":", 0) == 0)
        return n.node().attribute("width").as_double(-1);
    }
    return -1.0;
  };
  EXPECT_NEAR(width("md_8_32us") / width("xl_>=80us"), std::log10(10.2) / std::log10(773.9), 0.01);
  EXPECT_EQ(Count(p.doc, "//text[.='Δ GPU µs/token by submission-duration bucket: hf2q − llama']"), 1u);
  EXPECT_EQ(Count(p.doc, "//text[.='Δ GPU µs/token by command-buffer phase (top 10 by |Δ|)']"), 1u);
  // No attack target, no band; no baseline, no Δ chart.
  Report none = testdata::Iter22();
  none.comparison->attack_target.reset();
  Parsed q;
  Parse(RenderSvg(none), q);
  EXPECT_EQ(Count(q.doc, "//rect[@class='attack-target']"), 0u);
  Parsed e;
  Parse(RenderSvg(testdata::EngineOnly()), e);
  EXPECT_EQ(Count(e.doc, "//g[@class='delta-row']"), 0u);
}

TEST(SvgReport, TraceJsonChartsSayAnnotationPhase) {
  const std::string svg = RenderSvg(testdata::Iter22FromTraceJson());
  EXPECT_THAT(svg, HasSubstr(">GPU µs/token by annotation phase (top 10)</text>"));
  EXPECT_THAT(svg, HasSubstr(">Δ GPU µs/token by annotation phase (top 10 by |Δ|)</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("command-buffer")));
}

}  // namespace
}  // namespace perfgate::report
