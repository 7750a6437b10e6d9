// A user's suite: five lines of configuration, one line per gate.
#include <perfgate/gtest.h>

namespace {

class ConsumerDecode : public perfgate::testing::PerfSuiteFixture {
  perfgate::testing::SuiteConfig Config() const override {
    perfgate::testing::SuiteConfig c;
    c.suite = PERFGATE_SUITE_NAME;
    c.recordings_dir = PERFGATE_RECORDINGS_DIR;
    c.golden_dir = PERFGATE_GOLDEN_DIR;
    perfgate::testing::EngineSpec hf2q;
    hf2q.name = "hf2q";
    hf2q.options.process_prefix = "hf2q";
    hf2q.options.window = *perfgate::attribution::ParseWindow("label:output_head.fused_norm_lm_argmax");
    hf2q.options.token_label = "output_head.fused_norm_lm_argmax";
    c.engines.push_back(hf2q);
    return c;
  }
};

TEST_F(ConsumerDecode, SubmissionsPerTokenBudget) {
  PERFGATE_ASSERT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), 60);
  PERFGATE_EXPECT_METRIC_AT_MOST(engine("hf2q"), "submissions_per_token", 60);
}

}  // namespace
