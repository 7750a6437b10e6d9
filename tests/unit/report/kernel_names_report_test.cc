// The kernel-name helpers the reports share (report_util.h) and the text report's
// table on hand-built summaries: display names, middle cuts, numbering, row limits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "perfgate/report/formats.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::EngineSummary;
using attribution::KernelNameMedians;
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

KernelNameMedians Name(const std::string& short_name, double us_per_token) {
  KernelNameMedians k;
  k.short_name = short_name;
  k.family = "elementwise";
  k.trials = 1;
  k.gpu_us_per_token = {us_per_token, {us_per_token}};
  k.calls_per_token = {1, {1}};
  return k;
}

EngineSummary Engine(int names) {
  EngineSummary e;
  e.name = "torch";
  e.trials.resize(1);
  e.trials[0].source = "trace_json";
  e.trials[0].tokens = 1;
  for (int i = 0; i < names; ++i) {
    e.kernel_names["void k" + std::to_string(100 + i) + "<float>(float*)"] = Name("k" + std::to_string(100 + i), i);
  }
  return e;
}

// Names that share a short name are numbered in the order of their full names.
TEST(KernelNameDisplay, SharedShortNamesAreNumbered) {
  EngineSummary e = Engine(1);
  e.kernel_names["void at::native::elementwise_kernel<128, 4, B>(int)"] = Name("elementwise_kernel", 5);
  e.kernel_names["void at::native::elementwise_kernel<128, 2, A>(int)"] = Name("elementwise_kernel", 7);
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
  EXPECT_THAT(RenderMarkdown(report), HasSubstr("_… and 22 more kernel names with less GPU time;"));
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
