// The diff engine (diff.h): after minus before, level by level, ranked.
#include "perfgate/diff/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "perfgate/core/names.h"
#include "perfgate/stats/summary.h"

namespace perfgate::diff {
namespace {

constexpr const char* kLevelNames[] = {"bucket", "family", "phase", "kernel"};
constexpr Level kLevels[] = {Level::kBucket, Level::kFamily, Level::kPhase, Level::kKernel};
constexpr const char* kRestName = "(rest)";

// Below this share of the total (or 1e-6 µs per token) a "(rest)" is rounding, not
// work the level leaves out: goldens round every value to 6 significant digits.
constexpr double kRestEpsilonShare = 1e-5;

const LevelItems* FindLevel(const Side& side, Level level) {
  for (const LevelItems& l : side.levels) {
    if (l.level == level) return &l;
  }
  return nullptr;
}

std::optional<double> Ratio(double us, double calls) {
  if (!(calls > 0)) return std::nullopt;
  return us / calls;
}

// The rank test of the one comparison, shown where both sides have two or more trials
// (one trial a side says nothing).
std::optional<double> RankTest(const stats::Delta& d, const std::vector<double>& before,
                               const std::vector<double>& after) {
  if (before.size() < 2 || after.size() < 2) return std::nullopt;
  return d.p_value;
}

// What the level's items leave of the total, per trial; rounding (below `epsilon`) is
// 0, so that a level naming all the work has no per-trial rest for the rank test to
// rank.
std::vector<double> RestOf(const Side& side, const LevelItems& level, double epsilon) {
  std::vector<double> rest = side.total_us_per_token;
  rest.resize(side.trials, 0);
  for (const Item& item : level.items) {
    for (size_t i = 0; i < rest.size() && i < item.us_per_token.size(); ++i) rest[i] -= item.us_per_token[i];
  }
  for (double& r : rest) {
    if (std::abs(r) < epsilon) r = 0;
  }
  return rest;
}

// One side of one item: per-trial values (zeros where the side lacks it).
struct SideValues {
  const Item* item = nullptr;
  std::vector<double> us, calls;
};

SideValues ValuesOf(const Item* item, size_t trials) {
  SideValues v{item, std::vector<double>(trials, 0), std::vector<double>(trials, 0)};
  if (item != nullptr) {
    v.us = item->us_per_token;
    v.calls = item->calls_per_token;
  }
  return v;
}

Change ChangeOf(Level level, const std::string& name, const SideValues& before, const SideValues& after) {
  Change c;
  c.level = level;
  c.name = name;
  c.presence = before.item == nullptr ? Presence::kAdded : after.item == nullptr ? Presence::kRemoved : Presence::kBoth;
  if (before.item != nullptr) {
    c.before_names = before.item->originals;
    c.before_us_per_call_median = before.item->us_per_call_median;
  }
  if (after.item != nullptr) {
    c.after_names = after.item->originals;
    c.after_us_per_call_median = after.item->us_per_call_median;
  }
  const stats::Delta us = stats::CompareTrials(before.us, after.us);
  const stats::Delta calls = stats::CompareTrials(before.calls, after.calls);
  c.before_us = us.before;
  c.after_us = us.after;
  c.before_calls = calls.before;
  c.after_calls = calls.after;
  c.p_value = RankTest(us, before.us, after.us);
  return c;
}

// The "(rest)" change of a level: the total's medians less the sum of the level's items'
// medians, on each side. It holds the work the level does not name (unlabelled work,
// memcpy and memset) and, since medians do not add up, the difference between the
// median of the sums and the sum of the medians; so the level's rows add up to the
// total, on each side and in Δ (docs/cli.md, "What a diff is"). None when it is
// rounding on both sides. Its p is the rank test of the per-trial rests (the total
// less the items, trial by trial).
std::optional<Change> RestChange(Level level, const Side& before, const Side& after, const Diff& d,
                                 const std::vector<Change>& items, const LevelItems& b, const LevelItems& a) {
  double before_us = d.before_total, after_us = d.after_total;
  for (const Change& c : items) {
    before_us -= c.before_us;
    after_us -= c.after_us;
  }
  const double epsilon =
      std::max(1e-6, kRestEpsilonShare * std::max(std::abs(d.before_total), std::abs(d.after_total)));
  if (std::abs(before_us) < epsilon && std::abs(after_us) < epsilon) return std::nullopt;
  Change c;
  c.level = level;
  c.name = kRestName;
  c.rest = true;
  c.before_us = before_us;
  c.after_us = after_us;
  const std::vector<double> rb = RestOf(before, b, epsilon), ra = RestOf(after, a, epsilon);
  c.p_value = RankTest(stats::CompareTrials(rb, ra), rb, ra);
  return c;
}

// |Δ µs/token| for ranking; a NaN Δ (a figure a hand-built report lacks) ranks last,
// which keeps the order a strict weak ordering.
double RankKey(const Change& c) {
  const double d = std::abs(c.delta_us());
  return std::isnan(d) ? -1 : d;
}

// By |Δ µs/token|, then by name; "(rest)" last whatever its size: it names no place to
// look, and with few trials it can hold as much of the medians' leftover as a real change.
void Rank(std::vector<Change>* changes) {
  std::sort(changes->begin(), changes->end(), [](const Change& x, const Change& y) {
    if (x.rest != y.rest) return y.rest;
    const double dx = RankKey(x), dy = RankKey(y);
    if (dx != dy) return dx > dy;
    return x.name < y.name;
  });
}

LevelDiff DiffLevel(Level level, const Side& before, const LevelItems& b, const Side& after, const LevelItems& a,
                    const Diff& d) {
  std::map<std::string, std::pair<const Item*, const Item*>> by_name;
  for (const Item& item : b.items) by_name[item.name].first = &item;
  for (const Item& item : a.items) by_name[item.name].second = &item;
  LevelDiff out{level, a.word, a.calls_word, {}};
  for (const auto& [name, items] : by_name) {
    out.changes.push_back(
        ChangeOf(level, name, ValuesOf(items.first, before.trials), ValuesOf(items.second, after.trials)));
  }
  const bool totals = !before.total_us_per_token.empty() && !after.total_us_per_token.empty();
  if (!totals) {
    Rank(&out.changes);
    return out;  // nothing to share out, nothing left over
  }
  if (auto rest = RestChange(level, before, after, d, out.changes, b, a)) out.changes.push_back(std::move(*rest));
  const double total_delta = d.delta_total();
  for (Change& c : out.changes) {
    if (total_delta != 0 && std::isfinite(total_delta) && std::isfinite(c.delta_us())) c.share = c.delta_us() / total_delta;
  }
  Rank(&out.changes);
  return out;
}

// The per-token figures both sides have; those of one side only are said.
void CompareFigures(const Side& before, const Side& after, Diff* d) {
  for (const auto& [name, values] : after.figures) {
    auto it = before.figures.find(name);
    if (it == before.figures.end()) {
      d->one_sided_figures.push_back(name + " (only " + after.name + " has it)");
      continue;
    }
    const stats::Delta f = stats::CompareTrials(it->second, values);
    d->figures.push_back({name, f.before, f.after, RankTest(f, it->second, values)});
  }
  for (const auto& [name, _] : before.figures) {
    if (!after.figures.count(name)) d->one_sided_figures.push_back(name + " (only " + before.name + " has it)");
  }
}

}  // namespace

const char* LevelName(Level level) { return kLevelNames[static_cast<int>(level)]; }

StatusOr<Level> LevelFromName(std::string_view name) {
  for (Level level : kLevels) {
    if (name == LevelName(level)) return level;
  }
  return Status::Error("diff.unknown_level", "unknown level '" + std::string(name) + "' (levels: " +
                                                 ListNames(std::vector<std::string>(std::begin(kLevelNames), std::end(kLevelNames))) + ")",
                       {}, ErrorKind::kUsage);
}

const char* PresenceName(Presence presence) {
  switch (presence) {
    case Presence::kAdded: return "added";
    case Presence::kRemoved: return "removed";
    case Presence::kBoth: break;
  }
  return "changed";
}

std::optional<double> Change::before_us_per_call() const { return Ratio(before_us, before_calls); }
std::optional<double> Change::after_us_per_call() const { return Ratio(after_us, after_calls); }
std::optional<double> Change::delta_us_per_call() const {
  const auto b = before_us_per_call(), a = after_us_per_call();
  if (!b || !a) return std::nullopt;
  return *a - *b;
}
std::optional<double> Change::delta_us_per_call_median() const {
  if (!before_us_per_call_median || !after_us_per_call_median) return std::nullopt;
  return *after_us_per_call_median - *before_us_per_call_median;
}

// As stats::CompareTrials words Δ % (Compute's totals are its medians; a hand-built
// Diff has only the totals).
std::optional<double> Diff::delta_total_pct() const {
  if (before_total == 0) return std::nullopt;
  return delta_total() / std::abs(before_total) * 100.0;
}

const LevelDiff* Diff::Find(Level level) const {
  for (const LevelDiff& l : levels) {
    if (l.level == level) return &l;
  }
  return nullptr;
}

Diff Compute(const Side& before, const Side& after) {
  Diff d;
  d.before = before.name;
  d.after = after.name;
  d.before_paths = before.paths;
  d.after_paths = after.paths;
  d.before_trials = before.trials;
  d.after_trials = after.trials;
  const stats::Delta total = stats::CompareTrials(before.total_us_per_token, after.total_us_per_token);
  d.before_total = total.before;
  d.after_total = total.after;
  d.total_p_value = RankTest(total, before.total_us_per_token, after.total_us_per_token);
  CompareFigures(before, after, &d);
  d.notes = before.notes;
  d.notes.insert(d.notes.end(), after.notes.begin(), after.notes.end());
  for (Level level : kLevels) {
    const LevelItems* b = FindLevel(before, level);
    const LevelItems* a = FindLevel(after, level);
    if (b != nullptr && a != nullptr) {
      // Two sources count calls in their own units: a Metal submission is no kernel.
      if (b->calls_word != a->calls_word) {
        d.notes.push_back(std::string(LevelName(level)) + ": " + before.name + " counts " + b->calls_word + ", " +
                          after.name + " " + a->calls_word + ": its calls per token are not one unit");
      }
      d.levels.push_back(DiffLevel(level, before, *b, after, *a, d));
    } else if (b != nullptr || a != nullptr) {
      d.one_sided_levels.push_back(std::string(LevelName(level)) + " (only " + (b != nullptr ? before.name : after.name) +
                                   " has it)");
    }
  }
  return d;
}

std::vector<Change> TopMovers(const LevelDiff& level, size_t n) {
  std::vector<Change> top(level.changes.begin(), level.changes.begin() + std::min(n, level.changes.size()));
  return top;
}

}  // namespace perfgate::diff
