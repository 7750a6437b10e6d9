// Budgets on host launch calls per token: figures only a source that records the host
// side has (trace-event JSON's cudaLaunchKernel / cudaGraphLaunch, summary.h extras).
#include <string>
#include <vector>

#include "assertions_internal.h"
#include "perfgate/core/names.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"

namespace perfgate::testing {
namespace {

using attribution::EngineSummary;

// The figures an engine does have, for a failure that names one it lacks: its totals
// and whatever extras its source reports.
std::string FiguresOf(const EngineSummary& e) {
  std::vector<std::string> names;
  for (const metrics::Metric& m : metrics::MetricsOf(e)) {
    if (m.id.scope.empty() || m.id.scope == "extras") names.push_back(m.id.GoldenPath());
  }
  return ListNames(names);
}

// The median of extras[key] at most `budget`; an engine whose source records no such
// figure fails, saying so and listing what it has.
::testing::AssertionResult ExtraAtMost(const EngineSummary& e, const std::string& key, const std::string& words,
                                       double budget) {
  if (auto f = internal::RequireEngine(e)) return *f;
  auto m = metrics::FindMetric(e, "extras/" + key);
  if (!m.ok()) {
    return ::testing::AssertionFailure()
           << e.name << " has no " << words << " (extras/" << key << "): its trials count "
           << sources::WordsOf(e).units
           << " and record no host launch calls (trace-event JSON with the profiler's CUDA runtime events does); "
           << "figures of " << e.name << ": " << FiguresOf(e) << internal::Provenance(e);
  }
  const std::string name = m->id.VerdictName(e.name);
  return internal::Budget(name, m->value, budget, e.name + " " + words + " budget " + internal::Fixed(budget),
                          internal::Provenance(e),
                          [&] { return internal::MoversForBudget(e, "extras/" + key, name); });
}

}  // namespace

::testing::AssertionResult LaunchesPerTokenAtMost(const EngineSummary& e, double budget) {
  return ExtraAtMost(e, "launches_per_token", "host launch calls/token", budget);
}

::testing::AssertionResult GraphLaunchesPerTokenAtMost(const EngineSummary& e, double budget) {
  return ExtraAtMost(e, "graph_launches_per_token", "graph launches/token", budget);
}

}  // namespace perfgate::testing
