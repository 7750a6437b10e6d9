// The kernel-name helpers the reports share (report_util.h) and the text report's
// table on hand-built summaries: display names, middle cuts, numbering, row limits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/report/formats.h"
#include "support/report_render.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::EngineSummary;
using attribution::LevelMedians;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(KernelNameDisplay, TruncateMiddleKeepsTheEndAndTheWidth) {
  const std::string name = "triton_poi_fused__scaled_dot_product_cudnn_attention__to_copy_view_where_6";
  const std::string cut = util::TruncateMiddle(name, 30);
  EXPECT_EQ(util::DisplayWidth(cut), 30u);
  EXPECT_EQ(cut, "triton_poi_fuse…y_view_where_6");  // the last 14 = (30 - 1) / 2 columns kept
  EXPECT_EQ(util::TruncateMiddle(name, name.size()), name);
  // Code points are never split: "é" is two bytes, one column.
  std::string accented;
  for (int i = 0; i < 30; ++i) accented += "é";
  accented += "_tail_end";
  const std::string cut2 = util::TruncateMiddle(accented, 30);
  EXPECT_EQ(util::DisplayWidth(cut2), 30u);
  EXPECT_THAT(cut2, ::testing::EndsWith("_tail_end"));
  EXPECT_EQ(cut2.substr(0, 2), "é");
}

TEST(KernelNameDisplay, CompactNameDropsWhatEveryNameRepeats) {
  EXPECT_EQ(util::CompactKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                                    "namespace)::pow_kernel<float>, std::array<char*, 2ul> >(int, float)"),
            "vectorized_elementwise_kernel<4, pow_kernel<float>, array<char*, 2ul> >");
  EXPECT_EQ(util::CompactKernelName("nvjet_sm90_tst_8x64"), "nvjet_sm90_tst_8x64");
}

LevelMedians Name(const std::string& short_name, double us_per_token) {
  LevelMedians k;
  k.short_name = short_name;
  k.family = "elementwise";
  k.trials = 1;
  k.gpu_us_per_token = {us_per_token, {us_per_token}};
  k.items_per_token = {1, {1}};
  return k;
}

EngineSummary Engine(int names) {
  EngineSummary e;
  e.name = "torch";
  e.trials.resize(1);
  e.trials[0].source = "trace_json";
  e.trials[0].tokens = 1;
  for (int i = 0; i < names; ++i) {
    e.kernels["void k" + std::to_string(100 + i) + "<float>(float*)"] = Name("k" + std::to_string(100 + i), i);
  }
  return e;
}

// Names that share a short name are numbered in the order of their full names.
TEST(KernelNameDisplay, SharedShortNamesAreNumbered) {
  EngineSummary e = Engine(1);
  e.kernels["void at::native::elementwise_kernel<128, 4, B>(int)"] = Name("elementwise_kernel", 5);
  e.kernels["void at::native::elementwise_kernel<128, 2, A>(int)"] = Name("elementwise_kernel", 7);
  const auto display = util::KernelDisplayNames({&e, nullptr});
  EXPECT_EQ(display.at("void at::native::elementwise_kernel<128, 2, A>(int)"), "elementwise_kernel #1");
  EXPECT_EQ(display.at("void at::native::elementwise_kernel<128, 4, B>(int)"), "elementwise_kernel #2");
  EXPECT_EQ(display.at("void k100<float>(float*)"), "k100");
  Report report;
  report.engines.push_back(e);
  const std::string text = RenderText(report);
  EXPECT_THAT(text, HasSubstr("\nelementwise_kernel #1 "));
  EXPECT_THAT(text, HasSubstr("\n  elementwise_kernel #1: elementwise_kernel<128, 2, A>\n"));
  EXPECT_THAT(text, HasSubstr("\n  elementwise_kernel #2: elementwise_kernel<128, 4, B>\n"));
}

// Four cuBLAS names from the 2×H100 nsys export (shared/corpus/nsys): whole they
// differ, but only in the middle (nn/tn, tile size, split_k), and every cut keeps the
// same head and the same 16-character tail. In full-name order: D, B, A, C.
const std::string kGemmA =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_"
    "kernel__5x_cublas";
const std::string kGemmB =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_"
    "kernel__5x_cublas";
const std::string kGemmC =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_"
    "split_k_kernel__5x_cublas";
const std::string kGemmD =
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_"
    "kernel__5x_cublas";

// k100 and the four gemms (a name without templates is its own short name).
EngineSummary Gemms() {
  EngineSummary e = Engine(1);
  e.kernels[kGemmA] = Name(kGemmA, 40);
  e.kernels[kGemmB] = Name(kGemmB, 30);
  e.kernels[kGemmC] = Name(kGemmC, 20);
  e.kernels[kGemmD] = Name(kGemmD, 10);
  return e;
}

// Cut to a column, names whose cuts read alike are numbered like names that share a
// short name, and the number fits in the column; whole, nothing is numbered.
TEST(KernelNameDisplay, NamesAlikeOnceCutAreNumbered) {
  const EngineSummary e = Gemms();
  const util::KernelLabels cut = util::KernelDisplayNames({&e}, 39);
  EXPECT_EQ(cut.at(kGemmD), "sm80_xmma_gemm_f32f…ernel__5x_cublas #1");
  EXPECT_EQ(cut.at(kGemmB), "sm80_xmma_gemm_f32f…ernel__5x_cublas #2");
  EXPECT_EQ(cut.at(kGemmA), "sm80_xmma_gemm_f32f…ernel__5x_cublas #3");
  EXPECT_EQ(cut.at(kGemmC), "sm80_xmma_gemm_f32f…ernel__5x_cublas #4");
  EXPECT_EQ(cut.at("void k100<float>(float*)"), "k100");
  EXPECT_EQ(cut.numbered, (std::set<std::string>{kGemmA, kGemmB, kGemmC, kGemmD}));
  for (const auto& [name, label] : cut.text) EXPECT_LE(util::DisplayWidth(label), 39u) << label;
  // At 60 columns "nn_n" survives the cut: D reads alone and keeps its plain cut.
  const util::KernelLabels wider = util::KernelDisplayNames({&e}, 60);
  EXPECT_EQ(wider.at(kGemmD), "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tiles…ernel__5x_cublas");
  EXPECT_EQ(wider.at(kGemmB), "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_ti…ernel__5x_cublas #1");
  EXPECT_EQ(wider.numbered, (std::set<std::string>{kGemmA, kGemmB, kGemmC}));
  const util::KernelLabels whole = util::KernelDisplayNames({&e});
  EXPECT_EQ(whole.at(kGemmC), kGemmC);
  EXPECT_TRUE(whole.numbered.empty());
}

// A number that another kernel's name already reads as is skipped, so that the
// strings stay unique even against a name that ends in " #1".
TEST(KernelNameDisplay, ANumberAnotherNameReadsAsIsSkipped) {
  EngineSummary e = Engine(0);
  e.kernels["k #1"] = Name("k #1", 1);
  e.kernels["void k<1>()"] = Name("k", 2);
  e.kernels["void k<2>()"] = Name("k", 3);
  const util::KernelLabels labels = util::KernelDisplayNames({&e});
  EXPECT_EQ(labels.at("k #1"), "k #1");
  EXPECT_EQ(labels.at("void k<1>()"), "k #2");
  EXPECT_EQ(labels.at("void k<2>()"), "k #3");
  EXPECT_EQ(labels.numbered, (std::set<std::string>{"void k<1>()", "void k<2>()"}));
}

// Names that differ only in their parameters have one compact name: the list under the
// table then gives them whole, or it would not tell them apart.
TEST(KernelNameDisplay, NamesAlikeWithoutParametersAreListedWhole) {
  EngineSummary e = Engine(0);
  e.kernels["void f<int>(float)"] = Name("f", 1);
  e.kernels["void f<int>(double)"] = Name("f", 2);
  e.kernels["void f<long>(int)"] = Name("f", 3);
  const util::KernelLabels labels = util::KernelDisplayNames({&e});
  const std::vector<std::string> shown = {"void f<long>(int)", "void f<int>(float)", "void f<int>(double)"};
  using Listed = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(util::NumberedKernelNames(shown, labels),
            (Listed{{"f #3", "f<long>"}, {"f #2", "void f<int>(float)"}, {"f #1", "void f<int>(double)"}}));
}

// Lines broken at spaces; a word wider than a line is broken, not cut: nothing is lost.
TEST(KernelNameDisplay, WrapLinesBreaksLongWordsAndLosesNothing) {
  using Wrapped = std::vector<std::string>;
  EXPECT_EQ(util::WrapLines("aa bb cc", 5, 5), (Wrapped{"aa bb", "cc"}));
  EXPECT_EQ(util::WrapLines("abcdefghij", 4, 3), (Wrapped{"abcd", "efg", "hij"}));
  EXPECT_EQ(util::WrapLines("xy abcdefgh z", 5, 4), (Wrapped{"xy", "abcd", "efgh", "z"}));
  EXPECT_EQ(util::WrapLines("ééééé", 2, 2), (Wrapped{"éé", "éé", "é"}));  // code points kept whole
  EXPECT_EQ(util::WrapLines("", 5, 5), (Wrapped{""}));
}

// Every format's kernel-name rows read apart, and the list under each says which
// whole name each numbered row is. The table's first column is 45 wide (what the other
// columns leave of the text's 110; Markdown shows the same labels), where all four
// gemms read alike; the SVG's 32.
TEST(KernelNameTable, NamesAlikeOnceCutAreNumberedAndListedInEveryFormat) {
  Report report;
  report.engines.push_back(Gemms());
  const std::string text = RenderText(report);
  EXPECT_THAT(text, HasSubstr("\nsm80_xmma_gemm_f32f32_f32…ernel__5x_cublas #3  elementwise "));  // A, 40 µs/tok
  EXPECT_THAT(text, HasSubstr("\nsm80_xmma_gemm_f32f32_f32…ernel__5x_cublas #4  elementwise "));
  EXPECT_THAT(text, Not(HasSubstr("…ernel__5x_cublas  elementwise")));
  // Whole, below its label: 106 columns of the name a line, then the rest.
  EXPECT_THAT(text, HasSubstr("\n  sm80_xmma_gemm_f32f32_f32…ernel__5x_cublas #1:\n    " + kGemmD.substr(0, 106) +
                              "\n    " + kGemmD.substr(106) + "\n"));
  EXPECT_THAT(text, HasSubstr("\n  sm80_xmma_gemm_f32f32_f32…ernel__5x_cublas #4:\n    " + kGemmC.substr(0, 106) +
                              "\n    " + kGemmC.substr(106) + "\n"));
  const std::string md = RenderMarkdown(report);
  EXPECT_THAT(md, HasSubstr("\n| `sm80_xmma_gemm_f32f32_f32…ernel__5x_cublas #3` | `elementwise` | 1.00 | 40.00 |"));
  EXPECT_THAT(md, HasSubstr("\n  - sm80\\_xmma\\_gemm\\_f32f32\\_f32…ernel\\_\\_5x\\_cublas #3: `" + kGemmA + "`\n"));
  const std::string svg = RenderSvg(report);
  EXPECT_THAT(svg, HasSubstr(">sm80_xmma_gemm…nel__5x_cublas #3</text>"));
  // The chart's key: the label, then the name whole, 120 characters a line.
  EXPECT_THAT(svg, HasSubstr("<g class=\"key\""));
  EXPECT_THAT(svg, HasSubstr(">sm80_xmma_gemm…nel__5x_cublas #4:</text>"));
  EXPECT_THAT(svg, HasSubstr(">" + kGemmC.substr(0, 120) + "</text>"));
  EXPECT_THAT(svg, HasSubstr(">" + kGemmC.substr(120) + "</text>"));
}

// Beside a baseline the Δ rows are named the same way, from the names of both sides,
// and the SVG's Δ chart by kernel name gets its own key.
TEST(KernelNameTable, ComparisonRowsOfNamesAlikeOnceCutAreNumberedToo) {
  Report report;
  report.engines = {Gemms(), Gemms()};
  report.engines[1].name = "base";
  report.comparison = attribution::Comparison{};
  report.comparison->engine = "torch";
  report.comparison->baseline = "base";
  report.comparison->kernels = {{kGemmA, 44, 40, 4, {}, 1}, {kGemmB, 31, 30, 1, {}, 1}, {kGemmD, 10, 10, 0, {}, 1}};
  const std::string text = RenderText(report);
  // Without a family column the first column is 51 wide; A and B still read alike.
  EXPECT_THAT(text, HasSubstr("\nsm80_xmma_gemm_f32f32_f32f32_f3…ernel__5x_cublas #2       1.00   44.00"));  // A
  EXPECT_THAT(text, HasSubstr("\n  sm80_xmma_gemm_f32f32_f32f32_f3…ernel__5x_cublas #1:\n    " + kGemmB.substr(0, 106) +
                              "\n"));
  EXPECT_THAT(text, HasSubstr("\nsm80_xmma_gemm_f32f32_f32f32_f32_n…ernel__5x_cublas       1.00   10.00"));  // D, alone
  EXPECT_THAT(text, Not(HasSubstr("cublas #3:")));  // C has no row, so it is not listed
  EXPECT_THAT(RenderMarkdown(report), HasSubstr("\n  - sm80\\_xmma\\_gemm\\_f32f32\\_f32f32\\_f3…ernel\\_\\_5x\\_cublas #2: `" +
                                                kGemmA + "`\n"));
  const std::string svg = RenderSvg(report);
  const size_t delta_chart = svg.find(">Δ GPU µs/token by kernel name (top 10 by |Δ|)</text>");
  ASSERT_NE(delta_chart, std::string::npos);
  const size_t bar_chart = svg.find(">GPU µs/token by kernel name (top 10)</text>");
  const size_t key = svg.find("<g class=\"key\"", delta_chart);
  EXPECT_LT(key, bar_chart);  // the Δ chart's key, under it
  EXPECT_NE(svg.find("<g class=\"key\"", bar_chart), std::string::npos);  // and the bar chart's
}

// The most GPU time first, `kernel_name_rows` of them, then the rest in one line.
TEST(KernelNameTable, TextShowsTheTopRowsThenHowManyMore) {
  Report report;
  report.engines.push_back(Engine(25));
  const std::string text = RenderText(report);
  EXPECT_THAT(text, HasSubstr("\nk124 "));  // 24 µs/tok: the first row
  EXPECT_THAT(text, HasSubstr("\nk105 "));  // the 20th
  EXPECT_THAT(text, Not(HasSubstr("\nk104 ")));
  // The five left out hold 0 + 1 + 2 + 3 + 4 = 10 µs/tok.
  EXPECT_THAT(text, HasSubstr("\n… and 5 more kernel names (10.00 µs/tok together);"));
  report.kernel_name_rows = 0;
  const std::string all = RenderText(report);
  EXPECT_THAT(all, HasSubstr("\nk100 "));
  EXPECT_THAT(all, Not(HasSubstr("more kernel names")));
  report.kernel_name_rows = 3;
  EXPECT_THAT(RenderMarkdown(report), HasSubstr("\n… and 22 more kernel names (231.00 µs/tok together);"));
}

// Engines of two sources: the kernel source's table, and the Metal baseline's own words
// on why nothing is compared by name.
TEST(KernelNameTable, ABaselineWithoutKernelNamesSaysWhyInItsWords) {
  Report report;
  report.engines.push_back(Engine(2));
  EngineSummary metal;
  metal.name = "hf2q";
  metal.trials.resize(1);  // source "metal"
  report.engines.push_back(metal);
  report.comparison = attribution::Comparison{};
  report.comparison->engine = "torch";
  report.comparison->baseline = "hf2q";
  const std::string text = RenderText(report);
  EXPECT_THAT(text, HasSubstr("\nk101 "));
  EXPECT_THAT(text, HasSubstr("\nhf2q, so no comparison by name: A submission names no kernel"));
  EXPECT_THAT(RenderMarkdown(report), HasSubstr("\nhf2q, so no comparison by name: A submission names no kernel"));
}

}  // namespace
}  // namespace perfgate::report
