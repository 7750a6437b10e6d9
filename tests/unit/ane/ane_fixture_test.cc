// The notch assertions, their failure tables, the golden figures, and the fixture's
// replay and record-or-replay behaviour on a host without an ANE.
#include "perfgate/gtest/ane_fixture.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "ane/ane_test_util.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;
using ane::test::ScopedEnv;
using ane::test::TempDir;

ane::NotchResult Result(double off_us, double on_us, const std::string& chip = "Apple M4") {
  ane::HostFacts f;
  f.brand = chip;
  auto r = ane::Analyze(ane::ChipFromFacts(f), 16, {{2016, 4096, {off_us}}, {2048, 4096, {on_us}}});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  r->source_path = "fixtures/ane/example.json";
  r->timing_path = "replay: test";
  return *r;
}

TEST(AneAssertions, ClassIs) {
  EXPECT_TRUE(NotchClassIs(Result(353.8, 785.5), "m3_class_notch"));
  ::testing::AssertionResult fail = NotchClassIs(Result(426, 840), "m3_class_notch");
  ASSERT_FALSE(fail);
  const std::string msg = fail.message();
  for (const char* want : {"notch class of Apple M4 is milder_1mib_slowdown, expected m3_class_notch", "metric",
                           "| notch_class", "expected", "| m3_class_notch", "actual", "| milder_1mib_slowdown",
                           "ratio", "| 1.972", "borderline", "yes: m3_class_notch at 2", "chip", "Apple M4",
                           "source", "fixtures/ane/example.json", "timing path: replay: test", "thresholds"}) {
    EXPECT_NE(msg.find(want), std::string::npos) << "missing '" << want << "' in:\n" << msg;
  }
  EXPECT_EQ(msg.find("[  SKIPPED ]"), std::string::npos);
  EXPECT_FALSE(NotchClassIs(Result(353.8, 785.5), "m3_notch"));  // unknown class name
}

TEST(AneAssertions, AtLeast) {
  EXPECT_TRUE(NotchClassAtLeast(Result(353.8, 785.5), "milder_1mib_slowdown"));
  EXPECT_TRUE(NotchClassAtLeast(Result(426, 840), "milder_1mib_slowdown"));
  EXPECT_TRUE(NotchClassAtLeast(Result(426, 840), "no_notch"));
  EXPECT_FALSE(NotchClassAtLeast(Result(426, 840), "m3_class_notch"));
  EXPECT_FALSE(NotchClassAtLeast(Result(500, 550), "milder_1mib_slowdown"));
  auto host = NotchClassAtLeast(Result(2000, 6000), "no_notch");
  ASSERT_FALSE(host);  // host_dominated_invalid never satisfies "at least"
  EXPECT_NE(std::string(host.message()).find("host-dominated"), std::string::npos) << host.message();
  EXPECT_FALSE(NotchClassAtLeast(Result(2000, 6000), "host_dominated_invalid"));
}

TEST(AneAssertions, Borderline) {
  EXPECT_TRUE(NotchBorderlineIs(Result(426, 840), true));
  EXPECT_TRUE(NotchBorderlineIs(Result(353.8, 785.5), false));
  auto f = NotchBorderlineIs(Result(353.8, 785.5), true);
  ASSERT_FALSE(f);
  EXPECT_NE(std::string(f.message()).find("| borderline"), std::string::npos);
}

TEST(AneAssertions, MacrosReportThroughGtest) {
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_NOTCH_CLASS(Result(426, 840), "m3_class_notch"),
                          "expected m3_class_notch");
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_NOTCH_CLASS_AT_LEAST(Result(500, 550), "milder_1mib_slowdown"),
                          "expected at least milder_1mib_slowdown");
  PERFGATE_EXPECT_NOTCH_CLASS(Result(353.8, 785.5), "m3_class_notch");
  PERFGATE_EXPECT_NOTCH_BORDERLINE(Result(426, 840), true);
}

TEST(AneAssertions, GoldenFigures) {
  golden::GoldenFile g = NotchGoldenOf(Result(426, 840));
  EXPECT_NEAR(g.values.at("ratio_on_over_off").value, 1.97183, 1e-5);
  EXPECT_EQ(g.values.at("ratio_on_over_off").policy.kind, golden::Kind::kNoisy);
  EXPECT_EQ(g.values.at("class_rank").value, 1);
  EXPECT_EQ(g.values.at("class_rank").policy.kind, golden::Kind::kExact);
  EXPECT_TRUE(g.values.at("class_rank").is_integer);
  EXPECT_EQ(g.values.at("borderline").value, 1);
  EXPECT_EQ(g.values.at("on/median_eval_us").value, 840);
  EXPECT_EQ(g.values.at("on/median_eval_us").samples, std::vector<double>{840});
  EXPECT_EQ(g.values.at("off/bytes_per_core").value, 1032192);
  EXPECT_EQ(g.values.at("on/gbps_weight_payload").policy.dir, golden::Direction::kHigherIsBetter);
  EXPECT_EQ(g.values.count("corrected_ratio"), 0u);
  EXPECT_EQ(g.context.at("chip"), "Apple M4");
  EXPECT_EQ(g.context.at("class_name"), "milder_1mib_slowdown");
  EXPECT_EQ(g.context.at("source"), "example.json");
  EXPECT_EQ(g.context.at("ane_cores"), "16");
  // It renders and parses back as a golden file.
  auto back = golden::ParseGolden(golden::RenderGolden(g), "x.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
}

// --- the fixture --------------------------------------------------------------------

class FixtureUnderTest : public AneNotchFixture {
 protected:
  AneSuiteConfig Config() const override {
    AneSuiteConfig c;
    c.suite = "ane_fixture_test";
    c.recordings_dir = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/ane";
    c.golden_dir = dir_.path();
    return c;
  }
  TempDir dir_;
};

TEST_F(FixtureUnderTest, ReplaysARecording) {
  const ane::NotchResult* r = Replay("m5");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->chip.guessed_chip, "Apple M5");
  PERFGATE_EXPECT_NOTCH_CLASS(*r, "m3_class_notch");
  EXPECT_EQ(Replay("m5"), r);  // cached per program
}

TEST_F(FixtureUnderTest, MissingRecordingFails) {
  EXPECT_NONFATAL_FAILURE(EXPECT_EQ(Replay("no_such_chip"), nullptr), "ane.replay_unreadable");
}

TEST_F(FixtureUnderTest, GoldenWriteThenMatch) {
  const ane::NotchResult* r = Replay("m4_coreml");
  ASSERT_NE(r, nullptr);
  {
    ScopedEnv mode("PERFGATE_UPDATE_GOLDEN", "new");
    ScopedEnv ci("CI", std::nullopt);
    EXPECT_TRUE(MatchesGolden(*r));
  }
  EXPECT_TRUE(fs::exists(GoldenPath()));
  ScopedEnv mode("PERFGATE_UPDATE_GOLDEN", std::nullopt);
  EXPECT_TRUE(MatchesGolden(*r));
  // Another chip's figures do not match this golden.
  const ane::NotchResult* m5 = Replay("m5");
  auto mismatch = MatchesGolden(*m5);
  EXPECT_FALSE(mismatch);
  EXPECT_NE(std::string(mismatch.message()).find("class_rank: "), std::string::npos)
      << mismatch.message();
}

#ifndef __APPLE__
TEST_F(FixtureUnderTest, RecordOrReplayReplaysWithoutAnAne) {
  const ane::NotchResult* r = RecordOrReplay("m3_article");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->classification.notch_class, ane::NotchClass::kM3ClassNotch);
}

// A host measurement that can neither run nor replay skipped, and CI read the skip as
// success; under CI it fails unless the suite or PERFGATE_ALLOW_SKIP allows it.
TEST_F(FixtureUnderTest, NothingToMeasureOrReplayFailsUnderCi) {
  ScopedEnv ci("CI", "true");
  ScopedEnv allow("PERFGATE_ALLOW_SKIP", std::nullopt);
  EXPECT_NONFATAL_FAILURE(EXPECT_EQ(RecordOrReplay("no_such_host"), nullptr),
                          "CI is set, so this fails; set PERFGATE_ALLOW_SKIP=1");
}

TEST_F(FixtureUnderTest, RecordRequestedWhereImpossibleFails) {
  ScopedEnv record("PERFGATE_RECORD", "1");
  EXPECT_NONFATAL_FAILURE(EXPECT_EQ(RecordOrReplay("m5"), nullptr), "cannot record the ANE notch");
}
#endif

}  // namespace
}  // namespace perfgate::testing
