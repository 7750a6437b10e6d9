// A GoogleTest assertion on a results history (perfgate/history/analysis.h): how a
// slow drift fails a build.
#ifndef PERFGATE_GTEST_HISTORY_H_
#define PERFGATE_GTEST_HISTORY_H_

#include <gtest/gtest.h>

#include <string>

#include "perfgate/gtest/internal/explained.h"
#include "perfgate/history/analysis.h"

namespace perfgate::testing {

// The newest runs of every series `filter` selects in the history at `location` (an
// SQLite file or a postgresql:// URL; "" reads PERFGATE_HISTORY) open no change point
// in the bad direction beyond `policy`. A failure names each metric, its commit range
// and its movers. A series too short to judge fails under CI unless PERFGATE_ALLOW_SKIP=1,
// and passes elsewhere, saying so.
::testing::AssertionResult HistoryStable(const std::string& location, const history::SeriesFilter& filter,
                                         const history::CheckPolicy& policy = {});

}  // namespace perfgate::testing

#define PERFGATE_EXPECT_HISTORY_STABLE(location, filter) \
  PERFGATE_INTERNAL_EXPECT(::perfgate::testing::HistoryStable(location, filter))
#define PERFGATE_ASSERT_HISTORY_STABLE(location, filter) \
  PERFGATE_INTERNAL_ASSERT(::perfgate::testing::HistoryStable(location, filter))

#endif  // PERFGATE_GTEST_HISTORY_H_
