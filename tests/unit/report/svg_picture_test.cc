// The SVG report as a reader sees it: rendered to PNG by rsvg-convert (librsvg, as a
// browser or an image viewer would draw it) and checked pixel by pixel. Rows are found
// in the picture itself (runs of the regression and improvement colours), not read back
// from the SVG text. rsvg-convert is a dependency (tools/scripts/deps.sh: librsvg2-bin):
// without it the tests fail under CI and are skipped, saying so, elsewhere. Together
// they take about 0.3 s (three renders).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/core/environment.h"
#include "perfgate/report/formats.h"
#include "support/report_render.h"
#include "support/run_command.h"
#include "unit/report/png_image.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

namespace fs = std::filesystem;
using testdata::PngImage;
using testdata::Rgb;

// The colours the SVG report promises (svg_report.cc): regression, improvement, the
// attack target's band.
const Rgb kRegressed{0xd6, 0x27, 0x28};
const Rgb kImproved{0x59, 0xa1, 0x4f};
const Rgb kAttackBand{0xff, 0xf3, 0xb0};

// A vertical or horizontal run of one colour: [first, last] along the scan.
struct PixelRun {
  int first = 0;
  int last = 0;
  int Length() const { return last - first + 1; }
  int Middle() const { return (first + last) / 2; }
};

// Runs of `colour` down column `x`.
std::vector<PixelRun> RunsDown(const PngImage& img, int x, const Rgb& colour) {
  std::vector<PixelRun> runs;
  for (int y = 0; y < img.height; ++y) {
    if (!(img.At(x, y) == colour)) continue;
    if (!runs.empty() && runs.back().last == y - 1) {
      runs.back().last = y;
    } else {
      runs.push_back({y, y});
    }
  }
  return runs;
}

// The one horizontal run of `colour` in row `y`, or a zero-length run at -1.
PixelRun RunAcross(const PngImage& img, int y, const Rgb& colour) {
  PixelRun run{-1, -2};
  for (int x = 0; x < img.width; ++x) {
    if (!(img.At(x, y) == colour)) continue;
    if (run.first < 0) run.first = x;
    run.last = x;
  }
  return run;
}

// rsvg-convert's path on `path_env` (a PATH value), or "" when no directory holds it.
std::string FindRenderer(const std::string& path_env) {
  size_t start = 0;
  while (start <= path_env.size()) {
    size_t end = path_env.find(':', start);
    if (end == std::string::npos) end = path_env.size();
    const fs::path candidate = fs::path(path_env.substr(start, end - start)) / "rsvg-convert";
    std::error_code ec;
    if (end > start && fs::is_regular_file(candidate, ec) &&
        (fs::status(candidate, ec).permissions() & fs::perms::others_exec) != fs::perms::none) {
      return candidate.string();
    }
    start = end + 1;
  }
  return "";
}

std::string ProcessPath() { return ProcessEnv("PATH").value_or(""); }

// True when rsvg-convert is not on `path_env`; under CI (`env`) that is also a test
// failure, so that a CI machine without it never reads the picture tests as skipped.
bool RendererMissing(const std::string& path_env, const EnvLookup& env) {
  if (!FindRenderer(path_env).empty()) return false;
  if (CiVariable(env)) {
    ADD_FAILURE() << "rsvg-convert is missing (Debian/Ubuntu: librsvg2-bin, Homebrew: librsvg); "
                     "tools/scripts/deps.sh installs it";
  }
  return true;
}

bool RendererMissing() { return RendererMissing(ProcessPath(), ProcessEnv); }

// GTEST_SKIP returns from the test body itself, hence a macro.
#define PERFGATE_SKIP_WITHOUT_RENDERER() \
  if (RendererMissing()) GTEST_SKIP() << "rsvg-convert is missing (librsvg2-bin); under CI this fails instead"

// The SVG rendered to a PNG image by rsvg-convert at 96 dpi (one pixel per SVG unit).
std::optional<PngImage> Render(const std::string& svg, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("perfgate-svg-picture-" + name);
  fs::create_directories(dir);
  const fs::path in = dir / "report.svg", out = dir / "report.png";
  std::ofstream(in, std::ios::binary) << svg;
  const auto r = testing_support::RunCommand("'" + FindRenderer(ProcessPath()) + "' --format png --output '" +
                                             out.string() + "' '" + in.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string error;
  auto img = testdata::DecodePng(testing_support::SlurpFile(out.string()), &error);
  EXPECT_TRUE(img.has_value()) << error;
  fs::remove_all(dir);
  return img;
}

std::optional<std::string> FakeCi(const std::string& name) {
  return name == "CI" ? std::optional<std::string>("true") : std::nullopt;
}
std::optional<std::string> NoCi(const std::string&) { return std::nullopt; }

TEST(SvgPicture, AMissingRendererFailsUnderCiAndSkipsElsewhere) {
  EXPECT_NONFATAL_FAILURE(RendererMissing("/nonexistent:/also-not-here", FakeCi), "rsvg-convert is missing");
  EXPECT_TRUE(RendererMissing("/nonexistent", NoCi));  // no failure: the caller skips, saying why
  EXPECT_TRUE(RendererMissing("", NoCi));
  const std::string found = FindRenderer(ProcessPath());
  if (!found.empty()) {
    EXPECT_FALSE(RendererMissing("/nonexistent:" + fs::path(found).parent_path().string(), FakeCi));
  }
}

// The iter22 figures with the large bucket improved instead: the only regressions are
// in the small buckets (sm +1.4, md +9.2, lg +14.8 µs/tok against xl's -930.3), and the
// attack target is lg_32_80us. On a linear Δ axis md's bar would be 9.2 / 930.3 of
// xl's, under 3 px.
Report SmallBucketRegression() {
  Report r = testdata::Iter22();
  auto& c = *r.comparison;
  c.buckets.back() = testdata::D("xl_>=80us", 8000.0, 8930.3);
  c.attack_target = "lg_32_80us";
  c.attack_hint = "flash_attn / pooled mul_mm_id";
  return r;
}

TEST(SvgPicture, ASmallBucketRegressionIsVisibleAndTheAttackTargetMarked) {
  PERFGATE_SKIP_WITHOUT_RENDERER();
  auto img = Render(RenderSvg(SmallBucketRegression()), "small-bucket");
  if (!img) return;
  // The zero line: where the first regression bar (the topmost red pixels) starts.
  int zero = -1;
  for (int y = 0; y < img->height && zero < 0; ++y) zero = RunAcross(*img, y, kRegressed).first;
  ASSERT_GT(zero, 0) << "no regression colour in the picture";

  // Down the column just right of the zero line: the bucket chart's bars come first,
  // in band order. xs (Δ 0) has none, so sm, md and lg are the first three red bars.
  const std::vector<PixelRun> red = RunsDown(*img, zero + 1, kRegressed);
  ASSERT_GE(red.size(), 3u);
  const std::vector<PixelRun> green = RunsDown(*img, zero - 2, kImproved);
  ASSERT_GE(green.size(), 1u);
  const PixelRun& xl = green[0];
  EXPECT_GT(xl.first, red[2].last) << "xl_>=80us (improved) is the row below lg_32_80us";
  for (const PixelRun& bar : {red[0], red[1], red[2], xl}) EXPECT_GE(bar.Length(), 8) << "a bar is a row tall";

  const int sm_len = RunAcross(*img, red[0].Middle(), kRegressed).Length();
  const int md_len = RunAcross(*img, red[1].Middle(), kRegressed).Length();
  const int lg_len = RunAcross(*img, red[2].Middle(), kRegressed).Length();
  const PixelRun xl_across = RunAcross(*img, xl.Middle(), kImproved);
  EXPECT_EQ(RunAcross(*img, red[1].Middle(), kRegressed).first, zero) << "regressions grow right of zero";
  EXPECT_LE(xl_across.last, zero) << "improvements grow left of zero";
  // Visible at a glance: md's +9.2 is a long bar, at least a quarter of xl's -930.3
  // (log10(10.2) / log10(931.3) = 0.34 on the signed log scale; 0.01 on a linear one).
  EXPECT_GE(md_len, 60);
  EXPECT_GE(md_len * 4, xl_across.Length());
  EXPECT_LT(sm_len, md_len);  // the lengths still rank the Δs
  EXPECT_LT(md_len, lg_len);
  EXPECT_LT(lg_len, xl_across.Length());

  // The attack target's band: one pale band, on lg's row and not on md's or xl's.
  const std::vector<PixelRun> band = RunsDown(*img, 12, kAttackBand);
  ASSERT_EQ(band.size(), 1u);
  EXPECT_LE(band[0].first, red[2].first);
  EXPECT_GE(band[0].last, red[2].last);
  EXPECT_GT(band[0].first, red[1].last);
  EXPECT_LT(band[0].last, xl.first);
  EXPECT_GE(RunAcross(*img, band[0].Middle(), kAttackBand).Length(), 200) << "the band spans the row";
}

TEST(SvgPicture, NoBaselineNoDeltaColoursAndNoAttackBand) {
  PERFGATE_SKIP_WITHOUT_RENDERER();
  auto img = Render(RenderSvg(testdata::EngineOnly()), "engine-only");
  if (!img) return;
  int coloured = 0;
  for (int y = 0; y < img->height; ++y) {
    for (int x = 0; x < img->width; ++x) {
      const Rgb p = img->At(x, y);
      coloured += p == kRegressed || p == kImproved || p == kAttackBand;
    }
  }
  EXPECT_EQ(coloured, 0);
}

// The bundled Metal recordings through the CLI: hf2q regresses every non-empty bucket
// against llama and the attack target is xl_>=80us, the last bucket row.
TEST(SvgPicture, TheBundledRegressionAsRendered) {
  PERFGATE_SKIP_WITHOUT_RENDERER();
  const std::string rec = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
  const std::string head = "output_head.fused_norm_lm_argmax";
  const auto r = testing_support::RunPerfgate("attribute --trace hf2q=" + rec + "/hf2q --trace llama=" + rec +
                                              "/llama --baseline llama --tokens hf2q=auto:" + head +
                                              " --window hf2q=label:" + head +
                                              " --tokens llama=64 --window llama=skip:6 --format svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto img = Render(r.out, "bundled");
  if (!img) return;
  int zero = -1;
  for (int y = 0; y < img->height && zero < 0; ++y) zero = RunAcross(*img, y, kRegressed).first;
  ASSERT_GT(zero, 0);
  // sm, md and xl regressed (xs and lg are +0.0 and draw nothing): three red bars, the
  // third one on the attack target's band.
  const std::vector<PixelRun> red = RunsDown(*img, zero + 1, kRegressed);
  ASSERT_GE(red.size(), 3u);
  const std::vector<PixelRun> band = RunsDown(*img, 12, kAttackBand);
  ASSERT_EQ(band.size(), 1u);
  EXPECT_LE(band[0].first, red[2].first);
  EXPECT_GE(band[0].last, red[2].last);
  EXPECT_GT(band[0].first, red[1].last);
}

}  // namespace
}  // namespace perfgate::report
