// A suite whose tests check two engines' goldens in one test
// (each gets its own file) and whose goldens take their context from meta.json.
// Driven by golden_per_engine.cmake, which runs it twice.
#include "perfgate/gtest/perfgate_gtest.h"

namespace {

using perfgate::testing::EngineSpec;
using perfgate::testing::SuiteConfig;

class TwoModes : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override {
    SuiteConfig c;
    c.suite = "golden_per_engine";
    c.recordings_dir = "unused: PERFGATE_RECORDINGS is set by the driver";
    c.golden_dir = "unused: PERFGATE_GOLDEN_DIR is set by the driver";
    // Two engines of two sources: a real H200 trace-event recording and a synthetic
    // Metal one (small, so the sanitizer build runs this quickly).
    EngineSpec graphs;
    graphs.name = "graphs";
    graphs.options.window = perfgate::attribution::DecodeWindow::Label("decode_step");
    graphs.options.token_label = "decode_step";
    EngineSpec hf2q;
    hf2q.name = "hf2q";
    hf2q.options.window = perfgate::attribution::DecodeWindow::Label("output_head.fused_norm_lm_argmax");
    hf2q.options.token_label = "output_head.fused_norm_lm_argmax";
    c.engines = {graphs, hf2q};
    return c;
  }
};

TEST_F(TwoModes, BothGoldens) {
  PERFGATE_EXPECT_MATCHES_GOLDEN("graphs");
  PERFGATE_EXPECT_MATCHES_GOLDEN("hf2q");
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("graphs"), engine("hf2q"), 0.1);
}

TEST_F(TwoModes, OneEngineTwiceIsRefused) {
  PERFGATE_EXPECT_MATCHES_GOLDEN("graphs");
  const auto again = MatchesGolden("graphs");
  EXPECT_FALSE(again);
  EXPECT_NE(std::string(again.message()).find("already checked"), std::string::npos) << again.message();
}

}  // namespace
