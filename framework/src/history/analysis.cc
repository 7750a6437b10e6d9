// Reading a history: series, their change points, the movers of each, and the history
// gate on the newest runs.
#include "perfgate/history/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/string_util.h"
#include "perfgate/core/process.h"

namespace perfgate::history {
namespace {

std::string Describe(const SeriesKey& key) { return key.suite + "/" + key.test + " " + key.engine + " " + key.metric; }

bool IsWorse(Worse worse, double magnitude) {
  switch (worse) {
    case Worse::kUp: return magnitude > 0;
    case Worse::kDown: return magnitude < 0;
    case Worse::kBoth: return magnitude != 0;
  }
  return true;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Per (level, name): the µs and calls per token of each run read.
struct LevelSide {
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<double>, std::vector<double>>> rows;
};

StatusOr<LevelSide> ReadLevels(Store& store, const std::string& engine, const std::vector<Point>& points,
                               size_t first, size_t last) {
  LevelSide side;
  for (size_t i = first; i < last; ++i) {
    PERFGATE_ASSIGN_OR_RETURN(std::vector<LevelRow> levels, store.ReadLevels(points[i].run_id));
    for (const LevelRow& row : levels) {
      if (row.engine != engine) continue;
      auto& [us, calls] = side.rows[{row.level, row.name}];
      us.push_back(row.us_per_token);
      calls.push_back(row.calls_per_token);
    }
  }
  return side;
}

// The level rows whose µs per token differ most between the runs before a change
// point and the runs from it; a row one side lacks is 0 there.
StatusOr<std::vector<Mover>> MoversAt(Store& store, const std::string& engine, const std::vector<Point>& points,
                                      size_t index) {
  const size_t k = kMoverRuns;
  PERFGATE_ASSIGN_OR_RETURN(LevelSide before, ReadLevels(store, engine, points, index > k ? index - k : 0, index));
  PERFGATE_ASSIGN_OR_RETURN(LevelSide after, ReadLevels(store, engine, points, index, std::min(points.size(), index + k)));
  std::map<std::pair<std::string, std::string>, Mover> movers;
  for (const auto& [id, values] : before.rows) {
    Mover& m = movers[id];
    m.us_before = Median(values.first);
    m.calls_before = Median(values.second);
  }
  for (const auto& [id, values] : after.rows) {
    Mover& m = movers[id];
    m.us_after = Median(values.first);
    m.calls_after = Median(values.second);
  }
  std::vector<Mover> out;
  for (auto& [id, m] : movers) {
    m.level = id.first;
    m.name = id.second;
    if (m.DeltaUs() != 0 || m.calls_after != m.calls_before) out.push_back(m);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Mover& a, const Mover& b) { return std::fabs(a.DeltaUs()) > std::fabs(b.DeltaUs()); });
  if (out.size() > static_cast<size_t>(kMaxMovers)) out.resize(kMaxMovers);
  return out;
}

std::vector<double> Medians(const std::vector<Point>& points) {
  std::vector<double> out;
  out.reserve(points.size());
  for (const Point& p : points) out.push_back(p.median);
  return out;
}

StatusOr<Change> PlaceChange(Store& store, const SeriesInfo& info, const std::vector<Point>& points,
                             const ChangePoint& cp) {
  Change change;
  change.point = cp;
  const auto index = static_cast<size_t>(cp.index);
  change.last_before = points[index - 1];
  change.first_after = points[index];
  change.worse = IsWorse(info.worse, cp.Magnitude());
  change.direction = info.worse == Worse::kBoth ? "changed" : (change.worse ? "worse" : "better");
  PERFGATE_ASSIGN_OR_RETURN(change.movers, MoversAt(store, info.key.engine, points, index));
  return change;
}

}  // namespace

bool Matches(const SeriesFilter& filter, const SeriesKey& key) {
  auto same = [](const std::string& want, const std::string& have) { return want.empty() || want == have; };
  if (!same(filter.suite, key.suite) || !same(filter.test, key.test) || !same(filter.engine, key.engine)) {
    return false;
  }
  return filter.metrics.empty() ||
         std::find(filter.metrics.begin(), filter.metrics.end(), key.metric) != filter.metrics.end();
}

StatusOr<std::vector<SeriesInfo>> MatchingSeries(Store& store, const SeriesFilter& filter) {
  PERFGATE_ASSIGN_OR_RETURN(std::vector<SeriesInfo> all, store.ListSeriesKeys());
  std::vector<SeriesInfo> out;
  for (const SeriesInfo& s : all) {
    if (Matches(filter, s.key)) out.push_back(s);
  }
  if (!out.empty()) return out;
  std::string known;
  for (size_t i = 0; i < all.size() && i < 20; ++i) known += (i ? ", " : "") + Describe(all[i].key);
  if (all.size() > 20) known += ", ... (" + std::to_string(all.size()) + " in all)";
  return Status::Error("history.unknown_series",
                       store.Location() + " holds no series matching the filter; it holds: " +
                           (known.empty() ? "none (no run yet)" : known),
                       {}, ErrorKind::kUsage);
}

StatusOr<std::vector<SeriesHistory>> AnalyseHistory(Store& store, const SeriesFilter& filter,
                                                    const ChangePointOptions& options) {
  PERFGATE_ASSIGN_OR_RETURN(std::vector<SeriesInfo> matching, MatchingSeries(store, filter));
  std::vector<SeriesHistory> out;
  for (const SeriesInfo& info : matching) {
    SeriesHistory series{info, {}, {}};
    PERFGATE_ASSIGN_OR_RETURN(series.points, store.Points(info.key));
    series.info.points = static_cast<int64_t>(series.points.size());
    for (const ChangePoint& cp : FindChangePoints(Medians(series.points), options)) {
      PERFGATE_ASSIGN_OR_RETURN(Change change, PlaceChange(store, info, series.points, cp));
      series.changes.push_back(std::move(change));
    }
    out.push_back(std::move(series));
  }
  return out;
}

bool CheckResult::pass() const {
  return std::none_of(findings.begin(), findings.end(), [](const CheckFinding& f) { return f.fails; });
}

bool ShortFails(const CheckResult& result, bool allow_short, const EnvLookup& env) {
  if (result.too_short.empty() || allow_short) return false;
  return CiVariable(env).has_value() && !EnvTruthy(env("PERFGATE_ALLOW_SKIP"));
}

StatusOr<CheckResult> CheckHistory(Store& store, const SeriesFilter& filter, const CheckPolicy& policy) {
  PERFGATE_ASSIGN_OR_RETURN(std::vector<SeriesInfo> matching, MatchingSeries(store, filter));
  CheckResult result;
  const int64_t tail = 2 * int64_t{policy.detector.window} + policy.recent;
  for (SeriesInfo info : matching) {
    PERFGATE_ASSIGN_OR_RETURN(std::vector<Point> points, store.Points(info.key, std::max<int64_t>(tail, policy.min_runs)));
    if (static_cast<int64_t>(points.size()) < policy.min_runs) {
      info.points = static_cast<int64_t>(points.size());  // the whole series: fewer than the tail
      result.too_short.push_back(info);
      continue;
    }
    ++result.series_judged;
    const int64_t from = std::max<int64_t>(1, static_cast<int64_t>(points.size()) - policy.recent);
    for (const ChangePoint& cp : FindChangePointsSince(Medians(points), from, policy.detector)) {
      CheckFinding finding{info.key, {}, false};
      PERFGATE_ASSIGN_OR_RETURN(finding.change, PlaceChange(store, info, points, cp));
      finding.fails = finding.change.worse && std::fabs(cp.Magnitude()) >= policy.min_change;
      result.findings.push_back(std::move(finding));
    }
  }
  return result;
}

std::string BisectCommand(const SeriesKey& key, const Change& change) {
  if (change.last_before.commit.empty() || change.first_after.commit.empty()) return "";
  // Runs of one commit: no commit to find. A ratio to a baseline, or the baseline's own
  // speed: no recording of the engine's commits measures it.
  if (change.last_before.commit == change.first_after.commit) return "";
  if (StartsWith(key.metric, "toks/") && (EndsWith(key.metric, "/ratio") || EndsWith(key.metric, "/baseline_ts"))) {
    return "";
  }
  return "perfgate bisect --good " + ShellQuote(change.last_before.commit) + " --bad " +
         ShellQuote(change.first_after.commit) + " --engine " + ShellQuote(key.engine) + " --metric " +
         ShellQuote(key.metric) + " --record 'COMMAND WRITING A RECORDING TO $PERFGATE_BISECT_OUT'";
}

}  // namespace perfgate::history
