// Private: what the assertion files share, so every assertion records, judges and
// prints a failure the same way.
#ifndef PERFGATE_SRC_GTEST_ASSERTIONS_INTERNAL_H_
#define PERFGATE_SRC_GTEST_ASSERTIONS_INTERNAL_H_

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/attribution/summary.h"
#include "perfgate/gates/verdict.h"
#include "perfgate/golden/golden.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/suite/suite.h"

namespace perfgate::testing::internal {

// A number for messages: 4 significant digits.
std::string Fixed(double v);

// The shortest text that reads back as exactly `value`: machine-readable output is
// lossless (gtest would print 17 digits, Fixed() only 4).
std::string RoundTrip(double value);

// Records a figure in the gtest output (XML / JSON), losslessly; outside a test, nothing.
void Record(const std::string& key, double value);

// A summary without trials is no engine: a typo'd name, or a recording never loaded.
// Every assertion fails on it rather than comparing zeros.
std::optional<::testing::AssertionResult> RequireEngine(const attribution::EngineSummary& e);

// The recordings an engine summary came from, for failure messages.
std::string Provenance(const attribution::EngineSummary& e);

// The movers section of a failure, computed only when it fails.
using MoversText = std::function<std::string()>;

// Records each row's current and reference values; on failure, `what`, the verdict
// table with its legend, each row's explanation, the movers and the provenance.
::testing::AssertionResult Outcome(bool pass, const std::vector<gates::MetricVerdict>& rows, const std::string& what,
                                   const std::string& provenance, const MoversText& movers = nullptr);

// A budget: the median at most `limit`, judged by the one judge (gates::JudgeLimit),
// shown as a one-row verdict table with the limit in its "budget" column.
::testing::AssertionResult Budget(const std::string& metric, const attribution::TrialMedian& current, double limit,
                                  const std::string& what, const std::string& provenance,
                                  const MoversText& movers = nullptr);

// --- movers (movers.cc) -----------------------------------------------------------

// Set by PerfSuiteFixture::SetUp: the running test's suite, whose goldens and
// baseline explain its budgets.
void SetRunningSuite(const SuiteData* data, const std::string& golden_dir);

// The movers of `engine` against `reference` (a baseline), headed by what explains
// the failing figure `golden_path` (metrics::MetricId), named `verdict_name`.
std::string MoversAgainst(const attribution::EngineSummary& engine, const attribution::EngineSummary& reference,
                          const std::string& golden_path, const std::string& verdict_name);

// The movers of one per-kernel timing report against another.
std::string MoversOfReports(const kernel_report::KernelReport& engine, const kernel_report::KernelReport& baseline,
                            const std::string& golden_path, const std::string& verdict_name);

// A budget's movers: against the engine's golden in the running suite's golden
// directory (the last accepted figures), else against the suite's baseline (or, for
// the baseline, its first other engine); "" outside a suite.
std::string MoversForBudget(const attribution::EngineSummary& engine, const std::string& golden_path,
                            const std::string& verdict_name);

// A golden check's movers: the engine's figures against the golden file's, headed
// by what explains its first failing field (the first in µs per token, if any).
std::string MoversAgainstGolden(const attribution::EngineSummary& engine, const std::string& golden_file,
                                const golden::CompareResult& compared);

}  // namespace perfgate::testing::internal

#endif  // PERFGATE_SRC_GTEST_ASSERTIONS_INTERNAL_H_
