// GoogleTest assertions on tok/s ratio floors against llama-bench (perfgate/toks/ratio.h).
#ifndef PERFGATE_GTEST_TOKS_RATIO_H_
#define PERFGATE_GTEST_TOKS_RATIO_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/toks/bench_report.h"
#include "perfgate/toks/ratio.h"
#include "perfgate/gtest/internal/explained.h"

namespace perfgate::testing {

// Engine tok/s over baseline tok/s for llama-bench test `test` ("tg128") is at least
// `floor`, less `tolerance_pp` percentage points (toks::JudgeRatio). An unknown test
// fails listing both reports' tests; a failure prints the verdict table.
::testing::AssertionResult ToksRatioAtLeast(const toks::BenchReport& engine, const toks::BenchReport& baseline,
                                            const std::string& test, double floor, double tolerance_pp = 0);
// Every cell of a policy's verdicts passes (toks::JudgePolicy); a failure prints the
// per-cell table and each failing cell's verdict.
::testing::AssertionResult ToksCellsPass(const std::vector<toks::RatioVerdict>& verdicts);

}  // namespace perfgate::testing

#define PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST(engine, baseline, test, floor) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::ToksRatioAtLeast(engine, baseline, test, floor))
#define PERFGATE_ASSERT_TOKS_RATIO_AT_LEAST(engine, baseline, test, floor) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::ToksRatioAtLeast(engine, baseline, test, floor))
#define PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST_WITHIN_PP(engine, baseline, test, floor, tolerance_pp) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::ToksRatioAtLeast(engine, baseline, test, floor, tolerance_pp))
#define PERFGATE_ASSERT_TOKS_RATIO_AT_LEAST_WITHIN_PP(engine, baseline, test, floor, tolerance_pp) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::ToksRatioAtLeast(engine, baseline, test, floor, tolerance_pp))
#define PERFGATE_EXPECT_TOKS_CELLS_PASS(verdicts) PERFGATE_INTERNAL_EXPECT(::perfgate::testing::ToksCellsPass(verdicts))
#define PERFGATE_ASSERT_TOKS_CELLS_PASS(verdicts) PERFGATE_INTERNAL_ASSERT(::perfgate::testing::ToksCellsPass(verdicts))

#endif  // PERFGATE_GTEST_TOKS_RATIO_H_
