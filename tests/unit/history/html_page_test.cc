// The history's HTML page as text: what a reader must find in it (a change point's
// commits, magnitude and movers; every run), that nothing from the store becomes
// markup, that it fetches nothing, and the series it must still draw (none, one
// point, flat, non-finite, 10,000 points). The picture itself is checked in
// html_chromium_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "history/html_parts.h"
#include "perfgate/history/html.h"

namespace perfgate::history::html_page_test {
namespace {

// A 40-digit commit whose digits say which run it is (run 7: "c007c007...").
std::string HtmlTestCommit(int run) {
  char head[8];
  std::snprintf(head, sizeof head, "c%03d", run % 1000);
  std::string commit;
  while (commit.size() < 40) commit += head;
  return commit.substr(0, 40);
}

// A series of `medians` (run ids from `first_run`), each with three trials around it.
SeriesHistory HtmlTestSeries(const std::string& engine, const std::string& metric, Worse worse,
                             const std::vector<double>& medians, int first_run = 1) {
  SeriesHistory s;
  s.info.key = {"Decode", "q4_0", engine, metric};
  s.info.worse = worse;
  s.info.points = static_cast<int64_t>(medians.size());
  for (size_t i = 0; i < medians.size(); ++i) {
    const int run = first_run + static_cast<int>(i);
    Point p;
    p.run_id = run;
    p.time = "2026-12-05T10:" + std::string(i % 60 < 10 ? "0" : "") + std::to_string(i % 60) + ":00Z";
    p.commit = HtmlTestCommit(run);
    p.branch = "main";
    p.median = medians[i];
    p.samples = {medians[i] * 0.99, medians[i], medians[i] * 1.01};
    s.points.push_back(p);
  }
  return s;
}

// A change at `index` of `s` as AnalyseHistory places it.
Change HtmlTestChange(const SeriesHistory& s, int64_t index, double before, double after, bool worse) {
  Change c;
  c.point.index = index;
  c.point.mean_before = before;
  c.point.mean_after = after;
  c.point.pvalue = 0.0002;
  c.last_before = s.points[static_cast<size_t>(index) - 1];
  c.first_after = s.points[static_cast<size_t>(index)];
  c.worse = worse;
  return c;
}

// 20 runs of gpu_us_per_token: 1000 µs/token, then 1050 from run 11 (a 5 % step up,
// worse), with the kernels that moved.
SeriesHistory HtmlTestStepUp() {
  std::vector<double> medians(20, 1000.0);
  std::fill(medians.begin() + 10, medians.end(), 1050.0);
  SeriesHistory s = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, medians);
  Change c = HtmlTestChange(s, 10, 1000.0, 1050.0, true);
  c.movers = {{"kernels", "gemm_q4_0", 400.0, 412.3, 2, 2},
              {"families", "attention", 120.0, 155.5, 4, 4},
              {"buckets", "md_8_32us", 80.0, 81.25, 10, 10},
              {"phases", "layer.ffn", 30.0, 30.5, 1, 1}};
  s.changes.push_back(c);
  return s;
}

HtmlPageOptions HtmlTestOptions() {
  HtmlPageOptions o;
  o.title = "perfgate history";
  o.store_location = "/var/ci/history.sqlite";
  o.generated_at = "2026-12-06T08:00:00Z";
  return o;
}

size_t HtmlTestCount(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string HtmlTestLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The names of every tag in `page` ("<svg", "</svg", "<!DOCTYPE" as "svg", "/svg",
// "!doctype"): a tag the page does not write itself means markup got in.
std::set<std::string> HtmlTestTagNames(const std::string& page) {
  std::set<std::string> names;
  for (size_t at = page.find('<'); at != std::string::npos; at = page.find('<', at + 1)) {
    size_t end = at + 1;
    while (end < page.size() && (std::isalnum(static_cast<unsigned char>(page[end])) || page[end] == '/' ||
                                 page[end] == '!')) {
      ++end;
    }
    names.insert(HtmlTestLower(page.substr(at + 1, end - at - 1)));
  }
  return names;
}

// The SVG of the page's `n`th chart (from 0).
std::string HtmlTestChart(const std::string& page, size_t n) {
  size_t at = page.find("<svg");
  for (size_t i = 0; i < n && at != std::string::npos; ++i) at = page.find("<svg", at + 1);
  if (at == std::string::npos) return "";
  return page.substr(at, page.find("</svg>", at) + 6 - at);
}

TEST(HistoryHtmlPage, ShowsAChangePointsCommitRangeMagnitudeAndMovers) {
  const std::string page = RenderHistoryHtml({HtmlTestStepUp()}, HtmlTestOptions());
  // The runs either side: run 10 (c010...) and run 11 (c011...), short forms.
  EXPECT_NE(page.find(">c010c010c010..c011c011c011</code>"), std::string::npos);
  EXPECT_NE(page.find("title=\"" + HtmlTestCommit(10) + ".." + HtmlTestCommit(11) + "\""), std::string::npos);
  EXPECT_NE(page.find("+5.0% worse"), std::string::npos);
  EXPECT_NE(page.find("1000 \xE2\x86\x92 1050 \xC2\xB5s/token"), std::string::npos);
  EXPECT_NE(page.find("&lt;0.001"), std::string::npos);
  // The top three movers, the largest first; the fourth is left to the JSON.
  const size_t families = page.find("families attention +35.5 \xC2\xB5s/token");
  const size_t kernels = page.find("kernels gemm_q4_0 +12.3 \xC2\xB5s/token");
  const size_t buckets = page.find("buckets md_8_32us +1.25 \xC2\xB5s/token");
  ASSERT_NE(families, std::string::npos);
  ASSERT_NE(kernels, std::string::npos);
  ASSERT_NE(buckets, std::string::npos);
  EXPECT_LT(kernels, buckets);
  EXPECT_EQ(page.find("layer.ffn"), std::string::npos);
  // The chart marks it in red with its magnitude, and the heading reads the unit.
  const std::string chart = HtmlTestChart(page, 0);
  EXPECT_EQ(HtmlTestCount(chart, "stroke=\"#d62728\""), 1u);
  EXPECT_NE(chart.find(">+5.0%</text>"), std::string::npos);
  EXPECT_NE(page.find("<h4>gpu_us_per_token <span class=\"unit\">\xC2\xB5s/token, lower is better</span></h4>"),
            std::string::npos);
}

TEST(HistoryHtmlPage, MarksTheChangeBetweenItsTwoRuns) {
  const std::string chart = HtmlTestChart(RenderHistoryHtml({HtmlTestStepUp()}, HtmlTestOptions()), 0);
  // Points run from x = 80 to x = 936 over 19 steps: runs 10 and 11 (indices 9 and
  // 10) at 485.5 and 530.5; the marker halfway, on a whole pixel.
  EXPECT_NE(chart.find("<line x1=\"508.0\" y1=\"36.0\" x2=\"508.0\" y2=\"240.0\" stroke=\"#d62728\""),
            std::string::npos)
      << chart;
}

TEST(HistoryHtmlPage, DrawsAnImprovementInGreen) {
  std::vector<double> medians(16, 50.0);
  std::fill(medians.begin() + 8, medians.end(), 40.0);
  SeriesHistory s = HtmlTestSeries("hf2q", "buckets/md_8_32us/us_per_token", Worse::kUp, medians);
  s.changes.push_back(HtmlTestChange(s, 8, 50.0, 40.0, false));
  const std::string page = RenderHistoryHtml({s}, HtmlTestOptions());
  const std::string chart = HtmlTestChart(page, 0);
  EXPECT_EQ(HtmlTestCount(chart, "stroke=\"#2ca02c\""), 1u);
  EXPECT_EQ(HtmlTestCount(chart, "stroke=\"#d62728\""), 0u);
  EXPECT_NE(page.find("-20.0% better"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"none\">\xE2\x80\x94</span>"), std::string::npos);  // no movers recorded
}

TEST(HistoryHtmlPage, ListsEveryRunInAFoldedTable) {
  const std::string page = RenderHistoryHtml({HtmlTestStepUp()}, HtmlTestOptions());
  EXPECT_NE(page.find("<details><summary>All 20 runs</summary>"), std::string::npos);
  const size_t table = page.find("<table class=\"runs\">");
  ASSERT_NE(table, std::string::npos);
  const std::string runs = page.substr(table, page.find("</table>", table) - table);
  EXPECT_EQ(HtmlTestCount(runs, "<tr>"), 21u);  // the titles and 20 runs
  EXPECT_NE(runs.find("<td><code title=\"" + HtmlTestCommit(20) + "\">c020c020c020</code></td><td>main</td>"
                      "<td class=\"num\">1050</td>"),
            std::string::npos);
  // The first run of the new level says so.
  EXPECT_NE(runs.find("<td class=\"num\">11</td><td class=\"num\">11</td>"), std::string::npos);
  EXPECT_EQ(HtmlTestCount(runs, "<td class=\"worse\">+5.0%</td>"), 1u);
}

TEST(HistoryHtmlPage, HeaderSaysWhereWhenAndHowMuch) {
  SeriesHistory flat = HtmlTestSeries("hf2q", "submissions_per_token", Worse::kUp, std::vector<double>(25, 120.0));
  const std::string page = RenderHistoryHtml({HtmlTestStepUp(), flat}, HtmlTestOptions());
  EXPECT_NE(page.find("<title>perfgate history</title>"), std::string::npos);
  EXPECT_NE(page.find("Store <code>/var/ci/history.sqlite</code> \xC2\xB7 generated 2026-12-06T08:00:00Z \xC2\xB7 "
                      "2 series \xC2\xB7 25 runs"),
            std::string::npos);  // runs 1-20 hold both series, 21-25 one
  EXPECT_NE(page.find("class=\"legend\""), std::string::npos);
  EXPECT_NE(page.find("No change point in 25 runs."), std::string::npos);
}

TEST(HistoryHtmlPage, IsTheSameBytesForTheSameInputAndPrintsNoTimeUnlessGiven) {
  HtmlPageOptions options = HtmlTestOptions();
  options.generated_at.clear();
  const std::string first = RenderHistoryHtml({HtmlTestStepUp()}, options);
  EXPECT_EQ(first, RenderHistoryHtml({HtmlTestStepUp()}, options));
  EXPECT_EQ(first.find("generated"), std::string::npos);
}

TEST(HistoryHtmlPage, GroupsSeriesBySuiteAndTestThenEngine) {
  auto series = [](const std::string& suite, const std::string& engine, const std::string& metric) {
    SeriesHistory s = HtmlTestSeries(engine, metric, Worse::kUp, {1, 2, 3});
    s.info.key.suite = suite;
    return s;
  };
  const std::string page = RenderHistoryHtml(
      {series("Zeta", "e1", "m"), series("Alpha", "e2", "m"), series("Alpha", "e1", "m2"), series("Alpha", "e1", "m1")},
      HtmlTestOptions());
  EXPECT_EQ(HtmlTestCount(page, "<h2>"), 2u);
  EXPECT_EQ(HtmlTestCount(page, "<h3>"), 3u);  // Alpha: e1, e2; Zeta: e1
  const size_t alpha = page.find("<h2>Alpha / q4_0</h2>"), zeta = page.find("<h2>Zeta / q4_0</h2>");
  ASSERT_NE(alpha, std::string::npos);
  ASSERT_NE(zeta, std::string::npos);
  EXPECT_LT(alpha, zeta);
  const size_t m1 = page.find("<h4>m1 "), m2 = page.find("<h4>m2 "), e2 = page.find("<h3>e2</h3>");
  EXPECT_LT(alpha, m1);
  EXPECT_LT(m1, m2);
  EXPECT_LT(m2, e2);
  EXPECT_LT(e2, zeta);
  // The contents link each series to its section, in the same order.
  EXPECT_NE(page.find("<a href=\"#series-1\">m1</a>"), std::string::npos);
  EXPECT_NE(page.find("<section class=\"series\" id=\"series-4\">\n<h4>m "), std::string::npos);
}

TEST(HistoryHtmlPage, EscapesEveryTextFromTheStore) {
  const std::string script = "<script>alert(1)</script>";
  const std::string img = "\"><img src=x onerror=alert(2)>";
  SeriesHistory s = HtmlTestStepUp();
  s.info.key = {script, img, script + img, img + "/us_per_token"};
  for (Point& p : s.points) {
    p.commit = img + script;
    p.branch = script;
    p.time = img;
  }
  Change& c = s.changes[0];
  c.last_before = s.points[9];
  c.first_after = s.points[10];
  c.movers[0].name = img;
  c.movers[1].level = script;
  HtmlPageOptions options;
  options.title = script;
  options.store_location = img;
  options.generated_at = script;
  const std::string page = RenderHistoryHtml({s}, options);
  const std::set<std::string> written = {"!doctype", "html", "/html", "head", "/head", "meta", "title", "/title",
                                         "style", "/style", "body", "/body", "header", "/header", "h1", "/h1",
                                         "h2", "/h2", "h3", "/h3", "h4", "/h4", "p", "/p", "span", "/span",
                                         "code", "/code", "a", "/a", "table", "/table", "thead", "/thead", "tr",
                                         "/tr", "th", "/th", "td", "/td", "br", "details", "/details", "summary",
                                         "/summary", "section", "/section", "svg", "/svg", "g", "/g", "path",
                                         "line", "text", "/text", "polyline", "polygon", "circle", "/circle"};
  for (const std::string& tag : HtmlTestTagNames(page)) EXPECT_TRUE(written.count(tag)) << "<" << tag;
  EXPECT_EQ(HtmlTestLower(page).find("<script"), std::string::npos);
  EXPECT_EQ(HtmlTestLower(page).find("<img"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  // Inside the SVG too: the hover titles and the change's title.
  const std::string chart = HtmlTestChart(page, 0);
  EXPECT_NE(chart.find("<title>run 1, &quot;&gt;&lt;img"), std::string::npos);
  EXPECT_EQ(HtmlTestLower(chart).find("<img"), std::string::npos);
}

TEST(HistoryHtmlPage, MakesStoreBytesSafeText) {
  EXPECT_EQ(html::Escape("a\x01" "b\x7f" "c"), "a b c");
  EXPECT_EQ(html::Escape("\xC2\xB5s \xE2\x86\x92 \xF0\x9F\x9A\x80"), "\xC2\xB5s \xE2\x86\x92 \xF0\x9F\x9A\x80");
  EXPECT_EQ(html::Escape("bad \xC0\xAF \xED\xA0\x80 \xE2\x86"), "bad \xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD"
                                                                 "\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(html::ShortCommit("0123456789abcdef"), "0123456789ab");
  EXPECT_EQ(html::ShortCommit("01234567890\xC2\xB5x"), "01234567890");  // µ not split
  EXPECT_EQ(html::ShortCommit(""), "(none)");
}

TEST(HistoryHtmlPage, ReadsUnitsFromMetricNames) {
  EXPECT_EQ(html::UnitReading("gpu_us_per_token"), "\xC2\xB5s/token");
  EXPECT_EQ(html::UnitReading("buckets/md_8_32us/us_per_token"), "\xC2\xB5s/token");
  EXPECT_EQ(html::UnitReading("phases/layer.attn/cbs_per_token"), "command buffers/token");
  EXPECT_EQ(html::UnitReading("submissions_per_token"), "submissions/token");
  EXPECT_EQ(html::UnitReading("buckets/md_8_32us/p50_us"), "\xC2\xB5s");
  EXPECT_EQ(html::UnitReading("kernel_families/gemm"), "kernels");
  EXPECT_EQ(html::UnitReading("counters/decode_tokens_per_sec"), "decode tokens/s");
  EXPECT_EQ(html::UnitReading("counters/graph_nodes"), "");
  EXPECT_EQ(html::DirectionReading(Worse::kDown), "higher is better");
}

TEST(HistoryHtmlPage, FetchesNothing) {
  SeriesHistory s = HtmlTestStepUp();
  const std::string page = RenderHistoryHtml({s, HtmlTestSeries("hf2q", "busy_us_per_token", Worse::kBoth, {5, 6})},
                                             HtmlTestOptions());
  for (const char* reference : {"http://", "https://", "src=", "url(", "@import", "<link", "<script", "<iframe",
                                "<object", "<embed", "xlink:href"}) {
    EXPECT_EQ(HtmlTestLower(page).find(reference), std::string::npos) << reference;
  }
  for (size_t at = page.find("href=\""); at != std::string::npos; at = page.find("href=\"", at + 1)) {
    EXPECT_EQ(page.compare(at + 6, 8, "#series-"), 0) << page.substr(at, 40);  // links within the page only
  }
}

TEST(HistoryHtmlPage, SaysSoWhenThereIsNoSeries) {
  const std::string page = RenderHistoryHtml({}, HtmlTestOptions());
  EXPECT_NE(page.find("No series to show: the store holds no run yet."), std::string::npos);
  EXPECT_NE(page.find("0 series \xC2\xB7 0 runs"), std::string::npos);
  EXPECT_EQ(page.find("<svg"), std::string::npos);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
}

TEST(HistoryHtmlPage, DrawsASeriesOfOnePoint) {
  const std::string page =
      RenderHistoryHtml({HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, {812.5}, 42)}, HtmlTestOptions());
  const std::string chart = HtmlTestChart(page, 0);
  // One dot in the middle of the plot, its hover title, one x tick; no line.
  EXPECT_NE(chart.find("<circle cx=\"508.0\""), std::string::npos) << chart;
  EXPECT_NE(chart.find("<title>run 42, 2026-12-05T10:00:00Z\ncommit c042c042c042 (main)\nmedian 812.5 "
                       "\xC2\xB5s/token</title>"),
            std::string::npos);
  EXPECT_NE(chart.find(">run 42</text>"), std::string::npos);
  EXPECT_EQ(chart.find("<polyline"), std::string::npos);
  EXPECT_NE(page.find("All 1 run</summary>"), std::string::npos);
}

TEST(HistoryHtmlPage, DrawsAFlatSeriesWithoutDividingByZero) {
  for (double value : {100.0, 0.0, -3.5}) {
    SeriesHistory s = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, std::vector<double>(12, value));
    for (Point& p : s.points) p.samples = {value, value};
    const std::string chart = HtmlTestChart(RenderHistoryHtml({s}, HtmlTestOptions()), 0);
    EXPECT_EQ(HtmlTestLower(chart).find("nan"), std::string::npos) << value;
    EXPECT_EQ(HtmlTestLower(chart).find("inf"), std::string::npos) << value;
    // The line lies across the middle of the plot (y from 36 to 240).
    EXPECT_NE(chart.find("points=\"80.0,138.0 "), std::string::npos) << chart;
    EXPECT_EQ(chart.find("class=\"band\""), std::string::npos);  // no spread, no band
  }
  SeriesHistory hundred = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, std::vector<double>(12, 100.0));
  for (Point& p : hundred.points) p.samples.clear();
  const std::string chart = HtmlTestChart(RenderHistoryHtml({hundred}, HtmlTestOptions()), 0);
  EXPECT_NE(chart.find(">95</text>"), std::string::npos);  // ticks around the value: 95, 100, 105
  EXPECT_NE(chart.find(">100</text>"), std::string::npos);
  EXPECT_NE(chart.find(">105</text>"), std::string::npos);
}

TEST(HistoryHtmlPage, NeverDrawsANonFiniteValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  SeriesHistory s = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, {10, 11, nan, 12, inf, 13, 14});
  s.points[0].samples = {nan, 9, 11};
  const std::string page = RenderHistoryHtml({s}, HtmlTestOptions());
  const std::string chart = HtmlTestChart(page, 0);
  EXPECT_EQ(HtmlTestLower(chart).find("nan"), std::string::npos) << chart;
  EXPECT_EQ(HtmlTestLower(chart).find("inf"), std::string::npos) << chart;
  EXPECT_EQ(HtmlTestCount(chart, "<polyline"), 2u);  // 10, 11 | 12 | 13, 14
  EXPECT_EQ(HtmlTestCount(chart, "<circle cx="), 1u);  // 12 alone, as a dot
  EXPECT_EQ(HtmlTestCount(page, "<td class=\"num\">n/a</td>"), 2u);  // the run table says n/a

  SeriesHistory none = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, {nan, nan});
  for (Point& p : none.points) p.samples.clear();
  const std::string empty_page = RenderHistoryHtml({none}, HtmlTestOptions());
  EXPECT_NE(empty_page.find("No finite value to draw."), std::string::npos);
  EXPECT_EQ(HtmlTestLower(HtmlTestChart(empty_page, 0)).find("nan"), std::string::npos);
}

TEST(HistoryHtmlPage, KeepsTenThousandRunsSmall) {
  std::vector<double> medians(10000);
  for (size_t i = 0; i < medians.size(); ++i) medians[i] = (i < 6000 ? 500.0 : 540.0) + static_cast<double>(i % 7);
  SeriesHistory s = HtmlTestSeries("hf2q", "gpu_us_per_token", Worse::kUp, medians);
  s.changes.push_back(HtmlTestChange(s, 6000, 503.0, 543.0, true));
  const std::string page = RenderHistoryHtml({s}, HtmlTestOptions());
  const std::string chart = HtmlTestChart(page, 0);
  EXPECT_LT(chart.size(), 400u * 1024) << "the chart of 10,000 runs";
  EXPECT_LT(page.size(), 4u * 1024 * 1024) << "the page of 10,000 runs";
  // A hover target for one run in 5, the newest, and either side of the change.
  EXPECT_EQ(HtmlTestCount(chart, "<circle class=\"pt\""), 2000u + 2u);
  EXPECT_NE(chart.find("<title>run 6000, "), std::string::npos);
  EXPECT_NE(chart.find("<title>run 6001, "), std::string::npos);
  EXPECT_NE(chart.find("<title>run 10000, "), std::string::npos);
  EXPECT_EQ(chart.find("<title>run 2, "), std::string::npos);
  EXPECT_NE(page.find("10000 runs: hovering the chart shows the run and commit of one run in 5"), std::string::npos);
  // The line: two vertices a pixel column at most; the table: every run.
  const size_t line = chart.find("<polyline");
  ASSERT_NE(line, std::string::npos);
  const std::string points = chart.substr(line, chart.find("/>", line) - line);
  EXPECT_LE(HtmlTestCount(points, ","), 2u * 856);
  EXPECT_EQ(HtmlTestCount(page, "<tr>"), 2u + 2u + 1u + 10000u);  // contents, changes (titles, a row); runs
}

}  // namespace
}  // namespace perfgate::history::html_page_test
