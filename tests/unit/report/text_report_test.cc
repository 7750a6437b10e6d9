// The text report against hf2q's published iter22 figures (attribution-method.md §5).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "support/report_render.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using testdata::Fields;
using testdata::LineWith;
using testdata::SplitLines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The row of a table whose first field is `name` (after a line containing `after`).
std::vector<std::string> RowFields(const std::string& text, const std::string& name,
                                   const std::string& after = "") {
  bool armed = after.empty();
  for (const auto& l : SplitLines(text)) {
    if (!armed) {
      armed = l.find(after) != std::string::npos;
      continue;
    }
    auto f = Fields(l);
    if (!f.empty() && f[0] == name) return f;
  }
  return {};
}

size_t IndexOf(const std::string& text, const std::string& needle) {
  size_t i = text.find(needle);
  EXPECT_NE(i, std::string::npos) << needle;
  return i;
}

void ExpectEveryLineFits(const std::string& text) {
  int n = 0;
  for (const auto& l : SplitLines(text)) {
    ++n;
    EXPECT_LE(testdata::Columns(l), 110u) << "line " << n << ": " << l;
  }
}

// The text with line breaks and the indentation after them folded into single spaces.
std::string Unwrapped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    out += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return out;
}

TEST(TextReport, BucketRowsMatchThePublishedFigures) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(RowFields(text, "xl_>=80us"),
              ElementsAre("xl_>=80us", "42.1", "194.23", "9703.2", "2.0", "6875.60", "8930.3",
                          "+772.9", "+8.7%", "0.008"));
  EXPECT_THAT(RowFields(text, "md_8_32us"),
              ElementsAre("md_8_32us", "0.8", "16.21", "12.8", "0.2", "16.65", "3.6", "+9.2",
                          "+255.6%", "0.008"));
  EXPECT_THAT(RowFields(text, "sm_2_8us"), ElementsAre("sm_2_8us", "1.0", "6.21", "5.4", "1.0",
                                                       "3.79", "4.0", "+1.4", "+35.0%", "0.008"));
}

TEST(TextReport, TotalRowCarriesTheDeltaAndItsPercentage) {
  std::string text = RenderText(testdata::Iter22());
  std::string total = LineWith(text, "TOTAL ");
  EXPECT_THAT(total, HasSubstr("+798.1"));
  EXPECT_THAT(total, HasSubstr("+8.9%"));
  EXPECT_THAT(Fields(total), ElementsAre("TOTAL", "44.2", "-", "9735.6", "3.3", "-", "8937.5",
                                         "+798.1", "+8.9%", "0.008"));
  // The busy (union) row sits beside the summed total.
  EXPECT_THAT(Fields(LineWith(text, "busy (union) ")),
              ElementsAre("busy", "(union)", "9735.6", "8937.5", "+798.1", "+8.9%"));
}

TEST(TextReport, DeltaPercentIsNotApplicableWhenTheBaselineIsZero) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(RowFields(text, "lg_32_80us"),
              ElementsAre("lg_32_80us", "0.3", "52.17", "14.8", "0.0", "0.00", "0.0", "+14.8",
                          "n/a", "0.008"));
  // The seed printed +0.0 % here (and divided by zero in the TOTAL row).
  Report r = testdata::Iter22();
  r.comparison->total = testdata::D("total", 9735.6, 0.0);
  EXPECT_THAT(
      Fields(LineWith(RenderText(r), "TOTAL ")),
      ElementsAre("TOTAL", "44.2", "-", "9735.6", "3.3", "-", "0.0", "+9735.6", "n/a", "0.008"));
}

TEST(TextReport, LocalPercentagesAreNotApplicableOnAZeroBase) {
  Report r = testdata::Iter22();
  r.engines[1].busy_us_per_token = testdata::M(0.0);
  r.engines[1].families.clear();
  r.comparison->families = {testdata::D("compute", 3711.0, 0.0)};
  r.comparison->total = testdata::D("total", 9735.6, 0.0);
  std::string text = RenderText(r);
  EXPECT_THAT(Fields(LineWith(text, "busy (union) ")),
              ElementsAre("busy", "(union)", "9735.6", "0.0", "+9735.6", "n/a"));
  EXPECT_THAT(RowFields(text, "TOTAL", "Per-encoder-family"),
              ElementsAre("TOTAL", "-", "3711.0", "-", "0.0", "+3711.0", "n/a"));
  EXPECT_THAT(text, HasSubstr("  delta: +9.2 µs/tok (n/a of the baseline's total GPU µs/tok)\n"));
}

TEST(TextReport, GroupHeaderNamesBothSides) {
  std::string text = RenderText(testdata::Iter22());
  std::string group = LineWith(text, "hf2q (engine)");
  EXPECT_THAT(group, HasSubstr("llama (baseline)"));
  EXPECT_LT(group.find("hf2q (engine)"), group.find("llama (baseline)"));
}

TEST(TextReport, MdBucketSummaryMultipliesCountByP50) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(text, HasSubstr("  hf2q: 0.8 sub/tok × 16.21 µs/sub (p50) = 12.8 µs/tok\n"));
  EXPECT_THAT(text, HasSubstr("  llama: 0.2 sub/tok × 16.65 µs/sub (p50) = 3.6 µs/tok\n"));
  // +9.2 µs/tok is 0.10 % of the baseline's 8,937.5 µs/tok (the seed's "of llama wall").
  EXPECT_THAT(text,
              HasSubstr("  delta: +9.2 µs/tok (+0.10% of the baseline's total GPU µs/tok)\n"));
}

TEST(TextReport, AttackTargetNamesTheBucketAndItsHint) {
  // The headline, under the title: the bucket, its Δ and p, and the kernel class.
  std::string text = Unwrapped(RenderText(testdata::Iter22()));
  EXPECT_THAT(text, HasSubstr("Attack target xl_>=80us: Δ +772.9 µs/tok (+8.7%), p = 0.008, the bucket "
                              "with the largest positive Δµs/tok; likely kernel class: prefill mul_mm_id / lm_head "
                              "/ large blits. Total GPU time: 9735.6 vs 8937.5 µs/tok, Δ +798.1 (+8.9%), p = 0.008 "
                              "(n = 5/5 trials)."));
}

TEST(TextReport, NoAttackTargetWhenNoBucketRegressed) {
  Report r = testdata::Iter22();
  r.comparison->attack_target.reset();
  r.comparison->attack_hint.clear();
  std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("\nAttack target: none (no bucket regressed).\n"));
  EXPECT_THAT(text, Not(HasSubstr("likely kernel class")));
}

TEST(TextReport, AttackHintFallsBackToTheConfiguredBucket) {
  Report r = testdata::Iter22();
  r.comparison->attack_target = "md_8_32us";
  r.comparison->attack_hint.clear();
  EXPECT_THAT(RenderText(r),
              HasSubstr("likely kernel class: Q4_0 MoE mat-vec_id (gate/up/down), primary"));
}

TEST(TextReport, FamilyTableIsSortedByDelta) {
  std::string text = RenderText(testdata::Iter22());
  size_t section = IndexOf(text, "Per-encoder-family GPU time");
  size_t blit = text.find("\nblit ", section);
  size_t compute = text.find("\ncompute ", section);
  ASSERT_NE(blit, std::string::npos);
  ASSERT_NE(compute, std::string::npos);
  EXPECT_LT(blit, compute);  // -3.4 before -4,118.9
  EXPECT_THAT(
      RowFields(text, "compute", "Per-encoder-family"),
      ElementsAre("compute", "13.70", "3711.0", "2.00", "7829.9", "-4118.9", "-52.6%", "0.008"));
  EXPECT_THAT(RowFields(text, "TOTAL", "Per-encoder-family"),
              ElementsAre("TOTAL", "-", "3711.0", "-", "7833.3", "-4122.3", "-52.6%"));

  // Sorted by Δ even when the comparison lists the families in another order.
  Report r = testdata::Iter22();
  std::swap(r.comparison->families[0], r.comparison->families[1]);
  std::string swapped = RenderText(r);
  size_t s = swapped.find("Per-encoder-family");
  EXPECT_LT(swapped.find("\nblit ", s), swapped.find("\ncompute ", s));
}

TEST(TextReport, PhaseTableIsSortedByEngineTimeWithCoverageAndTopThree) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(
      text,
      HasSubstr("hf2q label coverage (trial 0): 2583 / 2786 encoders carry a phase label (92.7%)"));
  size_t section = IndexOf(text, "Per-command-buffer-phase");
  size_t attn = text.find("\nlayer.attn_moe_ffn ", section);
  size_t cb0 = text.find("\nCommand Buffer 0 ", section);
  size_t head = text.find("\noutput_head.fused_norm_lm_argmax ", section);
  ASSERT_NE(attn, std::string::npos);
  EXPECT_LT(attn, cb0);
  EXPECT_LT(cb0, head);
  EXPECT_THAT(RowFields(text, "layer.attn_moe_ffn", "Per-command-buffer-phase"),
              ElementsAre("layer.attn_moe_ffn", "39.38", "39.38", "7779.8", "197.6", "0.00", "0.0",
                          "+7779.8", "0.008"));
  EXPECT_THAT(RowFields(text, "TOTAL", "Per-command-buffer-phase"),
              ElementsAre("TOTAL", "-", "-", "9698.7", "-", "8933.8", "+764.9"));

  size_t top = IndexOf(text, "Top-3 labelled hf2q phases");
  std::string after = text.substr(top);
  EXPECT_THAT(
      after,
      HasSubstr(
          "\n  layer.attn_moe_ffn: 39.38 CBs/tok × ~197.6 µs/CB = 7779.8 µs/tok (39.4 sub/tok)\n"
          "  output_head.fused_norm_lm_argmax: 0.98 CBs/tok × ~567.6 µs/CB = 556.2 µs/tok "
          "(1.0 sub/tok)\n\n"));
  // Generic phases never rank.
  EXPECT_THAT(after.substr(0, after.find("\n\n")), Not(HasSubstr("Command Buffer 0:")));
}

TEST(TextReport, TrialLinesCarryTheSourceCountsAndFilterCounts) {
  Report r = testdata::Iter22();
  auto& t = r.engines[0].trials[1];
  testdata::SetSourceCount(&t, "leftover_starts", 2);
  testdata::SetSourceCount(&t, "duplicate_starts", 1);
  t.excluded_other_process = 120;
  t.excluded_no_owner = 4;
  t.excluded_unnamed_owner = 5;
  t.excluded_outside_window = 321;
  t.tokens = 63;
  t.tokens_source = "label:output_head.fused_norm_lm_argmax";
  t.tokens_in_trace = 63;
  t.busy_us_per_token = 9600.0;
  std::string text = RenderText(r);
  EXPECT_THAT(
      text,
      HasSubstr(
          "  trial-2: submissions=2829 (44.2/tok), gpu=9697.5 µs/tok summed, "
          "9600.0 µs/tok busy (union)\n"
          "    read: 2829 submissions; rows 5658, unpaired ends 0, leftover starts 2, duplicate starts 1, shader timeline\n"
          "      rows 0\n"
          "    excluded: other process 120, no owner 4, unnamed owner 5, outside window 321\n"
          "    tokens: 63 (label:output_head.fused_norm_lm_argmax)\n"));
  // Trial 1 has the metal-gpu-intervals cross-check: 1.0 µs/tok below the union.
  EXPECT_THAT(
      text,
      HasSubstr("    tokens: 64 (given) | gpu-intervals union 9767.9 µs/tok (-0.01% vs busy)\n"));
  EXPECT_THAT(text, HasSubstr("unpaired ends 3"));
}

TEST(TextReport, PerTrialLinesAndSpread) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(
      text, HasSubstr("hf2q per-trial gpu µs/tok (summed): 9768.9, 9697.5, 9741.1, 9520.9, 9735.6 "
                      "(spread 2.6%)\n"));
  EXPECT_THAT(
      text, HasSubstr("llama per-trial gpu µs/tok (summed): 8944.5, 8937.5, 8935.0, 8973.8, 8917.9 "
                      "(spread 0.6%)\n"));
}

TEST(TextReport, SaysWhatASubmissionIsAndWhichMethod) {
  Report r = testdata::Iter22();
  std::string text = RenderText(r);
  EXPECT_THAT(Unwrapped(text), HasSubstr("A \"submission\" is one such execution-point pair (about "
                                         "one encoder), NOT a kernel dispatch"));
  EXPECT_THAT(Unwrapped(text), HasSubstr("Mode: seed-compatible"));
  // No iteration-specific prose from the seed.
  EXPECT_THAT(text, Not(::testing::ContainsRegex("iter[0-9]")));
  r.seed_compat = false;
  EXPECT_THAT(Unwrapped(RenderText(r)), HasSubstr("Mode: corrected"));
}

TEST(TextReport, LabelColumnsWidenForLongNames) {
  Report r = testdata::Iter22();
  const std::string a = "layer.12.attn_output_projection";
  const std::string b = "layer.12.attn_qkv_projection";
  r.comparison->families = {testdata::D(a, 100.0, 50.0), testdata::D(b, 90.0, 80.0)};
  std::string text = RenderText(r);
  EXPECT_THAT(RowFields(text, a, "Per-encoder-family"),
              ElementsAre(a, "0.00", "100.0", "0.00", "50.0", "+50.0", "+100.0%", "0.008"));
  EXPECT_THAT(RowFields(text, b, "Per-encoder-family"),
              ElementsAre(b, "0.00", "90.0", "0.00", "80.0", "+10.0", "+12.5%", "0.008"));
  ExpectEveryLineFits(text);
}

TEST(TextReport, DiagnosticsSectionListsCodesAndCounts) {
  std::string text = RenderText(testdata::Iter22());
  EXPECT_THAT(Fields(LineWith(text, "attr.unpaired_end ")),
              ::testing::IsSupersetOf({"hf2q", "attr.unpaired_end", "warning", "3"}));
  Report clean = testdata::Iter22();
  clean.engines[0].diagnostics = Diagnostics();
  EXPECT_THAT(RenderText(clean), Not(HasSubstr("Diagnostics (")));
}

TEST(TextReport, KernelRegistryPerFamily) {
  Report r = testdata::Iter22();
  r.engines[0].kernel_registry["dense_mv"] = {"k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  std::string text = RenderText(r);
  EXPECT_THAT(
      text,
      HasSubstr("\n  rms_norm (2): kernel_rms_norm_f32, kernel_rms_norm_fuse_f32\n"));
  // Five names a family, then an ellipsis: the JSON report lists them all.
  EXPECT_THAT(text, HasSubstr("\n  dense_mv (7): k1, k2, k3, k4, k5, …\n"));
  EXPECT_THAT(text, HasSubstr("Shader Timeline rows (metal-shader-profiler-intervals): 0 (empty"));
}

TEST(TextReport, EveryLineFitsIn110Columns) {
  Report r = testdata::Iter22();
  ExpectEveryLineFits(RenderText(r));

  // Long labels, names and paths are cut with an ellipsis, never wrapped past 110.
  const std::string long_phase(200, 'p');
  r.engines[0].name = std::string(80, 'E');
  r.comparison->engine = r.engines[0].name;
  r.engines[0].phases[long_phase] = testdata::P(1.0, 9999.0, 9999.0);
  r.comparison->phases.insert(r.comparison->phases.begin(), testdata::D(long_phase, 9999.0, 0.0));
  r.engines[0].trials[0].path = "/very/long/" + std::string(150, 'x') + ".trace";
  r.engines[0].trials[0].tokens_source = "label:" + std::string(150, 'l');
  r.engines[0].kernel_registry["fam"] = {std::string(120, 'k'), "kernel_b"};
  std::vector<double> many(40, 12345.6);
  r.engines[1].gpu_us_per_token.per_trial = many;
  std::string text = RenderText(r);
  ExpectEveryLineFits(text);
  EXPECT_THAT(text, HasSubstr(std::string(35, 'p') + "…"));
  EXPECT_THAT(text, HasSubstr("12345.6, 12345.6"));
  // The wrapped per-trial values are all still there.
  size_t count = 0;
  for (size_t i = text.find("llama per-trial gpu");
       (i = text.find("12345.6", i)) != std::string::npos; ++i) {
    ++count;
  }
  EXPECT_EQ(count, 40u);
  ExpectEveryLineFits(RenderText(testdata::EngineOnly()));
}

TEST(TextReport, EngineOnlyPartialReport) {
  std::string text = RenderText(testdata::EngineOnly());
  EXPECT_THAT(text, HasSubstr("hf2q-only partial attribution (no baseline given)"));
  EXPECT_THAT(text, Not(HasSubstr("Δµs/tok")));
  EXPECT_THAT(text, Not(HasSubstr("llama")));
  EXPECT_THAT(Fields(LineWith(text, "TOTAL ")), ElementsAre("TOTAL", "44.2", "-", "9735.6"));
  EXPECT_THAT(RowFields(text, "xl_>=80us"), ElementsAre("xl_>=80us", "42.1", "194.23", "9703.2"));
  EXPECT_THAT(Unwrapped(text), HasSubstr("Total GPU time: 9735.6 µs/tok (busy, union: 9735.6), 44.2 submissions/tok, "
                                         "median of 5 trials; no baseline, so no attack target."));
  // Phases sorted by the engine's GPU time, with the top-3 line.
  EXPECT_LT(IndexOf(text, "\nlayer.attn_moe_ffn "), IndexOf(text, "\nCommand Buffer 0 "));
  EXPECT_THAT(text,
              HasSubstr("  layer.attn_moe_ffn: 39.38 CBs/tok × ~197.6 µs/CB = 7779.8 µs/tok"));
}

TEST(TextReport, NothingSummarised) {
  Report r;
  std::string text = RenderText(r);
  EXPECT_THAT(text, HasSubstr("\nNo traces summarised.\n"));
  ExpectEveryLineFits(text);
}

TEST(TextReport, MissingBaselineSummaryStillRenders) {
  Report r = testdata::Iter22();
  r.engines.pop_back();  // a comparison without the baseline's summary
  std::string text = RenderText(r);
  EXPECT_THAT(Fields(LineWith(text, "TOTAL ")),
              ElementsAre("TOTAL", "44.2", "-", "9735.6", "0.0", "-", "8937.5", "+798.1", "+8.9%",
                          "0.008"));
  EXPECT_THAT(text, HasSubstr("llama (baseline)"));
}

TEST(TextReport, TraceJsonFamiliesAreKernelFamilies) {
  const std::string metal = RenderText(testdata::Iter22());
  EXPECT_THAT(metal, HasSubstr("Per-encoder-family GPU time (submissions joined to encoders)"));
  EXPECT_THAT(LineWith(metal, "family   "), HasSubstr("enc/tok  gpu µs/tok"));

  const std::string json = RenderText(testdata::Iter22FromTraceJson());
  EXPECT_THAT(json, HasSubstr("Per-kernel-family GPU time"));
  EXPECT_THAT(json, Not(HasSubstr("encoder-family")));
  EXPECT_THAT(LineWith(json, "family   "), HasSubstr("kern/tok  gpu µs/tok"));
  EXPECT_THAT(json, Not(HasSubstr("enc/tok")));
  EXPECT_THAT(json, HasSubstr("kern/tok = kernels per token; p50 µs/kern = median kernel duration"));
  EXPECT_THAT(json, Not(HasSubstr("sub/tok")));
  EXPECT_THAT(json, HasSubstr("Per-annotation-phase GPU time"));
  EXPECT_THAT(json, HasSubstr("2583 / 2786 kernels carry a phase label"));
  EXPECT_THAT(json, HasSubstr("  layer.attn_moe_ffn: 39.38 ranges/tok × ~197.6 µs/range = 7779.8 µs/tok (39.4 kern/tok)"));
  EXPECT_THAT(json, HasSubstr("Kernel list (kernel names by family)"));
  EXPECT_THAT(json, HasSubstr("hf2q kernel list (kernel names by family):"));
  EXPECT_THAT(json, Not(HasSubstr("Shader Timeline")));
  EXPECT_THAT(json, Not(HasSubstr("CBs")));
  EXPECT_THAT(json, Not(HasSubstr("pipeline")));
  // The phase table keeps every column within the width with the longer words.
  ExpectEveryLineFits(json);
  EXPECT_THAT(LineWith(json, "phase    "), HasSubstr("ranges/tok  kern/tok  µs/tok  µs/range  ranges/tok  µs/tok  Δµs/tok      p"));
  EXPECT_THAT(LineWith(json, "layer.attn_moe_ffn  "), testing::EndsWith("+7779.8  0.008"));
  EXPECT_THAT(json, HasSubstr("\nKernels/tok: "));
  EXPECT_THAT(json, HasSubstr(": kernels="));
  EXPECT_THAT(json, Not(HasSubstr("Submissions/tok")));
  EXPECT_THAT(metal, HasSubstr("sub/tok = submissions per token; p50 µs/sub = median submission duration"));
  EXPECT_THAT(metal, HasSubstr("Per-command-buffer-phase GPU time"));
  EXPECT_THAT(metal, HasSubstr("Kernel registry (metal-shader-profiler-shader-list)"));
  EXPECT_THAT(metal, HasSubstr("hf2q shader registry (pipeline names by family):"));
  EXPECT_THAT(metal, Not(HasSubstr("kern/tok")));
  EXPECT_THAT(metal, HasSubstr("\nSubmissions/tok: "));
  EXPECT_THAT(metal, HasSubstr(": submissions="));
}

}  // namespace
}  // namespace perfgate::report
