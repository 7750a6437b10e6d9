#include "report/diff_tables.h"

#include <cmath>

#include "report/report_util.h"

namespace perfgate::report::diff_cells {
namespace {

using util::Fixed;
using util::Signed;

// µs: none from 1000 up, one from 10, two from 1, three below (a 0.4 µs kernel keeps
// its digits); calls: none from 100, one from 10, two below (1.00 call per token).
int UsDigits(double v) {
  const double a = std::abs(v);
  return a >= 1000 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}
int CallsDigits(double v) {
  const double a = std::abs(v);
  return a >= 100 ? 0 : a >= 10 ? 1 : 2;
}
}  // namespace

std::string UsNumber(double v) { return v == 0 ? "0" : Fixed(v, UsDigits(v)); }
std::string CallsNumber(double v) { return v == 0 ? "0" : Fixed(v, CallsDigits(v)); }

std::string Status(const diff::Change& c) {
  if (c.rest) return "rest";
  if (c.unchanged()) return "same";
  return diff::PresenceName(c.presence);
}

std::string Calls(const diff::Change& c) {
  if (c.rest) return "";
  return CallsNumber(c.before_calls) + " \xE2\x86\x92 " + CallsNumber(c.after_calls);
}

std::string Us(const diff::Change& c) { return UsNumber(c.before_us) + " \xE2\x86\x92 " + UsNumber(c.after_us); }

std::string DeltaUs(const diff::Change& c) {
  return c.delta_us() == 0 ? "0" : Signed(c.delta_us(), UsDigits(c.delta_us()));
}

std::string Share(const diff::Change& c) {
  if (!c.share) return "";
  return Fixed(100.0 * *c.share, 0) + " %";
}

std::string DeltaPerCall(const diff::Change& c) {
  const auto d = c.delta_us_per_call();
  return d ? Signed(*d, UsDigits(*d)) : "";
}

std::string P(const diff::Change& c) { return c.p_value ? util::PValue(*c.p_value) : ""; }

std::string Originals(const diff::Change& c) {
  std::vector<std::string> names = c.after_names;
  for (const std::string& n : c.before_names) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  if (names.empty() || (names.size() == 1 && names[0] == c.name)) return "";
  std::string out = "(as ";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

std::string LevelHeading(const diff::LevelDiff& level) {
  size_t added = 0, removed = 0, items = 0;
  for (const diff::Change& c : level.changes) {
    if (c.rest) continue;
    ++items;
    added += c.presence == diff::Presence::kAdded;
    removed += c.presence == diff::Presence::kRemoved;
  }
  return "by " + level.word + ": " + std::to_string(items) + " (" + std::to_string(added) + " added, " +
         std::to_string(removed) + " removed" + (level.calls_word == "calls" ? "" : "; calls are " + level.calls_word) + ")";
}

std::string TotalLine(const diff::Diff& d) {
  std::string out = "total GPU \xC2\xB5s/token " + UsNumber(d.before_total) + " \xE2\x86\x92 " + UsNumber(d.after_total) +
                    " (" + Signed(d.delta_total(), UsDigits(d.delta_total())) + ", " +
                    util::Percent(d.delta_total_pct());
  if (d.total_p_value) out += ", p " + util::PValue(*d.total_p_value);
  return out + ")";
}

std::string Figure(const diff::FigureChange& f) {
  std::string line = f.name + " " + Fixed(f.before, 2) + " \xE2\x86\x92 " + Fixed(f.after, 2) + " (" +
                     Signed(f.delta(), 2);
  if (f.p_value) line += ", p " + util::PValue(*f.p_value);
  return line + ")";
}

std::vector<std::string> NotCompared(const diff::Diff& d) {
  std::vector<std::string> out;
  for (const std::string& level : d.one_sided_levels) out.push_back("level " + level);
  out.insert(out.end(), d.one_sided_figures.begin(), d.one_sided_figures.end());
  return out;
}

std::string SidesLine(const diff::Diff& d) {
  return d.after + " against " + d.before + ": " + std::to_string(d.after_trials) + " vs " +
         std::to_string(d.before_trials) + " trials, per-token medians";
}

}  // namespace perfgate::report::diff_cells
