// The attribution report's bar charts (report/attribute_sections.h, drawn in SVG only):
// with a baseline the Δ charts per bucket, per phase and per kernel name (the attack
// target highlighted), then µs/token per bucket, phase and kernel name, engine beside
// baseline. Kernel names are cut to what fits left of the plot and numbered where two
// would read alike, the numbered ones whole in the chart's key.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/attribute_sections.h"

namespace perfgate::report::sections {
namespace {

using attribution::Delta;
using document::BarChart;
using document::Document;

// 34 characters of sm80_xmma_gemm_… overran the chart's 250 px of labels at 12 px.
constexpr size_t kKernelLabelChars = 32;

// A category's value on each side (one value without a baseline).
struct Category {
  std::string name;
  double engine = 0;
  double baseline = 0;
};

// "+9.2 µs/tok (+255.6%), p 0.008": what one Δ bar says beside it.
std::string DeltaNote(const Delta& d) {
  return util::Signed(d.delta, 1) + " µs/tok (" + util::Percent(d.delta_pct) + "), p " + util::PValue(d.p_value);
}

BarChart DeltaChart(const Context& c, std::string title, const std::vector<Delta>& rows) {
  BarChart chart{std::move(title), "", "Δ µs per decode token, " + c.engine + " − " + c.baseline, {}, true, {}, {}};
  const std::optional<std::string>& target = c.report.comparison->attack_target;
  for (const Delta& d : rows) chart.rows.push_back({d.name, {d.delta}, DeltaNote(d), target && *target == d.name});
  return chart;
}

BarChart GroupedChart(const Context& c, std::string title, std::vector<Category> rows) {
  BarChart chart{std::move(title), "", "µs per decode token", {c.engine + " (engine)"}, false, {}, {}};
  const bool two = c.sides.baseline != nullptr;
  if (two) chart.series.push_back(c.baseline + " (baseline)");
  for (Category& r : rows) {
    chart.rows.push_back({r.name, two ? std::vector<double>{r.engine, r.baseline} : std::vector<double>{r.engine}, "",
                          false});
  }
  return chart;
}

// The largest `n` by the larger side.
std::vector<Category> Top(std::vector<Category> rows, size_t n) {
  std::stable_sort(rows.begin(), rows.end(), [](const Category& a, const Category& b) {
    return std::max(a.engine, a.baseline) > std::max(b.engine, b.baseline);
  });
  if (rows.size() > n) rows.resize(n);
  return rows;
}

// What tells apart the numbered kernel names among `whole`: each whole, "#1: name"
// (the key wraps a long one).
std::vector<std::string> NumberedKey(const std::vector<std::string>& whole, const util::KernelLabels& labels) {
  std::vector<std::string> key;
  for (const auto& [label, compact] : util::NumberedKernelNames(whole, labels)) key.push_back(label + ": " + compact);
  return key;
}

// The kernel-name charts: Δ (with a baseline) and µs/token, names as labelled.
void KernelCharts(const Context& c, std::vector<BarChart>& deltas,
                  std::vector<BarChart>& grouped) {
  const util::KernelLabels labels = util::KernelDisplayNames({c.sides.engine, c.sides.baseline}, kKernelLabelChars);
  std::vector<Category> names;
  if (c.sides.baseline != nullptr) {
    for (const Delta& d : c.report.comparison->kernels) names.push_back({d.name, d.engine, d.baseline});
    std::vector<Delta> shown = util::KernelDeltasShown(c.report.comparison->kernels, kTopRows);
    std::vector<std::string> whole;
    for (Delta& d : shown) whole.push_back(d.name), d.name = labels.at(d.name);
    if (!shown.empty()) {
      deltas.push_back(DeltaChart(c, "Δ GPU µs/token by kernel name (top " + std::to_string(kTopRows) + " by |Δ|)", shown));
      deltas.back().key = NumberedKey(whole, labels);
    }
  } else {
    for (const auto& [name, k] : c.sides.engine->kernels) names.push_back({name, k.gpu_us_per_token.median, 0});
  }
  names = Top(std::move(names), kTopRows);
  if (names.empty()) return;  // sources that name no kernel (Metal): the tables say why
  std::vector<std::string> whole;
  for (Category& n : names) whole.push_back(n.name), n.name = labels.at(n.name);
  grouped.push_back(GroupedChart(c, "GPU µs/token by kernel name (top " + std::to_string(kTopRows) + ")",
                                 std::move(names)));
  grouped.back().key = NumberedKey(whole, labels);
}

}  // namespace

void Charts(const Context& c, Document& d) {
  const sources::SourceWords& words = util::WordsOf(c.report);
  const std::string bucket_title = "by " + std::string(words.unit) + "-duration bucket";
  const std::string phase_title = "by " + std::string(words.phase);
  const std::string top = " (top " + std::to_string(kTopRows) + ")";
  std::vector<Category> buckets, phases;
  std::vector<BarChart> deltas, grouped;
  if (c.sides.baseline != nullptr) {
    const attribution::Comparison& cmp = *c.report.comparison;
    for (const Delta& x : cmp.buckets) buckets.push_back({x.name, x.engine, x.baseline});
    for (const Delta& x : cmp.phases) phases.push_back({x.name, x.engine, x.baseline});
    deltas.push_back(DeltaChart(c, "Δ GPU µs/token " + bucket_title + ": " + c.engine + " − " + c.baseline, cmp.buckets));
    std::vector<Delta> by_change = cmp.phases;
    std::stable_sort(by_change.begin(), by_change.end(),
                     [](const Delta& a, const Delta& b) { return std::fabs(a.delta) > std::fabs(b.delta); });
    if (by_change.size() > kTopRows) by_change.resize(kTopRows);
    if (!by_change.empty()) {
      deltas.push_back(DeltaChart(c, "Δ GPU µs/token " + phase_title + " (top " + std::to_string(kTopRows) + " by |Δ|)",
                                  by_change));
    }
  } else {
    for (const auto& [name, b] : c.sides.engine->buckets) buckets.push_back({name, b.us_per_token.median, 0});
    for (const auto& [name, p] : c.sides.engine->phases) phases.push_back({name, p.gpu_us_per_token.median, 0});
  }
  grouped.push_back(GroupedChart(c, "GPU µs/token " + bucket_title, buckets));
  if (!phases.empty()) grouped.push_back(GroupedChart(c, "GPU µs/token " + phase_title + top, Top(phases, kTopRows)));
  KernelCharts(c, deltas, grouped);
  BarChart& first = deltas.empty() ? grouped.front() : deltas.front();
  first.note = "Medians over trials. " + std::string(words.dispatch_note);
  for (BarChart& chart : deltas) d.blocks.push_back(std::move(chart));
  for (BarChart& chart : grouped) d.blocks.push_back(std::move(chart));
}

}  // namespace perfgate::report::sections
