// A trial's source count by name (attribution::TrialSummary::source_counts), or -1
// when the trial has none: short enough for an EXPECT_EQ.
#ifndef PERFGATE_TESTS_SUPPORT_SOURCE_COUNT_H_
#define PERFGATE_TESTS_SUPPORT_SOURCE_COUNT_H_

#include <cstdint>
#include <string_view>

#include "perfgate/attribution/summary.h"

namespace perfgate::testing_support {

inline int64_t SourceCount(const attribution::TrialSummary& trial, std::string_view name) {
  return attribution::FindSourceCount(trial, name).value_or(-1);
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_SUPPORT_SOURCE_COUNT_H_
