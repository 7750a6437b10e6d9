// hf2q decode versus llama.cpp: submission budgets, per-bucket deltas, phase budgets,
// the total GPU-time ratio, the kernel registry, and a golden of every figure.
#include "hf2q_decode_suite.h"
#include "perfgate/gtest.h"

namespace {

using hf2q_decode::kOutputHead;
using perfgate::testing::SuiteConfig;

class Hf2qDecode : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return hf2q_decode::Suite(PERFGATE_RECORDINGS_DIR, PERFGATE_GOLDEN_DIR); }
};

TEST_F(Hf2qDecode, SubmissionsPerTokenBudget) {
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), 46.5);
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("llama"), 4);
}

TEST_F(Hf2qDecode, PhaseBudgets) {
  PERFGATE_EXPECT_PHASE_CBS_PER_TOKEN_AT_MOST(engine("hf2q"), kOutputHead, 1.0);
  PERFGATE_EXPECT_PHASE_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), "layer.attn_moe_ffn", 40);
  PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine("hf2q"), "layer.attn_moe_ffn", 8200);
  PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine("hf2q"), kOutputHead, 600);
}

TEST_F(Hf2qDecode, BucketDeltasVsLlama) {
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("hf2q"), engine("llama"), "xs_<2us", 5);
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("hf2q"), engine("llama"), "sm_2_8us", 10);
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("hf2q"), engine("llama"), "md_8_32us", 25);
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("hf2q"), engine("llama"), "lg_32_80us", 25);
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_PERCENT(engine("hf2q"), engine("llama"), "xl_>=80us", 15);
}

TEST_F(Hf2qDecode, TotalGpuTimeRatio) {
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("hf2q"), engine("llama"), 1.15);
}

TEST_F(Hf2qDecode, KernelRegistry) {
  PERFGATE_EXPECT_KERNEL_FAMILY_PRESENT(engine("hf2q"), "moe_q4_0_mv");
  PERFGATE_EXPECT_KERNEL_FAMILY_PRESENT(engine("hf2q"), "flash_attn");
  PERFGATE_EXPECT_KERNEL_FAMILY_ABSENT(engine("hf2q"), "dense_q4_0_mm");
}

TEST_F(Hf2qDecode, Hf2qGolden) { PERFGATE_EXPECT_MATCHES_GOLDEN("hf2q"); }

TEST_F(Hf2qDecode, LlamaGolden) { PERFGATE_EXPECT_MATCHES_GOLDEN("llama"); }

}  // namespace
