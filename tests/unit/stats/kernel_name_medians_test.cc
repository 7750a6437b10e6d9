// Kernel names over trials (SummarizeEngine) and beside a baseline (Compare), on
// hand-built trials whose figures are worked out in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/attribution/attribute.h"

namespace perfgate::attribution {
namespace {

LevelItem K(const std::string& short_name, int64_t count, int64_t sum_ns, int64_t min_ns, int64_t max_ns) {
  LevelItem k;
  k.short_name = short_name;
  k.family = "gemm";
  k.items = count;
  k.gpu_sum_ns = sum_ns;
  k.min_ns = min_ns;
  k.max_ns = max_ns;
  return k;
}

TrialSummary Trial(std::map<std::string, LevelItem> names, int64_t tokens = 10) {
  TrialSummary t;
  t.source = "trace_json";
  t.tokens = tokens;
  t.kernels = std::move(names);
  return t;
}

const std::string kGemm = "void gemm<float, 128>(float const*, float*)";
const std::string kRare = "rare_kernel";

std::vector<TrialSummary> ThreeTrials() {
  return {Trial({{kGemm, K("gemm", 20, 40000, 1500, 2500)}, {kRare, K("rare_kernel", 5, 1000, 100, 300)}}),
          Trial({{kGemm, K("gemm", 30, 66000, 1000, 3000)}}),
          Trial({{kGemm, K("gemm", 10, 25000, 2000, 2600)}, {kRare, K("rare_kernel", 1, 900, 900, 900)}})};
}

TEST(LevelMedians, PerTokenMediansPooledDurationsAndTrialsRan) {
  const EngineSummary e = SummarizeEngine("e", ThreeTrials(), {});
  ASSERT_EQ(e.kernels.size(), 2u);
  const LevelMedians& g = e.kernels.at(kGemm);
  EXPECT_EQ(g.short_name, "gemm");
  EXPECT_EQ(g.family, "gemm");
  EXPECT_EQ(g.trials, 3);
  // Calls per token 2, 3, 1 (median 2); µs per token 4.0, 6.6, 2.5 (median 4.0).
  EXPECT_EQ(g.items_per_token.per_trial, (std::vector<double>{2, 3, 1}));
  EXPECT_EQ(g.items_per_token.median, 2);
  EXPECT_EQ(g.gpu_us_per_token.per_trial, (std::vector<double>{4.0, 6.6, 2.5}));
  EXPECT_EQ(g.gpu_us_per_token.median, 4.0);
  // Pooled: 60 calls, 131000 ns, so 2183.33 ns = 2.18333 µs a call; min 1000, max 3000.
  EXPECT_EQ(g.items, 60);
  EXPECT_EQ(g.gpu_sum_ns, 131000);
  EXPECT_DOUBLE_EQ(g.mean_us, 131000.0 / 60 / 1000);
  EXPECT_EQ(g.min_ns, 1000);
  EXPECT_EQ(g.max_ns, 3000);
}

// A name that one trial lacks is kept, with 0 calls there and the count of trials that
// ran it: the trial named its kernels, so its absence is a measured zero.
TEST(LevelMedians, ANameOneTrialLacksIsKeptAsZeroThere) {
  const EngineSummary e = SummarizeEngine("e", ThreeTrials(), {});
  const LevelMedians& r = e.kernels.at(kRare);
  EXPECT_EQ(r.trials, 2);
  EXPECT_EQ(r.items_per_token.per_trial, (std::vector<double>{0.5, 0, 0.1}));
  EXPECT_EQ(r.items_per_token.median, 0.1);
  ASSERT_EQ(r.gpu_us_per_token.per_trial.size(), 3u);
  EXPECT_DOUBLE_EQ(r.gpu_us_per_token.per_trial[0], 0.1);
  EXPECT_EQ(r.gpu_us_per_token.per_trial[1], 0);
  EXPECT_DOUBLE_EQ(r.gpu_us_per_token.per_trial[2], 0.09);
  EXPECT_DOUBLE_EQ(r.gpu_us_per_token.median, 0.09);
  // Its durations are those of the trials that ran it: 1900 ns over 6 calls, 100..900.
  EXPECT_EQ(r.items, 6);
  EXPECT_DOUBLE_EQ(r.mean_us, 1900.0 / 6 / 1000);
  EXPECT_EQ(r.min_ns, 100);
  EXPECT_EQ(r.max_ns, 900);
}

// Trials that name no kernels (Metal) give no table, and neither do trials of which
// only some name them: as with extras, those are not comparable.
TEST(LevelMedians, NoneUnlessEveryTrialNamesItsKernels) {
  EXPECT_TRUE(SummarizeEngine("metal", {Trial({}), Trial({})}, {}).kernels.empty());
  std::vector<TrialSummary> some = ThreeTrials();
  some[1].kernels.clear();
  EXPECT_TRUE(SummarizeEngine("some", some, {}).kernels.empty());
  EXPECT_FALSE(SummarizeEngine("all", ThreeTrials(), {}).kernels.empty());
}

// Δ µs/token per name, largest first, a name one side lacks counting 0 there.
TEST(LevelMedians, CompareSortsByDeltaAndKeepsOneSidedNames) {
  const EngineSummary engine = SummarizeEngine("engine", ThreeTrials(), {});
  const EngineSummary baseline = SummarizeEngine(
      "baseline",
      {Trial({{kGemm, K("gemm", 20, 50000, 2500, 2500)}, {"only_baseline", K("only_baseline", 10, 3000, 300, 300)}})},
      {});
  const Comparison c = Compare(engine, baseline, {});
  ASSERT_EQ(c.kernels.size(), 3u);
  // rare_kernel 0.09 - 0 = +0.09; only_baseline 0 - 0.3 = -0.3; gemm 4.0 - 5.0 = -1.0.
  EXPECT_EQ(c.kernels[0].name, kRare);
  EXPECT_DOUBLE_EQ(c.kernels[0].delta, 0.09);
  EXPECT_FALSE(c.kernels[0].delta_pct.has_value());  // a zero baseline
  EXPECT_EQ(c.kernels[1].name, "only_baseline");
  EXPECT_DOUBLE_EQ(c.kernels[1].delta, -0.3);
  EXPECT_EQ(c.kernels[2].name, kGemm);
  EXPECT_DOUBLE_EQ(c.kernels[2].delta, -1.0);
  EXPECT_DOUBLE_EQ(*c.kernels[2].delta_pct, -20.0);
}

TEST(LevelMedians, NoComparisonByNameUnlessBothSidesNameKernels) {
  const EngineSummary engine = SummarizeEngine("engine", ThreeTrials(), {});
  const EngineSummary metal = SummarizeEngine("metal", {Trial({})}, {});
  EXPECT_TRUE(Compare(engine, metal, {}).kernels.empty());
  EXPECT_TRUE(Compare(metal, engine, {}).kernels.empty());
}

}  // namespace
}  // namespace perfgate::attribution
