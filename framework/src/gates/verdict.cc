#include "perfgate/gates/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <numeric>
#include <utility>

#include "gates/gates_internal.h"
#include "gates/statistics.h"
#include "perfgate/stats/summary.h"

namespace perfgate::gates {
namespace {

using internal::BadwardDelta;
using internal::FormatValue;
using internal::Spread;
using stats::AllFinite;
using stats::FiniteOnly;

// Power the trial counts must have had at the minimum effect before p > alpha may be
// called SAME, and the power the more-trials estimate aims for.
constexpr double kTargetPower = 0.80;
// Asymptotic relative efficiency of Mann-Whitney U against the t-test for normal data.
constexpr double kMannWhitneyEfficiency = 3.0 / 3.14159265358979323846;

// Standard normal upper tail P(Z > z).
double NormalUpperTail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The z with P(Z > z) = q, for q in (0, 1), by bisection (accurate to ~1e-12).
double NormalUpperQuantile(double q) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    (NormalUpperTail(mid) > q ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Sum of squared deviations from the mean.
double SumSquares(const std::vector<double>& v) {
  double mean = stats::Mean(v), ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss;
}

// Pooled standard deviation of the two samples around their own means; nullopt when
// neither side has two values (no spread can be measured).
std::optional<double> PooledSd(const std::vector<double>& a, const std::vector<double>& b) {
  size_t df = (a.size() > 0 ? a.size() - 1 : 0) + (b.size() > 0 ? b.size() - 1 : 0);
  if (df == 0) return std::nullopt;
  return std::sqrt((SumSquares(a) + SumSquares(b)) / static_cast<double>(df));
}

bool Reachable(int n_b, int n_c, double alpha) {
  return stats::MinimumAttainablePValue(n_b, n_c) <= alpha;
}

// Approximate power of the two-sided test at level alpha to detect a shift `effect`
// with n_b and n_c trials and per-trial standard deviation `sd`.
double Power(double effect, double sd, int n_b, int n_c, double alpha) {
  if (!Reachable(n_b, n_c, alpha)) return 0;
  if (effect <= 0) return alpha / 2;
  if (sd <= 0) return 1;
  double se = sd * std::sqrt(1.0 / n_b + 1.0 / n_c) / std::sqrt(kMannWhitneyEfficiency);
  return NormalUpperTail(NormalUpperQuantile(alpha / 2) - effect / se);
}

// Extra trials per side (1..kMoreTrialsCap, or kMoreTrialsCap + 1) until alpha is
// reachable and, when `effect` is set, the power for it reaches kTargetPower.
int MoreTrials(int n_b, int n_c, double alpha, std::optional<double> effect,
               std::optional<double> sd) {
  for (int k = 1; k <= kMoreTrialsCap; ++k) {
    if (!Reachable(n_b + k, n_c + k, alpha)) continue;
    if (!effect || !sd) return k;  // without a measured spread, plan for alpha only
    if (Power(*effect, *sd, n_b + k, n_c + k, alpha) >= kTargetPower) return k;
  }
  return kMoreTrialsCap + 1;
}

std::string Printf(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string FormatPct(double pct) { return Printf("%+.1f %%", pct); }

std::string FormatP(double p) { return p >= 0.001 ? Printf("%.3f", p) : Printf("%.2g", p); }

std::string FormatMoreTrials(int k) {
  if (k > kMoreTrialsCap) return "more than " + std::to_string(kMoreTrialsCap) + " more trials per side";
  return "about " + std::to_string(k) + (k == 1 ? " more trial" : " more trials") + " per side";
}

// Rewrites "[  SKIPPED ]", which the SKIP_REGULAR_EXPRESSION of gtest_discover_tests
// matches anywhere in captured output to turn the whole test into a skip.
std::string DefuseSkipMarker(std::string text) {
  const std::string marker = std::string("[  SKIP") + "PED ]";
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    text.replace(at, marker.size(), "[ SKIPPED ]");
  }
  return text;
}

// Makes text safe for one line of CTest-captured output: no line breaks, no skip marker.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return DefuseSkipMarker(std::move(text));
}

// Fills the descriptive fields shared by both metric classes from the one comparison
// `d` of the trials (stats::CompareTrials). Medians and spreads skip non-finite values
// (NaN breaks the ordering sorts rely on); the counts include them.
MetricVerdict Describe(std::string metric, const std::vector<double>& baseline, const std::vector<double>& current,
                       const stats::Delta& d) {
  MetricVerdict r;
  r.metric = std::move(metric);
  r.n_baseline = static_cast<int>(baseline.size());
  r.n_current = static_cast<int>(current.size());
  r.baseline = d.before;
  r.current = d.after;
  r.delta = d.delta;
  r.delta_pct = d.delta_pct;
  r.baseline_spread = Spread(FiniteOnly(baseline));
  r.current_spread = Spread(FiniteOnly(current));
  return r;
}

// "<metric> <current> vs <baseline> (<Δ>, limit <±x>, " up to the p-value.
std::string ExplanationHead(const MetricVerdict& r, Direction direction) {
  std::string s = r.metric + " " + FormatValue(r.current) + " vs " + FormatValue(r.baseline) + " (";
  const char* sign = direction == Direction::kBoth ? "±" : direction == Direction::kLowerIsBetter ? "+" : "-";
  if (r.delta_pct) {
    s += FormatPct(*r.delta_pct) + ", limit " + sign + Printf("%.1f %%", 100 * r.threshold / std::fabs(r.baseline));
  } else {
    s += Printf("%+.6g", r.delta) + ", limit " + sign + FormatValue(r.threshold);
  }
  return s;
}

std::string NString(const MetricVerdict& r) {
  return "n " + std::to_string(r.n_baseline) + " vs " + std::to_string(r.n_current);
}

void Finish(MetricVerdict& r, Verdict verdict, const std::string& head, const std::string& reason) {
  r.verdict = verdict;
  std::string line = head + "): " + std::string(VerdictName(verdict));
  if (!reason.empty()) line += " (" + reason + ")";
  r.explanation = OneLine(std::move(line));
}

// The noisy judgement given the p-value to compare with alpha (raw or Holm-adjusted)
// and the alpha to plan reachability and power with (alpha / m in a family of m).
MetricVerdict JudgeNoisyWithP(std::string metric, const std::vector<double>& baseline,
                              const std::vector<double>& current, const NoisyPolicy& policy,
                              std::optional<double> p_override, double planning_alpha) {
  const stats::Delta compared = stats::CompareTrials(baseline, current);
  MetricVerdict r = Describe(std::move(metric), baseline, current, compared);
  r.direction = policy.direction;
  const double alpha = policy.alpha;
  r.threshold = std::max(policy.min_rel_effect * std::fabs(r.baseline), policy.min_abs_effect);
  r.min_attainable_p = stats::MinimumAttainablePValue(r.n_baseline, r.n_current);

  // Fail closed on anything the statistics cannot speak to.
  std::string invalid;
  if (!(alpha > 0 && alpha < 1)) invalid = "invalid policy: alpha must be in (0, 1)";
  else if (!(policy.min_rel_effect >= 0) || !(policy.min_abs_effect >= 0) ||
           !std::isfinite(policy.min_rel_effect) || !std::isfinite(policy.min_abs_effect))
    invalid = "invalid policy: minimum effects must be finite and >= 0";
  else if (baseline.empty() || current.empty())
    invalid = baseline.empty() ? "no baseline trials" : "no current trials";
  else if (!AllFinite(baseline) || !AllFinite(current))
    invalid = "a trial value is not finite";
  if (!invalid.empty()) {
    // More trials help only when a side is empty; a bad policy or value needs fixing.
    if (baseline.empty() || current.empty()) {
      r.more_trials_needed = MoreTrials(r.n_baseline, r.n_current, planning_alpha, std::nullopt, std::nullopt);
    }
    Finish(r, Verdict::kInconclusive,
           r.metric + " " + FormatValue(r.current) + " vs " + FormatValue(r.baseline) + " (" + NString(r), invalid);
    return r;
  }

  const double p = p_override.value_or(compared.p_value);
  r.p_value = p;
  if (p_override && *p_override != compared.p_value) r.raw_p_value = compared.p_value;

  const double bad = BadwardDelta(r.delta, policy.direction);
  // A change of the medians of at least the minimum effect (and not none at all, which
  // matters only for a zero minimum effect).
  const bool big = r.delta != 0 && std::fabs(r.delta) >= r.threshold;
  const std::optional<double> sd = PooledSd(baseline, current);

  std::string head = ExplanationHead(r, policy.direction) + ", p = " + FormatP(p);
  if (r.raw_p_value) head += " (Holm; raw " + FormatP(*r.raw_p_value) + ")";
  head += ", " + NString(r);
  const std::string alpha_text = Printf("%.3g", planning_alpha);

  // Too few trials: the test can never reject, so neither "same" nor a change may be
  // claimed, whatever the medians say.
  if (!Reachable(r.n_baseline, r.n_current, planning_alpha)) {
    std::optional<double> effect;
    if (big) effect = std::fabs(r.delta);
    r.more_trials_needed = MoreTrials(r.n_baseline, r.n_current, planning_alpha, effect, sd);
    Finish(r, Verdict::kInconclusive, head,
           NString(r) + " cannot reach alpha = " + alpha_text + " (smallest possible p = " +
               FormatP(*r.min_attainable_p) + "), so no verdict, not even same; " +
               FormatMoreTrials(r.more_trials_needed));
    return r;
  }
  if (!big) {
    Finish(r, Verdict::kSame, head, "change below the minimum effect " + FormatValue(r.threshold));
    return r;
  }
  if (p <= alpha) {
    Finish(r, bad > 0 ? Verdict::kRegressed : Verdict::kImproved, head, "");
    return r;
  }
  const double power = sd ? Power(r.threshold, *sd, r.n_baseline, r.n_current, planning_alpha) : 0;
  const std::string power_text = Printf("%.0f %%", 100 * power);
  if (power >= kTargetPower) {
    Finish(r, Verdict::kSame, head,
           "not significant, with " + power_text + " power to detect the minimum effect " +
               FormatValue(r.threshold));
    return r;
  }
  r.more_trials_needed = MoreTrials(r.n_baseline, r.n_current, planning_alpha, std::fabs(r.delta), sd);
  Finish(r, Verdict::kInconclusive, head,
         "not significant, but only " + power_text + " power to detect the minimum effect " +
             FormatValue(r.threshold) + " at the measured spread; " + FormatMoreTrials(r.more_trials_needed));
  return r;
}

// Display width of UTF-8 text: code points, not bytes (for "Δ").
size_t Width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame: return "same";
    case Verdict::kRegressed: return "regressed";
    case Verdict::kImproved: return "improved";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "inconclusive";
}

std::string VerdictWord(const MetricVerdict& v) {
  if (!v.limit_check) return std::string(VerdictName(v.verdict));
  if (v.verdict != Verdict::kRegressed) return "within";
  return v.gated ? "regressed" : "regressed (ungated)";
}

MetricVerdict JudgeNoisy(std::string metric, const std::vector<double>& baseline,
                         const std::vector<double>& current, const NoisyPolicy& policy) {
  return JudgeNoisyWithP(std::move(metric), baseline, current, policy, std::nullopt, policy.alpha);
}

MetricVerdict JudgeExact(std::string metric, const std::vector<double>& baseline,
                         const std::vector<double>& current, const ExactPolicy& policy) {
  MetricVerdict r = Describe(std::move(metric), baseline, current, stats::CompareTrials(baseline, current));
  r.direction = policy.direction;
  r.threshold = policy.tolerance;
  std::string head = r.metric + " " + FormatValue(r.current) + " vs " + FormatValue(r.baseline) + " (";
  if (baseline.empty() || current.empty() || !AllFinite(baseline) || !AllFinite(current) ||
      !(policy.tolerance >= 0) || !std::isfinite(policy.tolerance)) {
    std::string why = baseline.empty()  ? "no baseline trials"
                      : current.empty() ? "no current trials"
                      : !(policy.tolerance >= 0) || !std::isfinite(policy.tolerance)
                          ? "invalid policy: tolerance must be finite and >= 0"
                          : "a trial value is not finite";
    Finish(r, Verdict::kInconclusive, head + "exact, " + NString(r), why);
    return r;
  }
  head += r.delta_pct ? FormatPct(*r.delta_pct) : Printf("%+.6g", r.delta);
  head += ", exact";
  if (policy.tolerance > 0) head += " within " + FormatValue(policy.tolerance);
  head += ", " + NString(r);

  std::string reason;
  auto describe_spread = [](const char* side, const std::vector<double>& v) {
    auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return std::string(side) + " " + FormatValue(*lo) + ".." + FormatValue(*hi);
  };
  if (r.baseline_spread > 0 || r.current_spread > 0) {
    reason = "per-trial values differ: ";
    if (r.baseline_spread > 0) reason += describe_spread("baseline", baseline);
    if (r.baseline_spread > 0 && r.current_spread > 0) reason += ", ";
    if (r.current_spread > 0) reason += describe_spread("current", current);
    reason += "; the decode window should be deterministic";
  }
  Verdict v = Verdict::kSame;
  if (std::fabs(r.delta) > policy.tolerance) {
    v = BadwardDelta(r.delta, policy.direction) > 0 ? Verdict::kRegressed : Verdict::kImproved;
  }
  Finish(r, v, head, reason);
  return r;
}

std::vector<double> HolmAdjust(const std::vector<double>& p_values) {
  const size_t m = p_values.size();
  std::vector<double> p(m);
  for (size_t i = 0; i < m; ++i) p[i] = std::isnan(p_values[i]) ? 1.0 : std::clamp(p_values[i], 0.0, 1.0);
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t rank = 0; rank < m; ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - rank) * p[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

std::vector<MetricVerdict> JudgeNoisyFamily(const std::vector<NoisyMetric>& metrics) {
  std::vector<double> raw;
  for (const NoisyMetric& m : metrics) {
    // Empty or non-finite samples are judged inconclusive below; CompareTrials gives
    // them p = 1.
    raw.push_back(stats::CompareTrials(m.baseline, m.current).p_value);
  }
  const std::vector<double> adjusted = HolmAdjust(raw);
  const double m = static_cast<double>(std::max<size_t>(1, metrics.size()));
  std::vector<MetricVerdict> out;
  for (size_t i = 0; i < metrics.size(); ++i) {
    const NoisyMetric& metric = metrics[i];
    out.push_back(JudgeNoisyWithP(metric.metric, metric.baseline, metric.current, metric.policy,
                                  adjusted[i], metric.policy.alpha / m));
  }
  return out;
}

int NextTrialCount(int current_per_side) {
  return std::max(2 * std::max(current_per_side, 0), kRecommendedTrialsPerSide);
}

int MinimumTrialsPerSide(double alpha) {
  if (!(alpha > 0 && alpha < 1)) return 0;
  int n = 1;
  while (!Reachable(n, n, alpha)) ++n;
  return n;
}

namespace {

const char* SignOf(Direction direction) {
  return direction == Direction::kBoth ? "±" : direction == Direction::kLowerIsBetter ? "+" : "-";
}

// The rank test's minimum effect is a size either way; limits and exact tolerances
// have a bad direction, shown by their sign.
std::string ToleranceCell(const MetricVerdict& v) {
  const bool min_effect = v.p_value && !v.limit_check;
  return (min_effect ? "" : SignOf(v.direction)) + FormatValue(v.threshold);
}

std::string PCell(const MetricVerdict& v) {
  if (v.p_value) return FormatP(*v.p_value);
  return v.limit_check ? "-" : "exact";
}

std::string NCell(const MetricVerdict& v) {
  return std::to_string(v.n_baseline) + " vs " + std::to_string(v.n_current);
}

// The reference column's name: the rows' common word, or every word met, in order.
std::string ReferenceHeader(const std::vector<MetricVerdict>& verdicts) {
  std::vector<std::string> words;
  for (const MetricVerdict& v : verdicts) {
    if (std::find(words.begin(), words.end(), v.reference) == words.end()) words.push_back(v.reference);
  }
  if (words.empty()) return "baseline";
  std::string out = words.front();
  for (size_t i = 1; i < words.size(); ++i) out += "/" + words[i];
  return out;
}

void AddOnce(std::vector<std::string>* parts, const std::string& part) {
  if (std::find(parts->begin(), parts->end(), part) == parts->end()) parts->push_back(part);
}

std::string Joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

}  // namespace

std::string VerdictLegend(const std::vector<MetricVerdict>& verdicts) {
  if (verdicts.empty()) return "legend: no metrics";
  std::vector<std::string> references, tolerances, tests;
  for (const MetricVerdict& v : verdicts) {
    const std::string& ref = v.reference;
    AddOnce(&references, ref == "budget"  ? "budget = the most the median may be"
                         : ref == "limit" ? "limit = the value the median is held to"
                                          : ref + " = median of the " + ref + "'s trials");
    if (v.limit_check) {
      AddOnce(&tolerances, "how far past the " + ref + " still passes (+ above, - below, ± either way)");
    } else if (v.p_value) {
      AddOnce(&tolerances, "minimum effect max(rel · |baseline|, floor) (timings)");
    } else {
      AddOnce(&tolerances, "largest |Δ| still same (exact counts)");
    }
    if (v.p_value) AddOnce(&tests, "two-sided Mann-Whitney U over per-trial values");
    else if (v.limit_check) AddOnce(&tests, "- = no trials behind the " + ref + ", no test");
    else AddOnce(&tests, "exact = a count, no test");
  }
  const MetricVerdict& first = verdicts.front();
  return OneLine("legend: " + Joined(references, ", ") + "; Δ = current - " + ReferenceHeader(verdicts) +
                 "; tolerance: " + Joined(tolerances, ", ") + "; p-value: " + Joined(tests, ", ") + "; n " +
                 NCell(first) + " = " + first.reference + " vs current trials");
}

std::string FormatVerdictTable(const std::vector<MetricVerdict>& verdicts) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"metric", ReferenceHeader(verdicts), "current", "Δ", "Δ%", "tolerance", "p-value", "n", "verdict"});
  for (const MetricVerdict& v : verdicts) {
    rows.push_back({OneLine(v.metric), FormatValue(v.baseline), FormatValue(v.current), Printf("%+.6g", v.delta),
                    v.delta_pct ? Printf("%+.1f%%", *v.delta_pct) : "-", ToleranceCell(v), PCell(v), NCell(v),
                    VerdictWord(v)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], Width(row[c]));
  }
  // Text columns (metric, verdict) align left, numbers right.
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - Width(row[c]), ' ');
      const bool left = c == 0 || c + 1 == row.size();
      if (c > 0) line += "  ";
      line += left ? row[c] + pad : pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!verdicts.empty()) out += VerdictLegend(verdicts) + "\n";
  return DefuseSkipMarker(std::move(out));
}

}  // namespace perfgate::gates
