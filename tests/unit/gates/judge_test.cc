// The one judge (gates/judge.h): one policy for assertions, goldens and comparisons,
// and a limit verdict that always agrees with pass or fail.
#include "perfgate/gates/judge.h"

#include <gtest/gtest.h>

#include <random>

#include "perfgate/golden/golden.h"

namespace perfgate::gates {
namespace {

TEST(Judge, GoldenPoliciesAreTheJudgesPolicies) {
  // golden::FieldPolicy is gates::Policy: a golden's policy is judged as it reads.
  golden::FieldPolicy p = golden::FieldPolicy::Noisy(0.05, 20, golden::Direction::kLowerIsBetter);
  const Policy& same = p;
  EXPECT_EQ(same.kind, Kind::kNoisy);
  EXPECT_DOUBLE_EQ(ToleranceOf(same, 1000), 50);  // max(5 % of 1000, 20)
  EXPECT_DOUBLE_EQ(ToleranceOf(same, 100), 20);   // the floor
  EXPECT_FALSE(BeyondLimit(same, 1000, 1050));    // at the limit passes
  EXPECT_TRUE(BeyondLimit(same, 1000, 1050.01));
  EXPECT_FALSE(BeyondLimit(same, 1000, 10));      // lower is better: any decrease passes
  EXPECT_TRUE(BeyondLimit(same, 1000, std::nan("")));
  const Policy exact = Policy::Exact(0.5);
  EXPECT_TRUE(BeyondLimit(exact, 45.6, 46.2));  // both directions
  EXPECT_TRUE(BeyondLimit(exact, 45.6, 45.0));
  EXPECT_FALSE(BeyondLimit(exact, 45.6, 46.1));
}

// The old exact-count assertion said "improved" while failing when the count fell.
TEST(JudgeLimit, AnExactCountOffTheOtherWayFailsAsRegressedNotImproved) {
  const LimitVerdict v = JudgeLimit("graphs.submissions_per_token", 150, {150, 150, 150}, 160, Policy::Exact(0));
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.verdict.verdict, Verdict::kRegressed);
  EXPECT_NE(v.verdict.explanation.find("beyond the limit, regressed"), std::string::npos) << v.verdict.explanation;
}

// The old delta assertion kept the rank test's verdict, which could read "same" (p >
// alpha with enough power) or "inconclusive" on a failing median.
TEST(JudgeLimit, AnExcessTheTrialsCannotConfirmStillReadsRegressedWithItsP) {
  const std::vector<double> limit_trials = {100, 101, 99};
  const LimitVerdict v = JudgeLimit("hf2q.md.us_per_token", 100.5, {100.5, 99.5, 101.5}, 100,
                                    Policy::Noisy(0, 0, Direction::kLowerIsBetter), limit_trials);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.verdict.verdict, Verdict::kRegressed);
  ASSERT_TRUE(v.verdict.p_value.has_value());
  EXPECT_GT(*v.verdict.p_value, 0.05);
  EXPECT_NE(v.verdict.explanation.find("too few trials to confirm it"), std::string::npos) << v.verdict.explanation;
}

TEST(JudgeLimit, AnUngatedPolicyReportsButPasses) {
  Policy p = Policy::Exact(0);
  p.gated = false;
  p.reason = "tracked only";
  const LimitVerdict v = JudgeLimit("x", 2, {2}, 1, p);
  EXPECT_TRUE(v.pass);
  EXPECT_EQ(v.verdict.verdict, Verdict::kRegressed);
  EXPECT_NE(v.verdict.explanation.find("not gated (tracked only)"), std::string::npos);
  // A passing row never reads a bare "regressed": the table says it is ungated.
  EXPECT_EQ(VerdictWord(v.verdict), "regressed (ungated)");
  const std::string table = FormatVerdictTable({v.verdict});
  EXPECT_NE(table.find("  regressed (ungated)\n"), std::string::npos) << table;
  EXPECT_NE(v.verdict.explanation.find("beyond the limit, regressed (ungated); not gated"), std::string::npos)
      << v.verdict.explanation;
}

// Over many random limit checks, gated verdicts agree with pass and fail.
TEST(JudgeLimit, TheVerdictAlwaysAgreesWithPassOrFail) {
  std::mt19937 rng(20261201);
  std::uniform_real_distribution<double> value(-100, 100);
  for (int i = 0; i < 5000; ++i) {
    const Direction dir = static_cast<Direction>(i % 3);
    const Policy p = i % 2 ? Policy::Exact(std::fabs(value(rng)) / 10, dir)
                           : Policy::Noisy(std::fabs(value(rng)) / 1000, std::fabs(value(rng)) / 10, dir);
    const double limit = value(rng);
    const std::vector<double> current = {value(rng), value(rng), value(rng)};
    const std::vector<double> reference = {limit - 1, limit, limit + 1};
    const LimitVerdict v = JudgeLimit("m", current[1], current, limit, p, reference);
    // A limit check never reads "improved": under a budget is within it.
    ASSERT_NE(v.verdict.verdict, Verdict::kImproved) << v.verdict.explanation;
    ASSERT_EQ(v.pass, v.verdict.verdict == Verdict::kSame) << v.verdict.explanation;
    ASSERT_EQ(VerdictWord(v.verdict), v.pass ? "within" : "regressed") << v.verdict.explanation;
    ASSERT_EQ(v.pass, !BeyondLimit(p, limit, current[1]));
  }
}

// Every combination of a budget check: within, at and over the budget, by an exact
// and a noisy policy, with no trials behind the budget, trials that confirm the change
// (5 vs 5, p = 0.008) and trials too few to (3 vs 3, p >= 0.1). The verdict word in the
// result, its explanation and its table row always say what pass or fail says.
TEST(JudgeLimit, EveryBudgetAndPValueCaseSaysWhatPassOrFailSays) {
  struct Reference {
    const char* name;
    std::vector<double> trials;  // shifted so their median is the budget, 100
  };
  const std::vector<Reference> references = {
      {"no trials", {}}, {"5 vs 5", {98, 99, 100, 101, 102}}, {"3 vs 3", {99, 100, 101}}};
  const std::vector<std::pair<const char*, double>> currents = {
      {"well within", 80}, {"within", 99.5}, {"at", 100}, {"over", 100.5}, {"well over", 120}};
  for (const Policy& policy : {Policy::Exact(0, Direction::kLowerIsBetter),
                               Policy::Noisy(0, 0, Direction::kLowerIsBetter)}) {
    for (const Reference& ref : references) {
      for (const auto& [where, median] : currents) {
        std::vector<double> current;
        for (double r : ref.trials.empty() ? std::vector<double>{99, 100, 101} : ref.trials) {
          current.push_back(r - 100 + median);
        }
        const LimitVerdict v = JudgeLimit("m", median, current, 100, policy, ref.trials, "budget");
        const std::string label = std::string(where) + " the budget, " + ref.name +
                                  (policy.kind == Kind::kExact ? ", exact" : ", noisy");
        const bool over = median > 100;
        EXPECT_EQ(v.pass, !over) << label;
        EXPECT_EQ(v.verdict.verdict, over ? Verdict::kRegressed : Verdict::kSame)
            << label << ": " << v.verdict.explanation;
        EXPECT_NE(v.verdict.verdict, Verdict::kInconclusive) << label;
        EXPECT_EQ(v.verdict.p_value.has_value(), !ref.trials.empty()) << label;
        const std::string tail = over ? ": fails" : ": passes";
        EXPECT_EQ(v.verdict.explanation.substr(v.verdict.explanation.size() - tail.size()), tail)
            << label << ": " << v.verdict.explanation;
        const std::string table = FormatVerdictTable({v.verdict});
        const std::string row = table.substr(table.find('\n') + 1, table.find('\n', table.find('\n') + 1));
        // Well within a budget (80 vs 100, tolerance 0) once read "improved".
        const std::string word = over ? "regressed" : "within";
        EXPECT_EQ(VerdictWord(v.verdict), word) << label;
        EXPECT_NE(row.find("  " + word + "\n"), std::string::npos) << label << ": " << table;
        EXPECT_EQ(row.find("improved"), std::string::npos) << label << ": " << table;
        const std::string said = over ? ": beyond the budget, regressed" : ": within the budget: passes";
        EXPECT_NE(v.verdict.explanation.find(said), std::string::npos) << label << ": " << v.verdict.explanation;
      }
    }
  }
  // The p-values behind the cases: 5 vs 5 separated confirms, 3 vs 3 never can.
  EXPECT_LE(*JudgeLimit("m", 120, {118, 119, 120, 121, 122}, 100, Policy::Exact(0), {98, 99, 100, 101, 102})
                 .verdict.p_value,
            0.05);
  EXPECT_GT(*JudgeLimit("m", 120, {119, 120, 121}, 100, Policy::Exact(0), {99, 100, 101}).verdict.p_value, 0.05);
}

TEST(Judge, SamplesAgainstSamplesUseTheStatisticsOfTheirKind) {
  const MetricVerdict exact = Judge("cbs", {3, 3, 3}, {4, 4, 4}, Policy::Exact(0, Direction::kLowerIsBetter));
  EXPECT_EQ(exact.verdict, Verdict::kRegressed);
  // 3 vs 3 can never reach alpha = 0.05: a noisy change is inconclusive, never same.
  const MetricVerdict noisy = Judge("us", {100, 101, 99}, {150, 151, 149}, Policy::Noisy(0.05, 0, Direction::kLowerIsBetter));
  EXPECT_EQ(noisy.verdict, Verdict::kInconclusive);
  const MetricVerdict both = Judge("n", {10, 10, 10, 10, 10}, {8, 8, 8, 8, 8}, Policy::Exact(0, Direction::kBoth));
  EXPECT_EQ(both.verdict, Verdict::kRegressed) << "for kBoth any change is a finding";
}

}  // namespace
}  // namespace perfgate::gates
