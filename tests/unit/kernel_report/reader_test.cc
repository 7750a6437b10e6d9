// Reading per-kernel reports: the two real files, names and families, every error code.
#include <gtest/gtest.h>

#include <cmath>

#include "perfgate/kernel_report/report.h"
#include "report_fixture.h"

namespace perfgate::kernel_report {
namespace {

using test::KernelJson;
using test::ReportJson;

TEST(KernelReportNames, MatchNameDropsSpecialisationSuffixes) {
  EXPECT_EQ(MatchName("kernel_mul_mv_q4_0_f32_nsg=2"), "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ(MatchName("kernel_flash_attn_ext_vec_reduce_dv=256_nwg=32"), "kernel_flash_attn_ext_vec_reduce");
  EXPECT_EQ(MatchName("kernel_mul_mm_id_map0_ne20_8_ne02=128"), "kernel_mul_mm_id_map0_ne20_8");
  EXPECT_EQ(MatchName("gemm_nt_f16_f16_32_32_16_2_2"), "gemm_nt_f16_f16_32_32_16_2_2");
  EXPECT_EQ(MatchName("<no_pipeline_set>"), "<no_pipeline_set>");
  EXPECT_EQ(MatchName("op=1_x"), "op=1_x");  // nothing before the specialisation: its own
  EXPECT_TRUE(std::isnan(Kernel{}.us_per_token()));  // a hand-built kernel without figures
}

TEST(KernelReportNames, FamiliesFollowTheSeedRulesThenTheReportRules) {
  const auto t = DefaultReportFamilies();
  auto family = [&](const char* name) { return attribution::KernelFamily(t, MatchName(name)); };
  EXPECT_EQ(family("kernel_mul_mv_q4_0_f32_nsg=2"), "dense_q4_0_mv");
  EXPECT_EQ(family("kernel_mul_mv_id_q4_0_f32_nsg=2"), "moe_q4_0_mv");
  EXPECT_EQ(family("kernel_mul_mv_f16_f32_4_nsg=4"), "dense_mv");
  EXPECT_EQ(family("kernel_flash_attn_ext_blk_nqptg=8_ncpsg=64"), "flash_attn");
  EXPECT_EQ(family("<no_pipeline_set>"), "no_pipeline");
  EXPECT_EQ(family("gemm_nt_f16_f16_32_32_16_2_2"), "dense_gemm");
  EXPECT_EQ(family("steel_attention_bfloat16_bq8"), "sdpa");
  EXPECT_EQ(family("kernel_soft_max_f32_4"), "softmax");
  EXPECT_EQ(family("bmul_f32_rstrided"), "other_bmul");
}

TEST(KernelReportReader, ReadsTheRealLlamaCppReport) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/phase0-ggml-perkernel.json");
  auto r = ReadKernelReport(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->name, "llama.cpp+ggml-metal");
  ASSERT_EQ(r->kernels.size(), 47u);  // hand count of kernels[] (and tests/corpus/perkernel_figures.py)
  const Kernel& k = r->kernels[0];
  EXPECT_EQ(k.name, "kernel_mul_mv_q4_0_f32_nsg=2");
  EXPECT_EQ(k.matched, "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ(k.family, "dense_q4_0_mv");
  EXPECT_EQ(k.figures.at("us_per_token_median").value, 2528.3541);  // the file's text, exactly
  EXPECT_EQ(k.figures.at("us_per_call_p95").value, 13.7943);
  EXPECT_EQ(k.figures.size(), 4u);
  EXPECT_EQ(r->metadata.at("commit"), "d12cc3d1ca6bba741cd77887ac9c9ee18c8415c7");
  EXPECT_EQ(r->metadata.at("observer_effect_check/instrumented_tok_per_sec_median"), "45.47");
  EXPECT_EQ(r->numbers.at("wall_clock_tok_per_sec_median").value, 105.4);
  EXPECT_EQ(r->diagnostics.Count("kernel_report.unknown_field"), 0);
  // 47 kernels, 36 distinct matched names (bin_fuse, unary and flash_attn_ext_vec_reduce variants).
  EXPECT_EQ(r->diagnostics.Count("kernel_report.merged_kernels"), 11);
}

TEST(KernelReportReader, ReadsTheRealCandleReportWithItsTotals) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/phase0-candle-perkernel.json");
  auto r = ReadKernelReport(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->kernels.size(), 46u);
  const Kernel& k = r->kernels[1];
  EXPECT_EQ(k.name, "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ(k.figures.at("total_calls").value, 9660);
  EXPECT_TRUE(k.figures.at("total_calls").is_integer);
  EXPECT_EQ(k.figures.at("mean_ns").value, 13021.7);
  EXPECT_FALSE(k.figures.at("mean_ns").is_integer);
  EXPECT_EQ(k.figures.size(), 8u);
  EXPECT_EQ(r->kernels[3].family, "no_pipeline");
  EXPECT_EQ(r->diagnostics.Count("kernel_report.dropped_samples"), 1);  // overflow_count 103702
  EXPECT_EQ(r->metadata.at("instrumentation_notes/overflow_count"), "103702");
}

TEST(KernelReportReader, KeepsAndCountsWhatItDoesNotKnow) {
  const KernelReport r = test::MustRead(
      "unknown.json", ReportJson("s", KernelJson("k_a", 1, 2, 2, ", \"occupancy\": 0.5, \"note\": \"x\""),
                                 ", \"gpu\": {\"cores\": 40}"));
  EXPECT_EQ(r.kernels[0].figures.at("occupancy").value, 0.5);  // a number: kept as a figure
  EXPECT_EQ(r.metadata.at("gpu/cores"), "40");
  EXPECT_EQ(r.diagnostics.Count("kernel_report.unknown_field"), 3);  // occupancy, note, gpu
}

TEST(KernelReportReader, AFamilyTableReplacesTheDefault) {
  attribution::KernelFamilyTable t;
  t.strip_prefix = "";
  t.rules = {{"gemm", "matmul"}};
  auto r = ReadKernelReport(test::WriteFile("table.json", ReportJson("s", KernelJson("gemm_nt_x", 1, 2, 2))), t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->kernels[0].family, "matmul");
}

struct BadCase {
  const char* name;
  std::string text;
  const char* code;
  int line;
};

class KernelReportBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(KernelReportBadInput, IsALocatedError) {
  const BadCase& c = GetParam();
  auto r = ReadKernelReport(test::WriteFile(std::string(c.name) + ".json", c.text));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
  EXPECT_EQ(r.status().location().line, c.line) << r.status().ToString();
}

const std::string kGood = KernelJson("k_a", 1, 2, 2);

INSTANTIATE_TEST_SUITE_P(
    Cases, KernelReportBadInput,
    ::testing::Values(
        BadCase{"not_json", "stack: x\n", "kernel_report.not_json", 1},
        BadCase{"array_root", "[1]\n", "kernel_report.not_json", 1},
        BadCase{"no_kernels", "{\"stack\": \"s\"}\n", "kernel_report.no_kernels", 1},
        BadCase{"empty_kernels", "{\n\"kernels\": []}\n", "kernel_report.no_kernels", 2},
        BadCase{"kernel_not_object", "{\"kernels\": [\n3]}\n", "kernel_report.bad_kernel", 2},
        BadCase{"no_name", "{\"kernels\": [\n{\"calls_per_token_median\": 1}]}\n", "kernel_report.bad_kernel", 2},
        BadCase{"missing_figure", "{\"kernels\": [\n{\"name\": \"k\", \"calls_per_token_median\": 1}]}\n",
                "kernel_report.bad_kernel", 2},
        BadCase{"string_figure", "{\"kernels\": [" + kGood + ",\n" +
                                     KernelJson("k_b", 1, 2, 2, ", \"total_ns\": \"12\"") + "]}\n",
                "kernel_report.bad_kernel", 2},
        BadCase{"duplicate_name", "{\"kernels\": [" + kGood + ",\n" + kGood + "]}\n",
                "kernel_report.duplicate_kernel", 2},
        BadCase{"negative", "{\"kernels\": [\n" + KernelJson("k_a", 1, 2, -2) + "]}\n", "kernel_report.bad_value", 2},
        BadCase{"overflow", "{\"kernels\": [\n{\"name\": \"k\", \"us_per_token_median\": 1e999}]}\n",
                "kernel_report.not_json", 2}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace perfgate::kernel_report
