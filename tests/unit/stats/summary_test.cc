#include "perfgate/stats/summary.h"

#include <gtest/gtest.h>

#include <limits>

#include <cmath>

namespace perfgate::stats {
namespace {

TEST(Stats, Median) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({5}), 5);
  EXPECT_EQ(Median({9768.9, 9697.5, 9741.1, 9520.9, 9735.6}), 9735.6);  // hf2q iter22 trials
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(MedianTruncated({1, 2}), 1);  // int(1.5)
  EXPECT_EQ(MedianTruncated({3, 1, 2}), 2);
}

TEST(Stats, NearestRankPercentileSortsFirst) {
  // The seed read index floor(0.95*(n-1)) of the unsorted list; here 20 values in
  // descending order would give 2 there, while the true p95 is 19.
  std::vector<int64_t> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  EXPECT_EQ(PercentileNearestRank(v, 95), 19);
  EXPECT_EQ(PercentileNearestRank(v, 50), 10);
  EXPECT_EQ(PercentileNearestRank(v, 100), 20);
  EXPECT_EQ(PercentileNearestRank(v, 0), 1);
  EXPECT_EQ(PercentileNearestRank({}, 95), 0);
  EXPECT_EQ(PercentileNearestRank({7}, 95), 7);
}

TEST(Stats, UnionLengthCountsOverlapsOnce) {
  EXPECT_EQ(UnionLength({}), 0);
  EXPECT_EQ(UnionLength({{0, 10}, {5, 15}, {20, 30}}), 25);
  EXPECT_EQ(UnionLength({{0, 100}, {10, 20}, {30, 100}}), 100);  // nested rows, same end
  EXPECT_EQ(UnionLength({{0, 10}, {10, 20}}), 20);                // touching
  EXPECT_EQ(UnionLength({{5, 5}, {9, 3}}), 0);                    // empty and reversed
}

TEST(Stats, MannWhitneyExactSmallSamples) {
  auto r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);
  auto r3 = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_NEAR(r3.p_value, 0.1, 1e-12);  // 3 vs 3 can never reach 0.05
  auto same = MannWhitneyU({1, 4, 5}, {2, 3, 6});
  EXPECT_EQ(same.u, 4);
  EXPECT_NEAR(same.p_value, 1.0, 1e-12);
}

TEST(Stats, MannWhitneyNormalWithTies) {
  auto r = MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 2.5);
  EXPECT_NEAR(r.p_value, 0.13665824773814753, 1e-12);
  EXPECT_EQ(MannWhitneyU({1, 1}, {1, 1}).p_value, 1.0);
  EXPECT_EQ(MannWhitneyU({}, {1}).p_value, 1.0);
}

// The one comparison: medians (an even count: the middle pair's mean), Δ% of |before|,
// and the two-sided rank test; the skewed after side's mean (18.5) is not used.
TEST(Stats, CompareTrialsIsMediansAndTheRankTest) {
  const Delta d = CompareTrials({10, 10, 10, 10}, {10, 12, 12, 40});
  EXPECT_EQ(d.before, 10);
  EXPECT_EQ(d.after, 12);
  EXPECT_EQ(d.delta, 2);
  ASSERT_TRUE(d.delta_pct);
  EXPECT_DOUBLE_EQ(*d.delta_pct, 20);
  EXPECT_EQ(d.p_value, MannWhitneyU({10, 10, 10, 10}, {10, 12, 12, 40}).p_value);
  EXPECT_EQ(CompareTrials({1, 2, 3}, {4, 5, 6}).p_value, CompareTrials({4, 5, 6}, {1, 2, 3}).p_value);  // two-sided
  EXPECT_DOUBLE_EQ(*CompareTrials({-4}, {-2}).delta_pct, 50);  // of |before|
  EXPECT_FALSE(CompareTrials({0, 0}, {1, 1}).delta_pct);
}

// Empty and non-finite sides: 0 for no values, medians of the finite ones, NaN when none
// is, and p = 1 (no evidence) either way.
TEST(Stats, CompareTrialsOfEmptyOrNonFiniteSides) {
  const Delta empty = CompareTrials({}, {3});
  EXPECT_EQ(empty.before, 0);
  EXPECT_EQ(empty.after, 3);
  EXPECT_EQ(empty.p_value, 1);
  const Delta nan = CompareTrials({1, std::nan(""), 3, 5}, {2, 4, 6});
  EXPECT_EQ(nan.before, 3);
  EXPECT_EQ(nan.p_value, 1);
  EXPECT_TRUE(std::isnan(CompareTrials({std::nan("")}, {1}).before));
}

TEST(Stats, MinimumAttainablePValue) {
  EXPECT_NEAR(MinimumAttainablePValue(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MinimumAttainablePValue(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(MinimumAttainablePValue(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(MinimumAttainablePValue(7, 7), 2.0 / 3432, 1e-12);
}

// NaN and infinities are left out in order; none at all is all finite.
TEST(Stats, FiniteOnlyKeepsTheFiniteValuesInOrder) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(FiniteOnly({3, nan, 1, -inf, 2}), (std::vector<double>{3, 1, 2}));
  EXPECT_TRUE(AllFinite({}));
  EXPECT_TRUE(AllFinite({1, -2}));
  EXPECT_FALSE(AllFinite({1, nan}));
  EXPECT_FALSE(AllFinite({inf}));
}

}  // namespace
}  // namespace perfgate::stats
