// Per-kernel timing reports as catalogue metrics (perfgate/kernel_report/metrics.h).
#include "perfgate/kernel_report/metrics.h"

#include "perfgate/core/names.h"
#include "perfgate/kernel_report/compare.h"

namespace perfgate::kernel_report {
namespace {

using gates::Direction;
using gates::Policy;

Policy CallsPolicy() { return Policy::Exact(0.01); }
Policy CountPolicy() { return Policy::Exact(0); }
Policy PartTimePolicy() { return Policy::Noisy(0.10, 20, Direction::kLowerIsBetter); }
Policy OtherTimePolicy() { return Policy::Noisy(0.10, 0, Direction::kLowerIsBetter); }

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A kernel field's policy by what it holds: calls, counts, µs per token, other times.
Policy FigurePolicy(const std::string& field) {
  if (field.rfind("calls_per_token", 0) == 0) return CallsPolicy();
  if (field == "total_calls" || field == "samples_recorded") return CountPolicy();
  if (field.rfind("us_per_token", 0) == 0) return PartTimePolicy();
  if (EndsWith(field, "_ns") || field.rfind("us_", 0) == 0) return OtherTimePolicy();
  return CountPolicy();  // a field perfgate does not know: any change is a finding
}

struct Builder {
  std::vector<metrics::Metric> out;
  void Add(std::string scope, std::string part, std::string quantity, Number n, Policy policy) {
    out.push_back(metrics::Metric{{std::move(scope), std::move(part), std::move(quantity)},
                                  attribution::TrialMedian{n.value, {}}, std::move(policy), n.is_integer});
  }
};

// The report's totals: its kernels' medians summed (a sum of medians, not a median).
void AddTotals(const KernelReport& r, Builder* b) {
  double us = 0, calls = 0;
  for (const Kernel& k : r.kernels) {
    us += k.us_per_token();
    calls += k.calls_per_token();
  }
  b->Add("", "", "us_per_token", {us, false}, Policy::Noisy(0.05, 20, Direction::kLowerIsBetter));
  b->Add("", "", "calls_per_token", {calls, false}, CallsPolicy());
  b->Add("", "", "kernels", {static_cast<double>(r.kernels.size()), true}, CountPolicy());
  for (const auto& [key, n] : r.numbers) {
    if (key == "wall_clock_tok_per_sec_median") b->Add("", "", key, n, Policy::Noisy(0.05, 0, Direction::kHigherIsBetter));
    if (key == "wall_clock_ms_per_token_median") b->Add("", "", key, n, Policy::Noisy(0.05, 0, Direction::kLowerIsBetter));
  }
}

}  // namespace

std::vector<metrics::Metric> MetricsOf(const KernelReport& report) {
  Builder b;
  AddTotals(report, &b);
  for (const Row& f : FamiliesOf(report)) {
    b.Add("families", f.name, "us_per_token", {f.engine.us_per_token, false}, PartTimePolicy());
    b.Add("families", f.name, "calls_per_token", {f.engine.calls_per_token, false}, CallsPolicy());
    b.Add("families", f.name, "kernels", {static_cast<double>(f.engine.names.size()), true}, CountPolicy());
  }
  for (const Kernel& k : report.kernels) {
    for (const auto& [field, n] : k.figures) b.Add("kernels", k.name, field, n, FigurePolicy(field));
  }
  return std::move(b.out);
}

StatusOr<metrics::Metric> FindMetric(const KernelReport& report, const std::string& golden_path) {
  auto id = metrics::MetricId::FromGoldenPath(golden_path);
  if (!id.ok()) return id.status();
  std::vector<std::string> same_scope;
  for (metrics::Metric& m : MetricsOf(report)) {
    if (m.id == *id) return m;
    if (m.id.scope == id->scope) same_scope.push_back(m.id.GoldenPath());
  }
  return Status::Error("metric.unknown",
                       "report '" + report.name + "' has no metric '" + golden_path + "' (" +
                           (id->scope.empty() ? "totals" : id->scope) + ": " + ListNames(same_scope) + ")",
                       {}, ErrorKind::kUsage);
}

golden::GoldenFile ReportGolden(const KernelReport& report, std::map<std::string, std::string> context) {
  golden::GoldenFile g;
  g.context = std::move(context);
  for (const auto& [key, value] : report.metadata) g.context.emplace("report/" + key, value);
  g.context["engine"] = report.name;
  g.context["source"] = "kernel_report (medians only, no per-trial samples)";
  for (const metrics::Metric& m : MetricsOf(report)) {
    golden::GoldenValue v;
    v.value = m.value.median;
    v.policy = m.policy;
    v.is_integer = m.is_integer;
    g.values[m.id.GoldenPath()] = std::move(v);
  }
  return g;
}

}  // namespace perfgate::kernel_report
