// A suite over the H200 recordings whose tests check two engines' goldens in one test
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
    c.recordings_dir = PERFGATE_RECORDINGS_DIR;
    c.golden_dir = "unused: PERFGATE_GOLDEN_DIR is set by the driver";
    for (const char* mode : {"graphs", "eager"}) {
      EngineSpec e;
      e.name = mode;
      e.options.window = *perfgate::attribution::ParseWindow("label:decode_step");
      e.options.token_label = "decode_step";
      c.engines.push_back(e);
    }
    c.baseline = "eager";
    return c;
  }
};

TEST_F(TwoModes, BothGoldens) {
  PERFGATE_EXPECT_MATCHES_GOLDEN("graphs");
  PERFGATE_EXPECT_MATCHES_GOLDEN("eager");
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("graphs"), engine("eager"), 0.65);
}

TEST_F(TwoModes, OneEngineTwiceIsRefused) {
  PERFGATE_EXPECT_MATCHES_GOLDEN("graphs");
  const auto again = MatchesGolden("graphs");
  EXPECT_FALSE(again);
  EXPECT_NE(std::string(again.message()).find("already checked"), std::string::npos) << again.message();
}

}  // namespace
