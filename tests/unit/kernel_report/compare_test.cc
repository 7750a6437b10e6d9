// Engine against baseline, metrics, goldens and the lossless JSON of per-kernel reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "perfgate/golden/golden.h"
#include "perfgate/kernel_report/compare.h"
#include "perfgate/kernel_report/metrics.h"
#include "perfgate/kernel_report/render.h"
#include "perfgate/document/render.h"
#include "report_fixture.h"

namespace perfgate::kernel_report {
namespace {

// The report's document as text and as Markdown.
std::string RenderText(const KernelReport& engine, const RenderOptions& o) {
  return document::Render(ReportDocument(engine, o), "text").value();
}
std::string RenderMarkdown(const KernelReport& engine, const RenderOptions& o) {
  return document::Render(ReportDocument(engine, o), "markdown").value();
}

const Row& Find(const std::vector<Row>& rows, const std::string& name) {
  for (const Row& r : rows) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no row " << name;
  static const Row kNone;
  return kNone;
}

TEST(KernelReportCompare, MatchesBySpecialisationDroppedNameKeepingBothNames) {
  const Comparison c = Compare(test::Engine(), test::Baseline());
  const Row& mv = Find(c.kernels, "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ(mv.engine.names, std::vector<std::string>{"kernel_mul_mv_q4_0_f32"});
  EXPECT_EQ(mv.baseline.names, std::vector<std::string>{"kernel_mul_mv_q4_0_f32_nsg=2"});
  EXPECT_DOUBLE_EQ(mv.delta_us_per_token(), 20);
  EXPECT_DOUBLE_EQ(*mv.delta_pct(), 20);
  EXPECT_DOUBLE_EQ(*mv.engine.us_per_call - *mv.baseline.us_per_call, 2);
  // Two baseline kernels that differ only in op= are one row, summed, with no per-call median.
  const Row& fuse = Find(c.kernels, "kernel_bin_fuse_f32");
  EXPECT_EQ(fuse.baseline.names.size(), 2u);
  EXPECT_DOUBLE_EQ(fuse.baseline.us_per_token, 11);
  EXPECT_DOUBLE_EQ(fuse.baseline.calls_per_token, 10);
  EXPECT_FALSE(fuse.baseline.us_per_call.has_value());
  EXPECT_EQ(c.engine_only(), (std::vector<std::string>{"gemm_nt_f16_f16_32_32_16_2_2", "kernel_rms_norm"}));
  EXPECT_EQ(c.baseline_only(), (std::vector<std::string>{"kernel_bin_fuse_f32", "kernel_rms_norm_mul_f32_4"}));
}

TEST(KernelReportCompare, FamiliesAndTheAttackTarget) {
  const Comparison c = Compare(test::Engine(), test::Baseline());
  ASSERT_FALSE(c.families.empty());
  EXPECT_EQ(c.families.front().name, "dense_gemm");  // +50, the largest Δ
  EXPECT_DOUBLE_EQ(Find(c.families, "rms_norm").delta_us_per_token(), -20);  // 20 vs 40, different kernels
  EXPECT_DOUBLE_EQ(Find(c.families, "dense_q4_0_mv").delta_calls_per_token(), 0);
  EXPECT_DOUBLE_EQ(c.total.delta_us_per_token(), 190 - 151);
  ASSERT_TRUE(c.attack_target.has_value());
  EXPECT_EQ(*c.attack_target, "dense_gemm");
  EXPECT_NE(c.attack_hint.find("baseline has no dense_gemm"), std::string::npos) << c.attack_hint;
  // The other way round, the largest Δ > 0 is rms_norm's +20, and its hint names the kernel.
  const Comparison back = Compare(test::Baseline(), test::Engine());
  EXPECT_EQ(back.attack_target.value_or(""), "rms_norm");
  EXPECT_NE(back.attack_hint.find("kernel_rms_norm_mul_f32_4 (Δ 40.00 µs/tok)"), std::string::npos) << back.attack_hint;
}

// A report whose timer left dispatches untimed undercounts per token: the attack target
// is then chosen per call, over kernels on both sides: dense_q4_0_mv's (12 − 10 µs/call)
// × 10 baseline calls/token = +20 µs/token, while per token dense_gemm (+50, a family the
// baseline lacks by name) would have been chosen.
TEST(KernelReportCompare, AnUndercountingReportGetsItsAttackTargetPerCall) {
  const KernelReport engine = test::MustRead(
      "undercounting.json",
      test::ReportJson("engine", test::KernelJson("kernel_mul_mv_q4_0_f32", 10, 12, 120) + ", " +
                                     test::KernelJson("gemm_nt_f16_f16_32_32_16_2_2", 0.5, 100, 50),
                       ", \"instrumentation_notes\": {\"overflow_count\": 7}"));
  const Comparison c = Compare(engine, test::Baseline());
  EXPECT_TRUE(c.undercounted());
  EXPECT_EQ(c.engine_untimed, 7);
  EXPECT_EQ(c.baseline_untimed, 0);
  EXPECT_EQ(c.attack_basis, "per call");
  EXPECT_EQ(c.attack_target.value_or(""), "dense_q4_0_mv");
  EXPECT_NE(c.attack_hint.find("chosen per call (a report left 7 dispatches untimed"), std::string::npos)
      << c.attack_hint;
  EXPECT_NE(c.attack_hint.find("cost +20.00 µs/tok more, most in kernel_mul_mv_q4_0_f32 (+20.00 µs/tok)"),
            std::string::npos)
      << c.attack_hint;
  RenderOptions o;
  const KernelReport baseline = test::Baseline();
  o.baseline = &baseline;
  const std::string text = RenderText(engine, o);
  EXPECT_NE(text.find("TOTAL (undercounted)"), std::string::npos) << text;
  EXPECT_NE(text.find("Undercounted: the engine's report left 7 dispatches untimed"), std::string::npos) << text;
  // Without the undercount the same reports get the per-token target.
  EXPECT_EQ(Compare(test::Engine(), test::Baseline()).attack_basis, "per token");
}

TEST(KernelReportCompare, NoAttackTargetWhenNoFamilyCostsMore) {
  const Comparison c = Compare(test::Baseline(), test::Baseline());
  EXPECT_FALSE(c.attack_target.has_value());
  EXPECT_EQ(c.attack_hint, "");
}

TEST(KernelReportMetrics, EveryFigureHasAMetricIdAndADefaultPolicy) {
  const KernelReport b = test::Baseline();
  auto m = FindMetric(b, "kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->value.median, 100);
  EXPECT_TRUE(m->value.per_trial.empty());  // medians only
  EXPECT_EQ(m->policy.kind, gates::Kind::kNoisy);
  EXPECT_EQ(m->policy.dir, gates::Direction::kLowerIsBetter);
  auto calls = FindMetric(b, "families/other_bin/calls_per_token");
  ASSERT_TRUE(calls.ok()) << calls.status().ToString();
  EXPECT_EQ(calls->value.median, 10);
  EXPECT_EQ(calls->policy.kind, gates::Kind::kExact);
  EXPECT_EQ(FindMetric(b, "us_per_token")->value.median, 151);
  EXPECT_EQ(FindMetric(b, "wall_clock_tok_per_sec_median")->policy.dir, gates::Direction::kHigherIsBetter);
  auto unknown = FindMetric(b, "kernels/nope/us_per_token_median");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), "metric.unknown");
  EXPECT_NE(unknown.status().message().find("kernels/kernel_rms_norm_mul_f32_4/us_per_call_p95"), std::string::npos);
}

TEST(KernelReportMetrics, NamesWithEqualsAndSlashesRoundTripThroughGoldenPaths) {
  for (const char* name : {"kernel_mul_mv_q4_0_f32_nsg=2", "a/b=c", "<no_pipeline_set>"}) {
    const metrics::MetricId id{"kernels", name, "us_per_token_median"};
    auto back = metrics::MetricId::FromGoldenPath(id.GoldenPath());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->part, name);
    EXPECT_EQ(back->quantity, "us_per_token_median");
  }
}

TEST(KernelReportMetrics, TheGoldenRoundTripsAndCatchesASlowerKernel) {
  const golden::GoldenFile g = ReportGolden(test::Baseline());
  EXPECT_EQ(g.context.at("report/device"), "M5 Max");
  EXPECT_EQ(g.context.at("report/n_tokens"), "128");
  EXPECT_EQ(g.context.at("engine"), "baseline");
  auto parsed = golden::ParseGolden(golden::RenderGolden(g), "g.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(golden::CompareToGolden(*parsed, golden::ValuesOf(g)).ok);
  std::map<std::string, double> slower = golden::ValuesOf(g);
  slower["kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median"] = 125;  // +25 %, beyond 10 % and 20 µs
  const golden::CompareResult r = golden::CompareToGolden(*parsed, slower);
  EXPECT_FALSE(r.ok);
}

TEST(KernelReportRender, JsonIsLossless) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/phase0-ggml-perkernel.json");
  auto r = ReadKernelReport(path);
  ASSERT_TRUE(r.ok());
  const std::string text = RenderJson(*r);
  EXPECT_NE(text.find("\"kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median\": 2528.3541"), std::string::npos);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["engine"]["figures"]["kernels/kernel_mul_mv_q6_K_f32_nsg=2/calls_per_token_median"].get<double>(),
            41.6953);
  EXPECT_EQ(j["engine"]["figures"]["kernels"].get<int>(), 47);
}

TEST(KernelReportRender, JsonKeepsIntegersAndNeverOverflowsThem) {
  const KernelReport r = test::MustRead(
      "big.json", test::ReportJson("s", test::KernelJson("k_a", 1, 2, 3, ", \"total_calls\": 9660") + ", " +
                                            test::KernelJson("k_b", 1, 2, 3, ", \"total_calls\": 18446744073709551615")));
  const std::string text = RenderJson(r);
  EXPECT_NE(text.find("\"kernels/k_a/total_calls\": 9660,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"kernels/k_b/total_calls\": 1.8446744073709552e+19"), std::string::npos) << text;
}

TEST(KernelReportRender, TextSaysMediansOnlyAndNamesTheAttackTarget) {
  const KernelReport e = test::Engine(), b = test::Baseline();
  RenderOptions o;
  o.baseline = &b;
  const std::string text = RenderText(e, o);
  EXPECT_NE(text.find("Medians only"), std::string::npos);
  EXPECT_NE(text.find("Attack target: dense_gemm"), std::string::npos);
  EXPECT_NE(text.find("Engine only (2): gemm_nt_f16_f16_32_32_16_2_2, kernel_rms_norm"), std::string::npos);
  EXPECT_NE(text.find("kernel_mul_mv_q4_0_f32                12.00  10.00  +20.0%"), std::string::npos)
      << text;  // the per-call table: one kernel each side
  EXPECT_NE(RenderMarkdown(e, o).find("| `dense_gemm` | 50.00 | 0.00 | +50.00 | n/a |"), std::string::npos);
}

TEST(KernelReportRender, MarkdownQuotesNamesSoTheyCannotBreakTables) {
  const KernelReport odd = test::MustRead("odd.json", test::ReportJson("s", test::KernelJson("<no|pipe>", 1, 2, 3)));
  RenderOptions o;
  o.baseline = &odd;
  const std::string md = RenderMarkdown(test::Engine(), o);
  EXPECT_NE(md.find("| `<no\\|pipe>` | 0.00 | 3.00 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Baseline only (1): `<no\\|pipe>`"), std::string::npos) << md;
}

}  // namespace
}  // namespace perfgate::kernel_report
