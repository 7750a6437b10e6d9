// Assertions on per-kernel timing reports (perfgate/gtest/kernel_report.h).
#include "perfgate/gtest/kernel_report.h"

#include <cmath>

#include "gtest/assertions_internal.h"
#include "perfgate/core/names.h"
#include "perfgate/gates/judge.h"
#include "perfgate/metrics/catalogue.h"

namespace perfgate::testing {
namespace {

using kernel_report::Comparison;
using kernel_report::KernelReport;
using kernel_report::Row;

constexpr const char* kMediansOnly =
    " (medians only: a threshold comparison of the reports' medians, no per-trial samples, no rank test)";

std::string Provenance(const KernelReport& r) { return "\n  " + r.name + ": per-kernel report " + r.path; }

std::string Known(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const Row& r : rows) names.push_back(r.name);
  return ListNames(names);
}

const Row* FindRow(const std::vector<Row>& rows, const std::string& name, bool by_own_names) {
  for (const Row& r : rows) {
    if (r.name == name) return &r;
  }
  if (!by_own_names) return nullptr;
  for (const Row& r : rows) {
    for (const auto* side : {&r.engine.names, &r.baseline.names}) {
      for (const std::string& own : *side) {
        if (own == name) return &r;
      }
    }
  }
  return nullptr;
}

// What a Δ assertion holds the engine to: µs/token, or a single kernel's µs/call.
enum class Quantity { kUsPerToken, kUsPerCall };

// The engine's figure of a row held to the baseline's plus `allowance`.
gates::LimitVerdict DeltaVerdict(const std::string& metric, double engine, double baseline, double allowance) {
  return gates::JudgeLimit(metric, engine, {}, baseline + allowance,
                           gates::Policy::Noisy(0, 0, gates::Direction::kLowerIsBetter));
}
gates::LimitVerdict DeltaVerdict(const std::string& metric, const Row& row, double allowance) {
  return DeltaVerdict(metric, row.engine.us_per_token, row.baseline.us_per_token, allowance);
}

::testing::AssertionResult DeltaAtMost(const KernelReport& engine, const KernelReport& baseline,
                                       const std::string& name, bool family, double max, bool percent,
                                       Quantity quantity = Quantity::kUsPerToken) {
  const Comparison c = kernel_report::Compare(engine, baseline);
  const std::vector<Row>& rows = family ? c.families : c.kernels;
  const Row* row = FindRow(rows, name, !family);
  const std::string prov = Provenance(engine) + Provenance(baseline);
  if (row == nullptr) {
    return ::testing::AssertionFailure() << "no " << (family ? "kernel family" : "kernel") << " '" << name << "' in "
                                         << engine.name << " or " << baseline.name << " ("
                                         << (family ? "families: " : "kernels: ") << Known(rows) << ")" << prov;
  }
  const bool per_call = quantity == Quantity::kUsPerCall;
  if (per_call && (!row->engine.us_per_call || !row->baseline.us_per_call)) {
    return ::testing::AssertionFailure() << "kernel " << row->name << " has no single us_per_call_median on both sides"
                                         << " (engine: " << ListNames(row->engine.names)
                                         << "; baseline: " << ListNames(row->baseline.names)
                                         << "): the reports hold no median of merged kernels' calls" << prov;
  }
  const double e = per_call ? *row->engine.us_per_call : row->engine.us_per_token;
  const double b = per_call ? *row->baseline.us_per_call : row->baseline.us_per_token;
  const double allowance = percent ? std::fabs(b) * max / 100.0 : max;
  const std::string q = per_call ? "us_per_call_median" : "us_per_token";
  const metrics::MetricId id{family ? "families" : "kernels", row->name, q};
  const gates::LimitVerdict v = DeltaVerdict(id.VerdictName(engine.name), e, b, allowance);
  const std::string what = engine.name + " vs " + baseline.name + " " + (family ? "family " : "kernel ") + row->name +
                           ": Δ " + (per_call ? "µs/call" : "µs/token") + " at most " + internal::Fixed(max) +
                           (percent ? " %" : " µs") + kMediansOnly;
  return internal::Outcome(v.pass, {v.verdict}, what, prov, [&] {
    return internal::MoversOfReports(engine, baseline, id.GoldenPath(), v.verdict.metric);
  });
}

}  // namespace

::testing::AssertionResult KernelFamilyDeltaAtMostUs(const KernelReport& engine, const KernelReport& baseline,
                                                     const std::string& family, double max_us) {
  return DeltaAtMost(engine, baseline, family, true, max_us, false);
}

::testing::AssertionResult KernelFamilyDeltaAtMostPercent(const KernelReport& engine, const KernelReport& baseline,
                                                          const std::string& family, double max_pct) {
  return DeltaAtMost(engine, baseline, family, true, max_pct, true);
}

::testing::AssertionResult KernelDeltaAtMostUs(const KernelReport& engine, const KernelReport& baseline,
                                               const std::string& kernel, double max_us) {
  return DeltaAtMost(engine, baseline, kernel, false, max_us, false);
}

::testing::AssertionResult KernelDeltaAtMostPercent(const KernelReport& engine, const KernelReport& baseline,
                                                    const std::string& kernel, double max_pct) {
  return DeltaAtMost(engine, baseline, kernel, false, max_pct, true);
}

::testing::AssertionResult KernelPerCallDeltaAtMostPercent(const KernelReport& engine, const KernelReport& baseline,
                                                           const std::string& kernel, double max_pct) {
  return DeltaAtMost(engine, baseline, kernel, false, max_pct, true, Quantity::kUsPerCall);
}

::testing::AssertionResult KernelAttackTargetIs(const KernelReport& engine, const KernelReport& baseline,
                                                const std::string& family) {
  const Comparison c = kernel_report::Compare(engine, baseline);
  const Row* expected = FindRow(c.families, family, false);
  if (expected == nullptr) {
    return ::testing::AssertionFailure() << "no kernel family '" << family << "' in " << engine.name << " or "
                                         << baseline.name << " (families: " << Known(c.families) << ")"
                                         << Provenance(engine) << Provenance(baseline);
  }
  const std::string what = engine.name + " vs " + baseline.name + ": attack target " +
                           c.attack_target.value_or("none (no family's Δ µs/token > 0)") + ", expected " + family +
                           kMediansOnly;
  // Each row: the family's engine µs/token against the baseline's (Δ > 0 regresses).
  std::vector<gates::MetricVerdict> rows;
  for (const Row* r : {c.families.empty() ? nullptr : &c.families.front(), expected}) {
    if (r == nullptr || (!rows.empty() && r == &c.families.front())) continue;
    rows.push_back(DeltaVerdict(metrics::MetricId{"families", r->name, "us_per_token"}.VerdictName(engine.name), *r, 0)
                       .verdict);
  }
  return internal::Outcome(c.attack_target == family, rows, what, Provenance(engine) + Provenance(baseline), [&] {
    return internal::MoversOfReports(engine, baseline, "families/" + family + "/us_per_token",
                                     metrics::MetricId{"families", family, "us_per_token"}.VerdictName(engine.name));
  });
}

::testing::AssertionResult KernelFamilyShareAtLeast(const KernelReport& report, const std::string& family,
                                                    double min_pct) {
  const std::vector<Row> families = kernel_report::FamiliesOf(report);
  const Row* row = FindRow(families, family, false);
  if (row == nullptr) {
    return ::testing::AssertionFailure() << "no kernel family '" << family << "' in " << report.name
                                         << " (families: " << Known(families) << ")" << Provenance(report);
  }
  double total = 0;
  for (const Row& r : families) total += r.engine.us_per_token;
  const double share = total > 0 ? 100 * row->engine.us_per_token / total : 0;
  const gates::LimitVerdict v =
      gates::JudgeLimit(metrics::MetricId{"families", family, "share_pct"}.VerdictName(report.name), share, {},
                        min_pct, gates::Policy::Noisy(0, 0, gates::Direction::kHigherIsBetter));
  const std::string what = report.name + " family " + family + ": at least " + internal::Fixed(min_pct) +
                           " % of the report's µs/token" + kMediansOnly;
  return internal::Outcome(v.pass, {v.verdict}, what, Provenance(report));
}

}  // namespace perfgate::testing
