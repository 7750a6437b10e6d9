#include <perfgate/gtest.h>

class MyDecode : public perfgate::testing::PerfSuiteFixture {
  perfgate::testing::SuiteConfig Config() const override {
    perfgate::testing::SuiteConfig c;
    c.suite = PERFGATE_SUITE_NAME;
    c.recordings_dir = PERFGATE_RECORDINGS_DIR;
    c.golden_dir = PERFGATE_GOLDEN_DIR;
    perfgate::testing::EngineSpec engine;
    engine.name = "hf2q";                                       // recordings/hf2q/trial-*
    engine.options.window = perfgate::attribution::DecodeWindow::Label("output_head.fused_norm_lm_argmax");
    engine.options.token_label = "output_head.fused_norm_lm_argmax";
    perfgate::testing::EngineSpec baseline;
    baseline.name = "llama";                                    // recordings/llama/trial-*
    baseline.options.window = perfgate::attribution::DecodeWindow::SkipSubmissions(6);
    baseline.options.tokens = 64;
    c.engines = {engine, baseline};
    c.baseline = "llama";
    return c;
  }
};

TEST_F(MyDecode, Budgets) {
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), 46.5);
  PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("hf2q"), engine("llama"), "md_8_32us", 25);
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("hf2q"), engine("llama"), 1.15);
}
TEST_F(MyDecode, Golden) { PERFGATE_EXPECT_MATCHES_GOLDEN("hf2q"); }
