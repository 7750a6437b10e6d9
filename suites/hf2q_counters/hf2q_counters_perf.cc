// hf2q's own dispatch counters (counters.txt beside each trial's Metal trace): the
// dispatch budget from the engine's real count (the trace sees ~46 submissions per
// token, the engine ~1,070 dispatches), per-layer and per-token counter budgets, and a
// golden of every figure (the counters exact).
#include "perfgate/gtest.h"

namespace {

using perfgate::testing::EngineSpec;
using perfgate::testing::SuiteConfig;

class Hf2qCounters : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override {
    SuiteConfig c;
    c.suite = "hf2q_counters";
    c.recordings_dir = PERFGATE_RECORDINGS_DIR;
    c.golden_dir = PERFGATE_GOLDEN_DIR;
    EngineSpec hf2q;
    hf2q.name = "hf2q";
    hf2q.options.process_prefix = "hf2q";
    hf2q.options.window = *perfgate::attribution::ParseWindow("label:output_head.fused_norm_lm_argmax");
    hf2q.options.token_label = "output_head.fused_norm_lm_argmax";
    c.engines = {hf2q};
    return c;
  }
};

// The engine's real dispatch count, not the trace's submissions.
TEST_F(Hf2qCounters, DispatchBudget) { PERFGATE_EXPECT_DISPATCHES_PER_TOKEN_AT_MOST(engine("hf2q"), 1100); }

TEST_F(Hf2qCounters, CounterBudgets) {
  PERFGATE_EXPECT_COUNTER_AT_MOST(engine("hf2q"), "dispatches_per_token", 2200);
  PERFGATE_EXPECT_COUNTER_AT_MOST(engine("hf2q"), "norm_dispatches_per_token", 331);
  PERFGATE_EXPECT_COUNTER_AT_MOST(engine("hf2q"), "moe_dispatches_per_layer", 34);
  PERFGATE_EXPECT_COUNTER_AT_MOST(engine("hf2q"), "moe_to_vec2_count", 0);
  PERFGATE_EXPECT_COUNTER_AT_MOST(engine("hf2q"), "sampler_sync_count", 0.26);
}

// The trace's own count stays gated beside the engine's: about one encoder each.
TEST_F(Hf2qCounters, SubmissionsFromTheTrace) { PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("hf2q"), 46.5); }

TEST_F(Hf2qCounters, Hf2qGolden) { PERFGATE_EXPECT_MATCHES_GOLDEN("hf2q"); }

}  // namespace
