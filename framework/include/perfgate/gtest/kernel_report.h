// GoogleTest assertions on per-kernel timing reports (perfgate/kernel_report/). The
// reports carry medians, not per-trial samples: every assertion is a threshold
// comparison of medians (gates::JudgeLimit), and its message says so. An unknown kernel
// or family fails, listing the known ones.
#ifndef PERFGATE_GTEST_KERNEL_REPORT_H_
#define PERFGATE_GTEST_KERNEL_REPORT_H_

#include <gtest/gtest.h>

#include <string>

#include "perfgate/kernel_report/compare.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/gtest/internal/explained.h"

namespace perfgate::testing {

// A family's µs/token of the engine exceeds the baseline's by at most `max_us` ...
::testing::AssertionResult KernelFamilyDeltaAtMostUs(const kernel_report::KernelReport& engine,
                                                     const kernel_report::KernelReport& baseline,
                                                     const std::string& family, double max_us);
// ... or by at most `max_pct` percent of the baseline's.
::testing::AssertionResult KernelFamilyDeltaAtMostPercent(const kernel_report::KernelReport& engine,
                                                          const kernel_report::KernelReport& baseline,
                                                          const std::string& family, double max_pct);
// The same for one kernel, named by its matched name or by either side's own name.
::testing::AssertionResult KernelDeltaAtMostUs(const kernel_report::KernelReport& engine,
                                               const kernel_report::KernelReport& baseline,
                                               const std::string& kernel, double max_us);
::testing::AssertionResult KernelDeltaAtMostPercent(const kernel_report::KernelReport& engine,
                                                    const kernel_report::KernelReport& baseline,
                                                    const std::string& kernel, double max_pct);
// One kernel's us_per_call_median of the engine exceeds the baseline's by at most
// `max_pct` percent; a kernel merged from several on either side fails (no such median).
::testing::AssertionResult KernelPerCallDeltaAtMostPercent(const kernel_report::KernelReport& engine,
                                                           const kernel_report::KernelReport& baseline,
                                                           const std::string& kernel, double max_pct);
// The family with the largest positive Δ µs/token is `family`.
::testing::AssertionResult KernelAttackTargetIs(const kernel_report::KernelReport& engine,
                                                const kernel_report::KernelReport& baseline,
                                                const std::string& family);
// A family holds at least `min_pct` percent of the report's µs/token.
::testing::AssertionResult KernelFamilyShareAtLeast(const kernel_report::KernelReport& report,
                                                    const std::string& family, double min_pct);

}  // namespace perfgate::testing

#define PERFGATE_EXPECT_KERNEL_FAMILY_DELTA_AT_MOST_US(engine, baseline, family, us) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelFamilyDeltaAtMostUs(engine, baseline, family, us))
#define PERFGATE_ASSERT_KERNEL_FAMILY_DELTA_AT_MOST_US(engine, baseline, family, us) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelFamilyDeltaAtMostUs(engine, baseline, family, us))
#define PERFGATE_EXPECT_KERNEL_FAMILY_DELTA_AT_MOST_PERCENT(engine, baseline, family, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelFamilyDeltaAtMostPercent(engine, baseline, family, pct))
#define PERFGATE_ASSERT_KERNEL_FAMILY_DELTA_AT_MOST_PERCENT(engine, baseline, family, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelFamilyDeltaAtMostPercent(engine, baseline, family, pct))
#define PERFGATE_EXPECT_KERNEL_DELTA_AT_MOST_US(engine, baseline, kernel, us) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelDeltaAtMostUs(engine, baseline, kernel, us))
#define PERFGATE_ASSERT_KERNEL_DELTA_AT_MOST_US(engine, baseline, kernel, us) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelDeltaAtMostUs(engine, baseline, kernel, us))
#define PERFGATE_EXPECT_KERNEL_DELTA_AT_MOST_PERCENT(engine, baseline, kernel, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelDeltaAtMostPercent(engine, baseline, kernel, pct))
#define PERFGATE_ASSERT_KERNEL_DELTA_AT_MOST_PERCENT(engine, baseline, kernel, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelDeltaAtMostPercent(engine, baseline, kernel, pct))
#define PERFGATE_EXPECT_KERNEL_PER_CALL_DELTA_AT_MOST_PERCENT(engine, baseline, kernel, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelPerCallDeltaAtMostPercent(engine, baseline, kernel, pct))
#define PERFGATE_ASSERT_KERNEL_PER_CALL_DELTA_AT_MOST_PERCENT(engine, baseline, kernel, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelPerCallDeltaAtMostPercent(engine, baseline, kernel, pct))
#define PERFGATE_EXPECT_KERNEL_ATTACK_TARGET(engine, baseline, family) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelAttackTargetIs(engine, baseline, family))
#define PERFGATE_ASSERT_KERNEL_ATTACK_TARGET(engine, baseline, family) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelAttackTargetIs(engine, baseline, family))
#define PERFGATE_EXPECT_KERNEL_FAMILY_SHARE_AT_LEAST(report, family, pct) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::KernelFamilyShareAtLeast(report, family, pct))
#define PERFGATE_ASSERT_KERNEL_FAMILY_SHARE_AT_LEAST(report, family, pct) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::KernelFamilyShareAtLeast(report, family, pct))

#endif  // PERFGATE_GTEST_KERNEL_REPORT_H_
