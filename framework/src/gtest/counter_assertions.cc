// Assertions on an engine's own counter reports, and the dispatch budget that takes
// its count from the best source there is: the engine's counters, else the kernels a
// kernel trace saw. A Metal trace counts submissions, never dispatches.
#include "assertions_internal.h"
#include "perfgate/core/names.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"

namespace perfgate::testing {
namespace {

using attribution::EngineSummary;
using internal::Budget;
using internal::Fixed;
using internal::Provenance;
using internal::RequireEngine;

constexpr const char kWhereCountersGo[] =
    "put the engine's counter report (hf2q `generate --benchmark` output) beside each trial's trace as "
    "<recording>/<engine>/trial-K/counters.txt, or give `perfgate attribute --counters FILE` for one trial";

std::string CounterKeys(const EngineSummary& e) {
  std::vector<std::string> keys;
  for (const auto& [key, _] : e.counters) keys.push_back(key);
  return ListNames(keys);
}

// Where the engine's counters were read, for the line above the verdict table.
std::string FromCounters(const EngineSummary& e) { return " (from the engine's counters, " + e.counters_path + ")"; }

}  // namespace

::testing::AssertionResult CounterAtMost(const EngineSummary& e, const std::string& counter, double limit) {
  if (auto f = RequireEngine(e)) return *f;
  if (e.counters.empty() && e.counter_text.empty()) {
    return ::testing::AssertionFailure() << e.name << " has no counter report, so no counter '" << counter
                                         << "': " << kWhereCountersGo << Provenance(e);
  }
  const auto it = e.counters.find(counter);
  if (it == e.counters.end()) {
    const auto text = e.counter_text.find(counter);
    if (text != e.counter_text.end()) {
      return ::testing::AssertionFailure() << e.name << "'s counter '" << counter << "' is text ('" << text->second
                                           << "'), not a number (numeric counters: " << CounterKeys(e) << ")"
                                           << Provenance(e);
    }
    return ::testing::AssertionFailure() << e.name << " has no counter '" << counter
                                         << "' (counters: " << CounterKeys(e) << ")" << Provenance(e);
  }
  const std::string name = metrics::MetricId{"counters", "", counter}.VerdictName(e.name);
  return Budget(name, it->second.value, limit, name + " at most " + Fixed(limit) + FromCounters(e), Provenance(e),
                [&] { return internal::MoversForBudget(e, "counters/" + counter, name); });
}

::testing::AssertionResult DispatchesPerTokenAtMost(const EngineSummary& e, double budget) {
  if (auto f = RequireEngine(e)) return *f;
  if (const auto it = e.counters.find("dispatches_per_token"); it != e.counters.end()) {
    const std::string name = metrics::MetricId{"counters", "", "dispatches_per_token"}.VerdictName(e.name);
    return Budget(name, it->second.value, budget, e.name + " dispatches/token budget " + Fixed(budget) + FromCounters(e),
                  Provenance(e), [&] { return internal::MoversForBudget(e, "counters/dispatches_per_token", name); });
  }
  if (const auto it = e.extras.find("kernels_per_token"); it != e.extras.end()) {
    const std::string name = metrics::MetricId{"extras", "", "kernels_per_token"}.VerdictName(e.name);
    return Budget(name, it->second, budget,
                  e.name + " dispatches/token budget " + Fixed(budget) + " (from the trace: kernels per token)",
                  Provenance(e), [&] { return internal::MoversForBudget(e, "extras/kernels_per_token", name); });
  }
  if (const sources::TraceSource* s = sources::SourceOf(e); s != nullptr && s->descriptor.unit == sources::Unit::kSubmission) {
    return ::testing::AssertionFailure()
           << e.name << " dispatches/token budget " << Fixed(budget)
           << ": a Metal trace counts submissions (about one encoder each), not kernel dispatches, and " << e.name
           << " has no counter report with dispatches_per_token; " << kWhereCountersGo
           << " (or gate submissions with PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST)" << Provenance(e);
  }
  return ::testing::AssertionFailure() << e.name << " dispatches/token budget " << Fixed(budget)
                                       << ": no dispatch count: neither counters/dispatches_per_token nor "
                                          "extras/kernels_per_token; "
                                       << kWhereCountersGo << Provenance(e);
}

}  // namespace perfgate::testing
