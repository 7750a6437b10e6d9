// The history's HTML page as a browser shows it: headless Chromium renders a page of
// two series (a 5 % step up of a lower-is-better figure, and a steady one) to a PNG,
// and the test finds the change point's red marker and the charts' lines in the
// picture itself (runs of the page's colours, html_parts.h), not in the HTML text;
// then Chromium's parsed DOM must hold the headings, the commit range and the run
// tables. Chromium is a dependency (tools/scripts/deps.sh): without it the test fails
// under CI (unless PERFGATE_ALLOW_SKIP=1) and is skipped, saying so, elsewhere. About
// 2 s: one screenshot and one DOM dump.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "perfgate/core/environment.h"
#include "perfgate/core/process.h"
#include "perfgate/history/html.h"
#include "unit/report/png_image.h"

namespace perfgate::history::html_chromium_test {
namespace {

namespace fs = std::filesystem;
using report::testdata::PngImage;
using report::testdata::Rgb;

// The page's colours (framework/src/history/html_parts.h).
const Rgb kChromiumTestWorse{0xd6, 0x27, 0x28};
const Rgb kChromiumTestLine{0x1f, 0x77, 0xb4};
constexpr int kChromiumTestWidth = 1200, kChromiumTestHeight = 1600;
// The change point sits between runs 12 and 13 of 24: its marker is drawn halfway
// along the line (11.5 of 23 steps).
constexpr int kChromiumTestRuns = 24, kChromiumTestStepAt = 12;

// Chromium as `chromium` or `chromium-browser` in `path_list` (the PATH when nullopt).
std::optional<std::string> FindChromium(const std::optional<std::string>& path_list) {
  for (const char* name : {"chromium", "chromium-browser"}) {
    if (auto found = FindExecutable(name, path_list)) return found;
  }
  return std::nullopt;
}

// True when Chromium is not in `path_list`; under CI (`env`) that is also a test
// failure unless PERFGATE_ALLOW_SKIP=1, so that a CI machine without it never reads
// the browser test as skipped.
bool ChromiumMissing(const std::optional<std::string>& path_list, const EnvLookup& env) {
  if (FindChromium(path_list)) return false;
  if (const auto ci = CiVariable(env); ci && !EnvTruthy(env("PERFGATE_ALLOW_SKIP"))) {
    ADD_FAILURE() << "chromium is missing (Debian/Ubuntu: chromium, Homebrew: --cask chromium); " << *ci
                  << " is set, so this fails; tools/scripts/deps.sh installs it, PERFGATE_ALLOW_SKIP=1 skips";
  }
  return true;
}

std::optional<std::string> NoChromiumEnv(const std::string&) { return std::nullopt; }
std::optional<std::string> ChromiumCiEnv(const std::string& name) {
  if (name == "CI") return "true";
  return std::nullopt;
}
std::optional<std::string> ChromiumCiAllowSkipEnv(const std::string& name) {
  if (name == "CI" || name == "PERFGATE_ALLOW_SKIP") return "1";
  return std::nullopt;
}

// Two series of Decode/q4_0 hf2q: gpu_us_per_token steps from 1000 to 1050 µs/token at
// run 13 (worse: a red marker), submissions_per_token stays at 120.
std::vector<SeriesHistory> ChromiumTestSeries() {
  auto series = [](const std::string& metric, double before, double after) {
    SeriesHistory s;
    s.info.key = {"Decode", "q4_0", "hf2q", metric};
    s.info.worse = Worse::kUp;
    for (int i = 0; i < kChromiumTestRuns; ++i) {
      Point p;
      p.run_id = 100 + i;
      p.time = "2026-12-" + std::to_string(10 + i / 10) + "T0" + std::to_string(i % 10) + ":00:00Z";
      p.commit = std::string(40, static_cast<char>('a' + i % 6)).replace(0, 2, std::to_string(10 + i));
      p.branch = "main";
      p.median = (i < kChromiumTestStepAt ? before : after) + (i % 3 - 1) * 0.004 * before;
      p.samples = {p.median * 0.995, p.median, p.median * 1.005};
      s.points.push_back(p);
    }
    s.info.points = kChromiumTestRuns;
    return s;
  };
  std::vector<SeriesHistory> out = {series("gpu_us_per_token", 1000, 1050),
                                    series("submissions_per_token", 120, 120)};
  SeriesHistory& step = out[0];
  Change c;
  c.point.index = kChromiumTestStepAt;
  c.point.mean_before = 1000;
  c.point.mean_after = 1050;
  c.point.pvalue = 1e-6;
  c.last_before = step.points[kChromiumTestStepAt - 1];
  c.first_after = step.points[kChromiumTestStepAt];
  c.worse = true;
  c.movers = {{"kernels", "gemm_q4_0", 400, 438.5, 2, 2}};
  step.changes.push_back(c);
  return out;
}

// Every channel within `tolerance` of `want` (anti-aliasing blends the edges).
bool Near(const Rgb& got, const Rgb& want, int tolerance = 40) {
  return std::abs(got.r - want.r) <= tolerance && std::abs(got.g - want.g) <= tolerance &&
         std::abs(got.b - want.b) <= tolerance;
}

// A vertical run of a colour in one column.
struct ColumnRun {
  int x = 0;
  int top = 0;
  int bottom = 0;
};

// The runs of `colour` down each column at least `min_length` pixels long.
std::vector<ColumnRun> LongColumnRuns(const PngImage& img, const Rgb& colour, int min_length) {
  std::vector<ColumnRun> runs;
  for (int x = 0; x < img.width; ++x) {
    int top = -1;
    for (int y = 0; y <= img.height; ++y) {
      const bool in = y < img.height && Near(img.At(x, y), colour);
      if (in && top < 0) top = y;
      if (!in && top >= 0) {
        if (y - top >= min_length) runs.push_back({x, top, y - 1});
        top = -1;
      }
    }
  }
  return runs;
}

// Pixels of `colour` in rows [top, bottom].
struct ColourPixels {
  int count = 0;
  int min_x = 1 << 30, max_x = -1;
  std::map<int, std::vector<int>> ys_by_x;
};

ColourPixels PixelsOf(const PngImage& img, const Rgb& colour, int top, int bottom) {
  ColourPixels p;
  for (int y = std::max(top, 0); y <= std::min(bottom, img.height - 1); ++y) {
    for (int x = 0; x < img.width; ++x) {
      if (!Near(img.At(x, y), colour)) continue;
      ++p.count;
      p.min_x = std::min(p.min_x, x);
      p.max_x = std::max(p.max_x, x);
      p.ys_by_x[x].push_back(y);
    }
  }
  return p;
}

// The mean row of the line's pixels in columns [from, to].
double MeanRow(const ColourPixels& p, int from, int to) {
  double sum = 0;
  int n = 0;
  for (auto it = p.ys_by_x.lower_bound(from); it != p.ys_by_x.end() && it->first <= to; ++it) {
    for (int y : it->second) {
      sum += y;
      ++n;
    }
  }
  return n ? sum / n : -1;
}

class HistoryHtmlChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ChromiumMissing(std::nullopt, ProcessEnv)) {
      GTEST_SKIP() << "chromium is missing (Debian: chromium); under CI this fails instead";
    }
    chromium_ = *FindChromium(std::nullopt);
    dir_ = fs::temp_directory_path() / ("perfgate-history-html-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "home");
    page_ = dir_ / "history.html";
    HtmlPageOptions options;
    options.title = "Decode history";
    options.store_location = "/var/ci/history.sqlite";
    std::ofstream(page_, std::ios::binary) << RenderHistoryHtml(ChromiumTestSeries(), options);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // Chromium headless with `args` on the page, HOME in the test's own directory.
  ProcessResult RunChromium(const std::vector<std::string>& args) {
    ProcessOptions o;
    o.argv = {chromium_, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.argv.push_back("file://" + page_.string());
    o.set_env = {{"HOME", (dir_ / "home").string()}};
    o.timeout_ms = 60000;
    auto r = RunProcess(o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->ok()) << "chromium " << r->Describe() << ": " << r->stderr_text;
    return *r;
  }

  std::string chromium_;
  fs::path dir_;
  fs::path page_;
};

TEST(HistoryHtmlChromiumMissing, FailsUnderCiUnlessAllowedAndSkipsElsewhere) {
  EXPECT_NONFATAL_FAILURE(ChromiumMissing("/nonexistent:/also-not-here", ChromiumCiEnv), "chromium is missing");
  EXPECT_TRUE(ChromiumMissing("/nonexistent", ChromiumCiAllowSkipEnv));  // no failure: the caller skips
  EXPECT_TRUE(ChromiumMissing("/nonexistent", NoChromiumEnv));
  if (const auto found = FindChromium(std::nullopt)) {
    EXPECT_FALSE(ChromiumMissing("/nonexistent:" + fs::path(*found).parent_path().string(), ChromiumCiEnv));
  }
}

// The picture: the change point's red marker down the first chart, halfway along its
// line, the line higher after the step than before; the second chart's line, unmarked.
TEST_F(HistoryHtmlChromium, PictureShowsTheRedMarkerAndBothLines) {
  const fs::path png = dir_ / "page.png";
  RunChromium({"--screenshot=" + png.string(),
               "--window-size=" + std::to_string(kChromiumTestWidth) + "," + std::to_string(kChromiumTestHeight)});
  std::ifstream in(png, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string error;
  const auto img = report::testdata::DecodePng(bytes.str(), &error);
  ASSERT_TRUE(img.has_value()) << error;
  ASSERT_EQ(img->width, kChromiumTestWidth);

  // The marker: one red line, a pixel or two wide, down the first chart's plot (204
  // units tall); nothing else on the page is that tall and red.
  const std::vector<ColumnRun> red = LongColumnRuns(*img, kChromiumTestWorse, 150);
  ASSERT_FALSE(red.empty()) << "no change point marker in the picture";
  EXPECT_LE(red.back().x - red.front().x, 2);
  const ColumnRun marker = red.front();
  EXPECT_NEAR(marker.bottom - marker.top, 204, 6);

  // The first chart's line, in the marker's rows: across the plot, the marker halfway
  // between its ends, and drawn higher after the step up than before it.
  const ColourPixels line = PixelsOf(*img, kChromiumTestLine, marker.top, marker.bottom);
  ASSERT_GT(line.count, 400) << "no line in the first chart";
  EXPECT_GT(line.max_x - line.min_x, 800);
  const double expected_x =
      line.min_x + (line.max_x - line.min_x) * (kChromiumTestStepAt - 0.5) / (kChromiumTestRuns - 1);
  EXPECT_NEAR(marker.x, expected_x, 4);
  const double before = MeanRow(line, line.min_x, marker.x - 10), after = MeanRow(line, marker.x + 10, line.max_x);
  EXPECT_GT(before - after, 80) << "the line before the change at row " << before << ", after it at " << after;

  // The second chart, below: its line drawn, and no change point marked.
  const ColourPixels second = PixelsOf(*img, kChromiumTestLine, marker.bottom + 150, img->height - 1);
  EXPECT_GT(second.count, 400) << "no line in the second chart";
  EXPECT_GT(second.max_x - second.min_x, 800);
  for (const ColumnRun& r : red) EXPECT_LT(r.top, marker.bottom + 150) << "a red marker at x " << r.x;
}

// What Chromium parsed: the headings, the commit range and movers, both charts and
// both run tables, as the page wrote them.
TEST_F(HistoryHtmlChromium, DomHoldsTheHeadingsCommitRangeAndRunTables) {
  const ProcessResult dom = RunChromium({"--dump-dom"});
  const std::string& text = dom.stdout_text;
  EXPECT_NE(text.find("<h2>Decode / q4_0</h2>"), std::string::npos);
  EXPECT_NE(text.find("<h3>hf2q</h3>"), std::string::npos);
  EXPECT_NE(text.find("<h4>gpu_us_per_token <span class=\"unit\">"), std::string::npos);
  EXPECT_NE(text.find("<h4>submissions_per_token <span class=\"unit\">"), std::string::npos);
  const std::string before_commit = ChromiumTestSeries()[0].changes[0].last_before.commit;
  const std::string after_commit = ChromiumTestSeries()[0].changes[0].first_after.commit;
  EXPECT_NE(text.find(">" + before_commit.substr(0, 12) + ".." + after_commit.substr(0, 12) + "</code>"),
            std::string::npos);
  EXPECT_NE(text.find("kernels gemm_q4_0 +38.5 \xC2\xB5s/token"), std::string::npos);
  auto count = [&text](const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const size_t charts = count("<svg class=\"chart\""), run_tables = count("<table class=\"runs\">");
  EXPECT_EQ(charts, 2u);
  EXPECT_EQ(run_tables, 2u);
  EXPECT_NE(text.find("<summary>All 24 runs</summary>"), std::string::npos);
  EXPECT_NE(text.find(">" + ChromiumTestSeries()[1].points.back().commit.substr(0, 12) + "</code>"),
            std::string::npos);
}

}  // namespace
}  // namespace perfgate::history::html_chromium_test
