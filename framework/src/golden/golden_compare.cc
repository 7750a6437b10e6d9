// Comparing actual figures against a golden, value by value, with each value's
// policy, and the messages that explain every verdict by JSON pointer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include "golden/golden_internal.h"
#include "perfgate/golden/golden.h"

namespace perfgate::golden {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* SignFor(Direction dir) {
  switch (dir) {
    case Direction::kLowerIsBetter: return "+";
    case Direction::kHigherIsBetter: return "-";
    case Direction::kBoth: break;
  }
  return "\u00b1";  // ±
}

std::string Percent(double fraction) {
  return internal::FormatNumber(internal::RoundSignificant(fraction * 100, kSignificantDigits)) + " %";
}

// "+3 % or 20", "±20", "exact", "exact ±2": the limit the change is held to.
std::string ToleranceText(const FieldPolicy& p) {
  const std::string sign = SignFor(p.dir);
  if (p.kind == Kind::kExact) {
    if (p.abs == 0 && p.dir == Direction::kBoth) return "exact";
    return "exact " + sign + internal::FormatNumber(p.abs);
  }
  if (p.rel > 0 && p.abs > 0) return sign + Percent(p.rel) + " or " + internal::FormatNumber(p.abs);
  if (p.rel > 0) return sign + Percent(p.rel);
  return sign + internal::FormatNumber(p.abs);
}

std::string SignedNumber(double v) {
  if (std::isnan(v)) return "nan";
  return (v < 0 ? "-" : "+") + internal::FormatNumber(std::fabs(v));
}

std::string SignedPercent(double pct) {
  char buf[64];
  if (pct == 0 || std::fabs(pct) >= 0.1) {
    std::snprintf(buf, sizeof buf, "%+.1f %%", pct);
  } else {
    std::snprintf(buf, sizeof buf, "%+.1g %%", pct);
  }
  return buf;
}

FieldResult CompareOne(const std::string& name, const GoldenValue& g, double actual) {
  const FieldPolicy& p = g.policy;
  FieldResult r;
  r.name = name;
  r.pointer = JsonPointerFor(name);
  r.gated = p.gated;
  r.expected = g.value;
  r.actual = actual;
  r.delta = actual - g.value;
  if (g.value != 0 && std::isfinite(r.delta)) r.delta_pct = 100.0 * r.delta / std::fabs(g.value);
  r.tolerance_text = ToleranceText(p);

  const bool finite = std::isfinite(actual);
  r.within_tolerance = !gates::BeyondLimit(p, g.value, actual);
  r.ok = r.within_tolerance || !p.gated;

  std::string m = name + ": " + internal::FormatNumber(actual) + " vs golden " +
                  internal::FormatNumber(g.value) + " (";
  if (finite) {
    m += SignedNumber(r.delta);
    if (r.delta_pct) m += ", " + SignedPercent(*r.delta_pct);
    m += "; ";
  }
  m += "limit " + r.tolerance_text + ", " + ToString(p.dir) + "): ";
  if (!finite) m += "not a finite number";
  else m += r.within_tolerance ? "ok" : "out of tolerance";
  if (!p.gated) m += " (not gated" + (p.reason.empty() ? std::string() : ": " + p.reason) + ")";
  r.message = std::move(m);
  return r;
}

FieldResult Missing(const std::string& name, const GoldenValue& g) {
  FieldResult r;
  r.name = name;
  r.pointer = JsonPointerFor(name);
  r.ok = false;
  r.gated = g.policy.gated;
  r.within_tolerance = false;
  r.missing_in_actual = true;
  r.expected = g.value;
  r.actual = kNaN;
  r.delta = kNaN;
  r.tolerance_text = ToleranceText(g.policy);
  r.message = name + ": missing in actual (golden " + internal::FormatNumber(g.value) + ")";
  return r;
}

FieldResult New(const std::string& name, double actual, bool fail) {
  FieldResult r;
  r.name = name;
  r.pointer = JsonPointerFor(name);
  r.ok = !fail;
  r.new_in_actual = true;
  r.expected = kNaN;
  r.actual = actual;
  r.delta = kNaN;
  r.message = name + ": new in actual (" + internal::FormatNumber(actual) + "), not in golden";
  if (fail) r.message += "; new values are not allowed here";
  return r;
}

}  // namespace

CompareResult CompareToGolden(const GoldenFile& golden, const std::map<std::string, double>& actual,
                              const CompareOptions& options) {
  CompareResult out;
  auto g = golden.values.begin();
  auto a = actual.begin();
  // A merge over the two sorted maps keeps the fields in name order.
  while (g != golden.values.end() || a != actual.end()) {
    if (a == actual.end() || (g != golden.values.end() && g->first < a->first)) {
      out.fields.push_back(Missing(g->first, g->second));
      out.missing_in_actual.push_back(g->first);
      ++g;
    } else if (g == golden.values.end() || a->first < g->first) {
      out.fields.push_back(New(a->first, a->second, options.fail_on_new));
      out.new_in_actual.push_back(a->first);
      ++a;
    } else {
      out.fields.push_back(CompareOne(g->first, g->second, a->second));
      ++g;
      ++a;
    }
    if (!out.fields.back().ok) out.ok = false;
  }
  return out;
}

namespace {

// A golden path's scope and part: "phases/layer.attn/cbs_per_token" -> ("phases",
// "layer.attn"), "kernel_families/gemm" -> ("kernel_families", "gemm"); ("", "") for
// totals and extras, which have no parts.
std::pair<std::string, std::string> ScopeAndPart(const std::string& name) {
  const size_t first = name.find('/');
  if (first == std::string::npos) return {"", ""};
  const std::string scope = name.substr(0, first);
  if (scope == "kernel_families") return {scope, name.substr(first + 1)};
  const size_t last = name.rfind('/');
  if (last == first || scope == "extras") return {"", ""};
  return {scope, name.substr(first + 1, last - first - 1)};
}

std::string PartWord(const std::string& scope, const CompareOptions& options) {
  if (scope == "phases") return options.phase_word;
  if (scope == "families") return options.family_word;
  if (scope == "kernel_families") return "kernel family";
  if (scope == "buckets") return "bucket";
  return scope;
}

std::string Values(int n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

}  // namespace

std::vector<std::string> RootCauses(const CompareResult& compare, const CompareOptions& options) {
  // Per part: values only in the actual, only in the golden, and on both sides.
  struct Count {
    int new_values = 0, gone_values = 0, both = 0;
  };
  std::map<std::pair<std::string, std::string>, Count> parts;
  for (const FieldResult& f : compare.fields) {
    auto key = ScopeAndPart(f.name);
    if (key.first.empty()) continue;
    Count& c = parts[key];
    (f.new_in_actual ? c.new_values : f.missing_in_actual ? c.gone_values : c.both) += 1;
  }
  std::vector<std::string> out;
  std::set<std::pair<std::string, std::string>> explained;
  for (const auto& [key, c] : parts) {
    if (c.both > 0 || (c.new_values > 0 && c.gone_values > 0)) continue;
    const std::string what = PartWord(key.first, options) + " '" + key.second + "'";
    out.push_back(c.new_values > 0 ? "a new " + what + " (" + Values(c.new_values) + " not in the golden)"
                                   : what + " is gone (" + Values(c.gone_values) + " of the golden missing)");
    explained.insert(key);
  }
  for (const FieldResult& f : compare.fields) {
    if (!f.new_in_actual && !f.missing_in_actual) continue;
    if (explained.count(ScopeAndPart(f.name))) continue;  // said by its part above
    out.push_back(f.new_in_actual ? "a new metric '" + f.name + "' (not in the golden)"
                                  : "metric '" + f.name + "' is missing from the actual figures");
  }
  return out;
}

std::map<std::string, double> ValuesOf(const GoldenFile& file) {
  std::map<std::string, double> out;
  for (const auto& [name, v] : file.values) out.emplace(name, v.value);
  return out;
}

}  // namespace perfgate::golden
