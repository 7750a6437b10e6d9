// The results-history assertion (perfgate/gtest/history.h).
#include "perfgate/gtest/history.h"

#include "perfgate/document/render.h"
#include "perfgate/history/record.h"
#include "perfgate/history/report.h"
#include "perfgate/history/store.h"

namespace perfgate::testing {

::testing::AssertionResult HistoryStable(const std::string& location, const history::SeriesFilter& filter,
                                         const history::CheckPolicy& policy) {
  const std::string where = history::HistoryLocation(location);
  if (where.empty()) {
    return ::testing::AssertionFailure() << "no results history named: pass a location or set "
                                         << history::kHistoryEnv;
  }
  auto store = history::OpenStore(where);
  if (!store.ok()) return ::testing::AssertionFailure() << store.status().ToString();
  auto result = history::CheckHistory(**store, filter, policy);
  if (!result.ok()) return ::testing::AssertionFailure() << result.status().ToString();
  const std::string report = document::Render(history::CheckDocument(where, *result, policy), "text").value();
  if (!result->pass()) return ::testing::AssertionFailure() << report;
  if (history::ShortFails(*result, /*allow_short=*/false)) {
    return ::testing::AssertionFailure() << "series too short to judge, and under CI that is no pass "
                                            "(PERFGATE_ALLOW_SKIP=1 accepts it)\n"
                                         << report;
  }
  return ::testing::AssertionSuccess() << report;
}

}  // namespace perfgate::testing
