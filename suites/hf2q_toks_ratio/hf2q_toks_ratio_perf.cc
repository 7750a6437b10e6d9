// hf2q's tok/s ratio floors against llama-bench, gated with the first users' own
// policy file (shared/corpus/hf2q/perf_baseline.json, read in place through
// PERFGATE_CORPUS_DIR) over tok/s reports in the real shape (fixtures/toks/hf2q: per
// cell an engine report and llama-bench's JSON or JSONL, five repetitions each,
// modelled on the cells' measured medians; fixtures/toks/README.md). PERFGATE_RECORDINGS
// points the suite at other reports (the gate-bites test's regressed copy).
#include <string>

#include "perfgate/gtest.h"
#include "perfgate/suite/suite.h"
#include "support/corpus.h"

namespace {

using perfgate::toks::RatioPolicy;
using perfgate::toks::RatioVerdict;

constexpr const char* kPolicy = "hf2q/perf_baseline.json";
// The cells were measured at NGEN=256 (the policy's _methodology): llama-bench -n 256.
constexpr const char* kTest = "tg256";

std::string Reports() {
  perfgate::testing::SuiteConfig c;
  c.suite = PERFGATE_SUITE_NAME;
  c.recordings_dir = PERFGATE_RECORDINGS_DIR;
  return perfgate::testing::ResolveRecordingsDir(c);
}

class Hf2qToksRatio : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = perfgate::testing_support::CorpusFile(kPolicy);
    if (path.empty()) {
      auto missing = perfgate::testing::MissingInput(PERFGATE_SUITE_NAME,
                                                     std::string("no ") + kPolicy + " under '" +
                                                         perfgate::testing_support::CorpusDir() +
                                                         "'; set PERFGATE_CORPUS_DIR to shared/corpus",
                                                     false);
      if (!missing.ok()) FAIL() << missing.status().ToString();
      GTEST_SKIP() << missing->reason;
    }
    auto policy = perfgate::toks::ReadRatioPolicy(path);
    ASSERT_TRUE(policy.ok()) << policy.status().ToString();
    policy_ = *policy;
  }

  RatioPolicy policy_;
};

// Every cell of the real policy holds its floor within _tolerance_pp, and the figures
// match the golden.
TEST_F(Hf2qToksRatio, CellsHoldTheirFloors) {
  auto verdicts = perfgate::toks::JudgePolicy(policy_, Reports(), kTest);
  ASSERT_TRUE(verdicts.ok()) << verdicts.status().ToString();
  ASSERT_EQ(verdicts->size(), 6u);
  PERFGATE_EXPECT_TOKS_CELLS_PASS(*verdicts);
  for (const RatioVerdict& v : *verdicts) EXPECT_TRUE(v.has_samples) << v.cell;
  EXPECT_TRUE(perfgate::testing::MatchesGolden(
      perfgate::testing::CurrentTestGoldenPath(PERFGATE_GOLDEN_DIR),
      perfgate::toks::RatioGolden(*verdicts, {{"policy", kPolicy}, {"reports", "fixtures/toks/hf2q"}}),
      perfgate::testing::GoldenAcceptCommand("Hf2qToksRatio.CellsHoldTheirFloors")));
}

// The peer-drift cell (dwq46: llama-bench got 8.8 % faster, the floor was lowered to
// 0.94) through the assertion, at the policy's own floor and tolerance.
TEST_F(Hf2qToksRatio, PeerDriftCellThroughTheAssertion) {
  const std::string dir = Reports() + "/qwen3.6-35b-a3b-dwq46";
  auto engine = perfgate::toks::ReadBenchReport(dir + "/engine.json");
  auto llama = perfgate::toks::ReadBenchReport(dir + "/llama-bench.json");
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  double floor = 0;
  for (const auto& cell : policy_.cells) {
    if (cell.name == "qwen3.6-35b-a3b-dwq46") floor = cell.ratio_floor;
  }
  ASSERT_EQ(floor, 0.94);
  PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST_WITHIN_PP(*engine, *llama, kTest, floor, policy_.tolerance_pp);
  // Below the floor the lowered floor was set for, it would fail.
  EXPECT_FALSE(perfgate::testing::ToksRatioAtLeast(*engine, *llama, kTest, 1.0, policy_.tolerance_pp));
}

}  // namespace
