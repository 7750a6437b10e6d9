// Engine against baseline on per-kernel timing reports (perfgate/kernel_report/compare.h).
#include "perfgate/kernel_report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/lossless_json.h"
#include "core/text_cells.h"

namespace perfgate::kernel_report {
namespace {

void AddTo(Side* side, const Kernel& k) {
  side->names.push_back(k.name);
  side->us_per_token += k.us_per_token();
  side->calls_per_token += k.calls_per_token();
  side->us_per_call.reset();
  // An nsys stats report without a median column has no us_per_call_median.
  if (side->names.size() == 1 && k.figures.count("us_per_call_median")) side->us_per_call = k.figure("us_per_call_median");
}

using RowKey = std::string (*)(const Kernel&);
std::string ByMatch(const Kernel& k) { return k.matched; }
std::string ByFamily(const Kernel& k) { return k.family; }

std::map<std::string, Row> Rows(const KernelReport* engine, const KernelReport* baseline, RowKey key,
                                bool family_rows) {
  std::map<std::string, Row> rows;
  for (const KernelReport* r : {engine, baseline}) {
    if (r == nullptr) continue;
    for (const Kernel& k : r->kernels) {
      Row& row = rows[key(k)];
      row.name = key(k);
      if (row.family.empty()) row.family = family_rows ? row.name : k.family;
      AddTo(r == engine ? &row.engine : &row.baseline, k);
    }
  }
  return rows;
}

std::vector<Row> SortedByDelta(std::map<std::string, Row> rows) {
  std::vector<Row> out;
  for (auto& [_, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(),
                   [](const Row& a, const Row& b) { return a.delta_us_per_token() > b.delta_us_per_token(); });
  return out;
}

Row TotalOf(const KernelReport* engine, const KernelReport* baseline) {
  Row total;
  total.name = "TOTAL";
  for (const KernelReport* r : {engine, baseline}) {
    if (r == nullptr) continue;
    for (const Kernel& k : r->kernels) AddTo(r == engine ? &total.engine : &total.baseline, k);
  }
  return total;
}

std::string AttackHint(const Row& family, const std::vector<Row>& kernels) {
  if (!family.baseline.present()) {
    return "the baseline has no " + family.name +
           " family (families are matched by name): the engine's own dispatches";
  }
  std::string hint = "the engine's costliest " + family.name + " kernels:";
  int shown = 0;
  for (const Row& k : kernels) {  // kernels are sorted by Δ, so the biggest gaps come first
    if (k.family != family.name || !k.engine.present() || shown == 3) continue;
    hint += std::string(shown++ == 0 ? " " : ", ") + k.name + " (Δ " + text::Fixed(k.delta_us_per_token(), 2) + " µs/tok)";
  }
  return hint;
}

// The dispatches a report's timer left untimed, by its own account; 0 when it says none.
int64_t UntimedDispatches(const KernelReport& r) {
  const auto it = r.metadata.find("instrumentation_notes/overflow_count");
  if (it == r.metadata.end()) return 0;
  char* end = nullptr;
  const long long n = std::strtoll(it->second.c_str(), &end, 10);
  return end != it->second.c_str() && n > 0 ? n : 0;
}

// What the engine would spend more per token doing the baseline's calls, per family:
// (engine − baseline µs/call) × baseline calls/token over kernels with one original on
// each side. Dropped samples leave per-call medians standing, unlike per-token sums.
void ChooseAttackTargetPerCall(Comparison* c) {
  std::map<std::string, double> gap;
  std::map<std::string, std::pair<std::string, double>> largest;  // family -> kernel, its gap
  for (const Row& k : c->kernels) {
    if (!k.engine.us_per_call || !k.baseline.us_per_call) continue;
    const double g = (*k.engine.us_per_call - *k.baseline.us_per_call) * k.baseline.calls_per_token;
    gap[k.family] += g;
    if (!largest.count(k.family) || g > largest[k.family].second) largest[k.family] = {k.name, g};
  }
  c->attack_basis = "per call";
  auto best = std::max_element(gap.begin(), gap.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best == gap.end() || best->second <= 0) return;
  c->attack_target = best->first;
  const int64_t untimed = std::max(c->engine_untimed, c->baseline_untimed);
  c->attack_hint = "chosen per call (a report left " + std::to_string(untimed) +
                   " dispatches untimed, so its per-token figures undercount): at the baseline's calls per token the "
                   "engine's " + best->first + " kernels cost " + text::Signed(best->second, 2) +
                   " µs/tok more, most in " + largest[best->first].first + " (" +
                   text::Signed(largest[best->first].second, 2) + " µs/tok)";
}

std::vector<std::string> OneSide(const std::vector<Row>& rows, bool engine) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    if ((engine ? r.engine : r.baseline).present() && !(engine ? r.baseline : r.engine).present()) out.push_back(r.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<double> Row::delta_pct() const {
  if (baseline.us_per_token == 0) return std::nullopt;
  return 100 * delta_us_per_token() / std::fabs(baseline.us_per_token);
}

std::vector<std::string> Comparison::engine_only() const { return OneSide(kernels, true); }
std::vector<std::string> Comparison::baseline_only() const { return OneSide(kernels, false); }

std::vector<Row> FamiliesOf(const KernelReport& report) {
  return SortedByDelta(Rows(&report, nullptr, ByFamily, true));
}

Comparison Compare(const KernelReport& engine, const KernelReport& baseline) {
  Comparison c;
  c.engine = engine.name;
  c.baseline = baseline.name;
  c.kernels = SortedByDelta(Rows(&engine, &baseline, ByMatch, false));
  c.families = SortedByDelta(Rows(&engine, &baseline, ByFamily, true));
  c.total = TotalOf(&engine, &baseline);
  c.engine_untimed = UntimedDispatches(engine);
  c.baseline_untimed = UntimedDispatches(baseline);
  if (c.undercounted()) {
    ChooseAttackTargetPerCall(&c);
  } else if (!c.families.empty() && c.families.front().delta_us_per_token() > 0) {
    c.attack_target = c.families.front().name;
    c.attack_hint = AttackHint(c.families.front(), c.kernels);
  }
  return c;
}

}  // namespace perfgate::kernel_report
