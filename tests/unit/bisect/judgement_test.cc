// How a commit is marked: bad when it regressed against the good side, good only when
// it is also measurably better than the bad side, uncertain otherwise.
#include "perfgate/bisect/judgement.h"

#include <gtest/gtest.h>

namespace perfgate::bisect {
namespace {

// µs per token, lower is better, 5 % minimum effect.
const gates::Policy kTime = gates::Policy::Noisy(0.05, 0, gates::Direction::kLowerIsBetter);
const std::vector<double> kGood = {100, 101, 99, 100.5, 99.5};
const std::vector<double> kBad = {120, 121, 119, 120.5, 119.5};

TEST(JudgeCommit, ACommitLikeTheBadSideIsBad) {
  const Judgement j = JudgeCommit("t", kTime, kGood, kBad, {119.8, 120.2, 121.5, 118.9, 120.1});
  EXPECT_EQ(j.mark, Mark::kBad);
  EXPECT_EQ(j.vs_good.verdict, gates::Verdict::kRegressed);
}

TEST(JudgeCommit, ACommitLikeTheGoodSideIsGood) {
  const Judgement j = JudgeCommit("t", kTime, kGood, kBad, {100.2, 99.9, 100.8, 99.1, 100.1});
  EXPECT_EQ(j.mark, Mark::kGood);
  EXPECT_EQ(j.vs_good.verdict, gates::Verdict::kSame);
  EXPECT_EQ(j.vs_bad.verdict, gates::Verdict::kImproved);
}

TEST(JudgeCommit, SameAsGoodButNotBetterThanBadIsUncertain) {
  // Medians 103 vs good 100 (+3 %, below the effect) and vs bad 120 (-14 %), but so
  // spread that the rank test cannot tell it from the bad side: no mark is claimed.
  const Judgement j = JudgeCommit("t", kTime, kGood, kBad, {70, 103, 140, 80, 130});
  EXPECT_EQ(j.vs_good.verdict, gates::Verdict::kSame);
  EXPECT_NE(j.vs_bad.verdict, gates::Verdict::kImproved);
  EXPECT_EQ(j.mark, Mark::kUncertain);
  EXPECT_NE(j.why.find("against the bad side"), std::string::npos) << j.why;
}

TEST(JudgeCommit, TooFewTrialsAreUncertainNotGood) {
  // Two trials can never reach alpha = 0.05.
  const Judgement j = JudgeCommit("t", kTime, kGood, kBad, {100, 100.2});
  EXPECT_EQ(j.vs_good.verdict, gates::Verdict::kInconclusive);
  EXPECT_EQ(j.mark, Mark::kUncertain);
}

TEST(JudgeCommit, AnImprovementOverTheGoodSideIsGood) {
  const Judgement j = JudgeCommit("t", kTime, kGood, kBad, {80, 81, 79, 80.5, 79.5});
  EXPECT_EQ(j.vs_good.verdict, gates::Verdict::kImproved);
  EXPECT_EQ(j.mark, Mark::kGood);
}

TEST(JudgeCommit, HigherIsBetterFiguresJudgeTheOtherWay) {
  const gates::Policy toks = gates::Policy::Noisy(0.05, 0, gates::Direction::kHigherIsBetter);
  // tok/s: good 100, bad 80.
  const std::vector<double> good = {100, 101, 99, 100.5, 99.5}, bad = {80, 81, 79, 80.5, 79.5};
  EXPECT_EQ(JudgeCommit("ts", toks, good, bad, {80.2, 79.9, 80.7, 79.1, 80.3}).mark, Mark::kBad);
  EXPECT_EQ(JudgeCommit("ts", toks, good, bad, {100.2, 99.9, 100.7, 99.1, 100.3}).mark, Mark::kGood);
}

TEST(JudgeCommit, AnExactCountIsGoodWhenItDiffersFromTheBadSide) {
  const gates::Policy count = gates::Policy::Exact(0, gates::Direction::kBoth);
  // Kernels per token: 48 on the good side, 52 on the bad side.
  EXPECT_EQ(JudgeCommit("k", count, {48}, {52}, {48}).mark, Mark::kGood);
  EXPECT_EQ(JudgeCommit("k", count, {48}, {52}, {52}).mark, Mark::kBad);
}

}  // namespace
}  // namespace perfgate::bisect
