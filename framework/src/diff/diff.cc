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

// The rank test where both sides have two or more trials.
std::optional<double> RankTest(const std::vector<double>& before, const std::vector<double>& after) {
  if (before.size() < 2 || after.size() < 2) return std::nullopt;
  return stats::MannWhitneyU(before, after).p_value;
}

// What the level's items leave of the total, per trial.
std::vector<double> RestOf(const Side& side, const LevelItems* level) {
  std::vector<double> rest = side.total_us_per_token;
  rest.resize(side.trials, 0);
  if (level == nullptr) return rest;
  for (const Item& item : level->items) {
    for (size_t i = 0; i < rest.size() && i < item.us_per_token.size(); ++i) rest[i] -= item.us_per_token[i];
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
  c.before_us = stats::Mean(before.us);
  c.after_us = stats::Mean(after.us);
  c.before_calls = stats::Mean(before.calls);
  c.after_calls = stats::Mean(after.calls);
  c.p_value = RankTest(before.us, after.us);
  return c;
}

// The "(rest)" change of a level, when either side leaves work out of it.
std::optional<Change> RestChange(Level level, const Side& before, const LevelItems* b, const Side& after,
                                 const LevelItems* a) {
  const std::vector<double> rb = RestOf(before, b), ra = RestOf(after, a);
  const double mb = stats::Mean(rb), ma = stats::Mean(ra);
  const double epsilon = std::max(1e-6, kRestEpsilonShare * std::max(std::abs(stats::Mean(before.total_us_per_token)),
                                                                      std::abs(stats::Mean(after.total_us_per_token))));
  if (std::abs(mb) < epsilon && std::abs(ma) < epsilon) return std::nullopt;
  Change c;
  c.level = level;
  c.name = kRestName;
  c.rest = true;
  c.before_us = mb;
  c.after_us = ma;
  c.p_value = RankTest(rb, ra);
  return c;
}

// |Δ µs/token| for ranking; a NaN Δ (a figure a hand-built report lacks) ranks last,
// which keeps the order a strict weak ordering.
double RankKey(const Change& c) {
  const double d = std::abs(c.delta_us());
  return std::isnan(d) ? -1 : d;
}

void Rank(std::vector<Change>* changes) {
  std::sort(changes->begin(), changes->end(), [](const Change& x, const Change& y) {
    const double dx = RankKey(x), dy = RankKey(y);
    if (dx != dy) return dx > dy;
    return x.name < y.name;
  });
}

LevelDiff DiffLevel(Level level, const Side& before, const LevelItems& b, const Side& after, const LevelItems& a,
                    double total_delta) {
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
  if (auto rest = RestChange(level, before, &b, after, &a)) out.changes.push_back(std::move(*rest));
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
    d->figures.push_back({name, stats::Mean(it->second), stats::Mean(values), RankTest(it->second, values)});
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

std::optional<double> Diff::delta_total_pct() const {
  if (before_total == 0) return std::nullopt;
  return 100.0 * delta_total() / std::abs(before_total);
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
  d.before_total = stats::Mean(before.total_us_per_token);
  d.after_total = stats::Mean(after.total_us_per_token);
  d.total_p_value = RankTest(before.total_us_per_token, after.total_us_per_token);
  CompareFigures(before, after, &d);
  d.notes = before.notes;
  d.notes.insert(d.notes.end(), after.notes.begin(), after.notes.end());
  for (Level level : kLevels) {
    const LevelItems* b = FindLevel(before, level);
    const LevelItems* a = FindLevel(after, level);
    if (b != nullptr && a != nullptr) {
      d.levels.push_back(DiffLevel(level, before, *b, after, *a, d.delta_total()));
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
