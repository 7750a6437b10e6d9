// Change points (perfgate/history/change_points.h): planted steps found where they
// are, with their means and p-values; the filters; series without a change; short
// series; and FindChangePointsSince against FindChangePoints on the same series.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "history/change_points_divisive.h"
#include "perfgate/history/change_points.h"

namespace perfgate::history::change_points_test {
namespace {

// Gaussian noise from a seed (splitmix64 and Box-Muller), the same on every platform
// (std::normal_distribution is not).
class CpTestNoise {
 public:
  explicit CpTestNoise(uint64_t seed) : state_(seed) {}
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) / 9007199254740992.0; }
  double Gaussian() {
    const double u = Uniform();
    const double v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// `levels[i]` from `starts[i]` on (starts[0] == 0), each point times (1 + cv * noise).
std::vector<double> CpTestSeries(int64_t n, const std::vector<int64_t>& starts, const std::vector<double>& levels,
                                 double cv, uint64_t seed) {
  CpTestNoise noise(seed);
  std::vector<double> series;
  size_t level = 0;
  for (int64_t i = 0; i < n; ++i) {
    while (level + 1 < starts.size() && starts[level + 1] <= i) ++level;
    series.push_back(levels[level] * (1 + cv * noise.Gaussian()));
  }
  return series;
}

// Otava's defaults, spelled out: the tests do not follow perfgate's defaults if those move.
ChangePointOptions CpTestOtava() {
  ChangePointOptions options;
  options.window = 50;
  options.max_pvalue = 0.001;
  options.min_magnitude = 0;
  return options;
}

double CpTestMean(const std::vector<double>& v, int64_t begin, int64_t end) {
  double sum = 0;
  for (int64_t i = begin; i < end; ++i) sum += v[i];
  return sum / static_cast<double>(end - begin);
}

std::vector<int64_t> CpTestIndices(const std::vector<ChangePoint>& points) {
  std::vector<int64_t> indices;
  for (const ChangePoint& p : points) indices.push_back(p.index);
  return indices;
}

TEST(ChangePoints, PlantedStepFoundAtItsIndexWithItsMeansAndPValue) {
  // 100 → 102 (2 %) at run 60 of 100, noise 0.5 %: a 4-sigma step.
  const std::vector<double> series = CpTestSeries(100, {0, 60}, {100, 102}, 0.005, 7);
  const std::vector<ChangePoint> found = FindChangePoints(series, CpTestOtava());
  ASSERT_EQ(CpTestIndices(found), (std::vector<int64_t>{60}));
  const ChangePoint& p = found[0];
  // Run 60 lies in block [50, 75), whose context [0, 125) holds the whole series: the
  // sides are every run before and every run after.
  EXPECT_NEAR(p.mean_before, CpTestMean(series, 0, 60), 1e-9);
  EXPECT_NEAR(p.mean_after, CpTestMean(series, 60, 100), 1e-9);
  EXPECT_NEAR(p.mean_before, 100, 0.2);
  EXPECT_NEAR(p.mean_after, 102, 0.2);
  EXPECT_NEAR(p.stddev_before, 0.5, 0.15);
  EXPECT_NEAR(p.stddev_after, 0.51, 0.15);
  EXPECT_NEAR(p.Magnitude(), 0.02, 0.003);
  // The p-value is the t-test's of those two sides, and a 4-sigma step over 60 and 40
  // runs is far beyond 0.001.
  EXPECT_DOUBLE_EQ(p.pvalue, divisive::CompareSides(series, 0, 60, 100).pvalue);
  EXPECT_LT(p.pvalue, 1e-30);
}

TEST(ChangePoints, NoStepGivesNone) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    EXPECT_TRUE(FindChangePoints(CpTestSeries(300, {0}, {250}, 0.01, seed), CpTestOtava()).empty()) << "seed " << seed;
  }
}

TEST(ChangePoints, TwoStepsBothFound) {
  // Up 4 % at 50, down 6 % at 110.
  const std::vector<double> series = CpTestSeries(160, {0, 50, 110}, {100, 104, 98}, 0.005, 3);
  const std::vector<ChangePoint> found = FindChangePoints(series, CpTestOtava());
  ASSERT_EQ(CpTestIndices(found), (std::vector<int64_t>{50, 110}));
  EXPECT_NEAR(found[0].Magnitude(), 0.04, 0.005);
  EXPECT_NEAR(found[1].Magnitude(), 98.0 / 104 - 1, 0.005);
  // The sides end at the other change point: found[0]'s right side is [50, 110).
  EXPECT_NEAR(found[0].mean_after, CpTestMean(series, 50, 110), 1e-9);
  EXPECT_NEAR(found[1].mean_before, CpTestMean(series, 50, 110), 1e-9);
}

TEST(ChangePoints, MinMagnitudeDropsSmallerChanges) {
  // A 1 % step under 0.1 % noise: certain, and small.
  const std::vector<double> series = CpTestSeries(100, {0, 40}, {100, 101}, 0.001, 11);
  ChangePointOptions options = CpTestOtava();
  options.min_magnitude = 0.005;
  EXPECT_EQ(CpTestIndices(FindChangePoints(series, options)), (std::vector<int64_t>{40}));
  options.min_magnitude = 0.02;
  EXPECT_TRUE(FindChangePoints(series, options).empty());
}

TEST(ChangePoints, MaxPValueDropsWeakerChanges) {
  // A 1-sigma step over 30 and 30 runs: p well inside (1e-8, 1e-3).
  const std::vector<double> series = CpTestSeries(60, {0, 30}, {100, 101}, 0.01, 5);
  const std::vector<ChangePoint> found = FindChangePoints(series, CpTestOtava());
  ASSERT_EQ(CpTestIndices(found), (std::vector<int64_t>{30}));
  EXPECT_GT(found[0].pvalue, 1e-8);
  EXPECT_LT(found[0].pvalue, 1e-3);
  ChangePointOptions strict = CpTestOtava();
  strict.max_pvalue = found[0].pvalue / 2;
  EXPECT_TRUE(FindChangePoints(series, strict).empty());
  ChangePointOptions at_its_p = CpTestOtava();
  at_its_p.max_pvalue = found[0].pvalue;  // kept when p <= max_pvalue
  EXPECT_EQ(CpTestIndices(FindChangePoints(series, at_its_p)), (std::vector<int64_t>{30}));
}

TEST(ChangePoints, ConstantSeriesHasNoneAndANoiselessStepHasPValueZero) {
  EXPECT_TRUE(FindChangePoints(std::vector<double>(120, 1234.56), CpTestOtava()).empty());
  std::vector<double> step(120, 0.1);
  for (size_t i = 70; i < step.size(); ++i) step[i] = 0.3;
  const std::vector<ChangePoint> found = FindChangePoints(step, CpTestOtava());
  ASSERT_EQ(CpTestIndices(found), (std::vector<int64_t>{70}));
  EXPECT_EQ(found[0].pvalue, 0);
  EXPECT_EQ(found[0].mean_before, 0.1);
  EXPECT_EQ(found[0].mean_after, 0.3);
  EXPECT_EQ(found[0].stddev_before, 0);
}

TEST(ChangePoints, ShortSeriesGiveNoneAndDoNotCrash) {
  EXPECT_TRUE(FindChangePoints({}, CpTestOtava()).empty());
  EXPECT_TRUE(FindChangePoints({5}, CpTestOtava()).empty());
  EXPECT_TRUE(FindChangePoints({5, 500}, CpTestOtava()).empty());  // no degree of freedom
  EXPECT_TRUE(FindChangePointsSince({5, 500}, 1, CpTestOtava()).empty());
  EXPECT_TRUE(FindChangePoints({5, 5.1, 4.9}, CpTestOtava()).empty());
  EXPECT_TRUE(FindChangePoints({5, 5.1, 4.9, 5.05}, CpTestOtava()).empty());
}

TEST(ChangePoints, ThreePointsAreTheLeastThatCanChange) {
  // Two equal runs and a third far off: the pooled t-test has one degree of freedom
  // and no spread, so p is 0, as in Otava (scipy gives t = inf).
  const std::vector<ChangePoint> found = FindChangePoints({5, 5, 500}, CpTestOtava());
  ASSERT_EQ(CpTestIndices(found), (std::vector<int64_t>{2}));
  EXPECT_EQ(found[0].pvalue, 0);
}

TEST(ChangePoints, SinceEqualsTheWholeSeriesAtAndAfterFrom) {
  CpTestNoise pick(2024);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = 3 + static_cast<int64_t>(pick.Uniform() * 600);
    std::vector<int64_t> starts{0};
    std::vector<double> levels{1000};
    for (int64_t at = 1; at < n; ++at) {
      if (pick.Uniform() < 0.02) {
        starts.push_back(at);
        levels.push_back(levels.back() * (1 + (pick.Uniform() - 0.5) * 0.1));
      }
    }
    const double cv = trial % 2 ? 0.002 : 0.01;
    const std::vector<double> series = CpTestSeries(n, starts, levels, cv, 100 + trial);
    ChangePointOptions options = CpTestOtava();
    options.window = trial % 4 == 3 ? 7 : (trial % 4 == 2 ? 31 : 50);
    const std::vector<ChangePoint> whole = FindChangePoints(series, options);
    for (int64_t from : {int64_t{0}, n - 1, n - options.window, n / 2, static_cast<int64_t>(pick.Uniform() * n)}) {
      std::vector<ChangePoint> expected;
      for (const ChangePoint& p : whole) {
        if (p.index >= from) expected.push_back(p);
      }
      const std::vector<ChangePoint> since = FindChangePointsSince(series, from, options);
      ASSERT_EQ(CpTestIndices(since), CpTestIndices(expected)) << "trial " << trial << " from " << from;
      for (size_t i = 0; i < since.size(); ++i) {
        EXPECT_EQ(since[i].mean_before, expected[i].mean_before);
        EXPECT_EQ(since[i].mean_after, expected[i].mean_after);
        EXPECT_EQ(since[i].stddev_before, expected[i].stddev_before);
        EXPECT_EQ(since[i].stddev_after, expected[i].stddev_after);
        EXPECT_EQ(since[i].pvalue, expected[i].pvalue);
      }
    }
  }
}

TEST(ChangePoints, PlantedStepsAreFoundInLongSeries) {
  // Steps of 3 or 5 % every 80-160 runs under 0.5 % noise, over 2,000 runs: each found
  // at its run, and nothing else before the newest runs.
  std::vector<int64_t> starts{0};
  std::vector<double> levels{500};
  CpTestNoise pick(9);
  while (true) {
    const int64_t next = starts.back() + 80 + static_cast<int64_t>(pick.Uniform() * 80);
    if (next >= 2000) break;
    starts.push_back(next);
    levels.push_back(levels.back() * (pick.Uniform() < 0.5 ? 1.03 : 0.95));
  }
  const std::vector<double> series = CpTestSeries(2000, starts, levels, 0.005, 21);
  const std::vector<int64_t> expected(starts.begin() + 1, starts.end());
  std::vector<ChangePoint> found = FindChangePoints(series, CpTestOtava());
  // The newest runs may open a level of their own by chance: here the last 3 runs sit
  // 1.1 % (2 sigma) above the 94 before them, p = 0.0006. More runs settle it.
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.back().index, 1997);
  EXPECT_GT(found.back().pvalue, 1e-4);
  found.pop_back();
  EXPECT_EQ(CpTestIndices(found), expected);
}

TEST(ChangePoints, SinceReadsOnlyTheWindowsReachingFrom) {
  // A point the store could never hold, far before the tail: the check of the tail
  // never reads it, the whole series' analysis does (and aborts).
  std::vector<double> series = CpTestSeries(1000, {0, 990}, {100, 110}, 0.001, 4);
  series[100] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(CpTestIndices(FindChangePointsSince(series, 980, CpTestOtava())), (std::vector<int64_t>{990}));
  EXPECT_DEATH(FindChangePoints(series, CpTestOtava()), "series\\[100\\] is not finite");
}

TEST(ChangePoints, SameSeriesSameAnswer) {
  const std::vector<double> series = CpTestSeries(400, {0, 123, 301}, {10, 10.2, 10.1}, 0.004, 8);
  const std::vector<ChangePoint> first = FindChangePoints(series, CpTestOtava());
  const std::vector<ChangePoint> second = FindChangePoints(series, CpTestOtava());
  ASSERT_EQ(CpTestIndices(first), CpTestIndices(second));
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].pvalue, second[i].pvalue);
}

TEST(ChangePoints, MagnitudeIsTheRelativeChangeOfMeans) {
  ChangePoint p;
  p.mean_before = 200;
  p.mean_after = 150;
  EXPECT_DOUBLE_EQ(p.Magnitude(), -0.25);
  p.mean_before = 0;
  EXPECT_EQ(p.Magnitude(), 0);
}

TEST(ChangePoints, OptionsOutsideTheirRangeAreRefused) {
  EXPECT_EQ(ChangePointOptionsError({}), "");
  ChangePointOptions o = CpTestOtava();
  o.window = 1;
  EXPECT_EQ(ChangePointOptionsError(o), "window must be at least 2 (it is 1)");
  o = {};
  o.max_pvalue = 1.5;
  EXPECT_EQ(ChangePointOptionsError(o), "max_pvalue must be within [0, 1]");
  o.max_pvalue = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ChangePointOptionsError(o), "max_pvalue must be within [0, 1]");
  o = {};
  o.min_magnitude = -0.01;
  EXPECT_EQ(ChangePointOptionsError(o), "min_magnitude must be finite and at least 0");
  o.min_magnitude = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ChangePointOptionsError(o), "min_magnitude must be finite and at least 0");
  o.window = 0;
  EXPECT_DEATH(FindChangePoints({1, 2, 3}, o), "window must be at least 2");
}

TEST(ChangePointsStudentT, ClosedFormsAndTables) {
  // df = 1 (Cauchy): p = 1 - 2 atan(|t|) / pi; df = 2: p = 1 - |t| / sqrt(2 + t^2).
  for (double t : {0.0, 0.3, 1.0, 2.5, 12.0, 1e4}) {
    EXPECT_NEAR(divisive::StudentTwoSidedPValue(t, 1), 1 - 2 * std::atan(t) / M_PI, 1e-14) << t;
    EXPECT_NEAR(divisive::StudentTwoSidedPValue(-t, 2), 1 - t / std::sqrt(2 + t * t), 1e-14) << t;
  }
  // Student's table: the two-sided 5 % and 1 % points.
  EXPECT_NEAR(divisive::StudentTwoSidedPValue(2.228138851986, 10), 0.05, 1e-10);
  EXPECT_NEAR(divisive::StudentTwoSidedPValue(2.749995653567, 30), 0.01, 1e-10);
  EXPECT_NEAR(divisive::StudentTwoSidedPValue(1.983971518523, 100), 0.05, 1e-10);
  EXPECT_EQ(divisive::StudentTwoSidedPValue(std::numeric_limits<double>::infinity(), 5), 0);
  EXPECT_EQ(divisive::StudentTwoSidedPValue(3, 0), 1);
  // Far in the tail the p-value keeps its digits instead of rounding to 0 (the value by
  // quadrature, tests/history/cross_check.py's student_two_sided_p: 1.6144804252e-38).
  EXPECT_NEAR(divisive::StudentTwoSidedPValue(40, 48) / 1.6144804252233033e-38, 1, 1e-8);
}

TEST(ChangePointsDivisive, QHatOfAHandWorkedSeries) {
  // [0, 0, 1, 1]: tau = 2, kappa = 4 gives q = 2/4 * (4 cross distances of 1) = 2; the
  // next best, tau = 2 and kappa = 3, 4/3. The sides are constant and differ: p = 0.
  const std::vector<double> series{0, 0, 1, 1};
  const std::vector<divisive::Split> splits = divisive::DivisiveSplits(series, 0, 4, 0.001);
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_EQ(splits[0].index, 2);
  EXPECT_DOUBLE_EQ(splits[0].qhat, 2);
  EXPECT_EQ(splits[0].stats.pvalue, 0);
}

TEST(ChangePointsDivisive, SplitsStopAtTheFirstCandidateAboveMaxPValue) {
  // Up 10 % at 20, down 14 % at 35, 0.2 % noise. The energy statistic picks 20 first,
  // and its t-test (100 against a mix of 110 and 95) fails: the search stops there, as
  // Otava's does, though the split at 35 would pass.
  const std::vector<double> series = CpTestSeries(50, {0, 20, 35}, {100, 110, 95}, 0.002, 6);
  EXPECT_TRUE(divisive::DivisiveSplits(series, 0, 50, 0.01).empty());
  const std::vector<divisive::Split> forced = divisive::DivisiveSplits(series, 0, 50, 1.0, 2);
  ASSERT_EQ(forced.size(), 2u);
  EXPECT_EQ(forced[0].index, 20);
  EXPECT_GT(forced[0].stats.pvalue, 0.1);
  EXPECT_EQ(forced[1].index, 35);
  EXPECT_LT(forced[1].stats.pvalue, 1e-40);
  // The window [25, 50) holds the second step alone (its index relative to 25).
  const std::vector<divisive::Split> second_window = divisive::DivisiveSplits(series, 25, 50, 0.01);
  ASSERT_EQ(second_window.size(), 1u);
  EXPECT_EQ(second_window[0].index, 10);
}

}  // namespace
}  // namespace perfgate::history::change_points_test
