// What a history says: each series with its change points, the movers of each change
// point (from the level tables stored with the runs on either side), and the history
// gate's verdict on the newest runs.
#ifndef PERFGATE_HISTORY_ANALYSIS_H_
#define PERFGATE_HISTORY_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "perfgate/core/environment.h"
#include "perfgate/core/status.h"
#include "perfgate/history/change_points.h"
#include "perfgate/history/store.h"

namespace perfgate::history {

// Which series to read; an empty field matches every value.
struct SeriesFilter {
  std::string suite;
  std::string test;
  std::string engine;
  std::vector<std::string> metrics;  // catalogue golden paths
};

// Whether `key` is one the filter selects.
bool Matches(const SeriesFilter& filter, const SeriesKey& key);

// The series the filter selects, their points uncounted (-1); history.unknown_series, listing the store's series,
// when it selects none (a misspelt metric must not read as "no change").
StatusOr<std::vector<SeriesInfo>> MatchingSeries(Store& store, const SeriesFilter& filter);

// A level-table row that moved across a change point: µs per token before (the runs
// before it) and after (the runs from it), medians over up to kMoverRuns runs a side.
struct Mover {
  std::string level;  // "buckets", "families", "phases", "kernels"
  std::string name;
  double us_before = 0;
  double us_after = 0;
  double calls_before = 0;
  double calls_after = 0;
  double DeltaUs() const { return us_after - us_before; }
};
inline constexpr int kMoverRuns = 5;

// A change point placed in the history: the runs on either side and what moved.
struct Change {
  ChangePoint point;
  Point last_before;  // the newest run before the change
  Point first_after;  // the first run of the new level
  bool worse = false;  // in the series' bad direction (either way, for a Worse::kBoth series)
  // "worse", "better", or "changed" where either way is bad (an exact count).
  std::string direction;
  std::vector<Mover> movers;  // by |Δ µs/token|, largest first, at most kMaxMovers
};
inline constexpr int kMaxMovers = 10;

// The `perfgate bisect` command that finds the commit of a change point: --good the
// newest commit before it, --bad the first after it, the series' engine and metric,
// and a placeholder for the record command. "" when either run names no commit, both
// name the same one, or the metric is a tok/s ratio or a baseline's speed, which no
// recording of the engine measures.
std::string BisectCommand(const SeriesKey& key, const Change& change);

struct SeriesHistory {
  SeriesInfo info;
  std::vector<Point> points;
  std::vector<Change> changes;
};

// Every series the filter matches with its change points (MatchingSeries' errors).
StatusOr<std::vector<SeriesHistory>> AnalyseHistory(Store& store, const SeriesFilter& filter,
                                                    const ChangePointOptions& options);

// The history gate's policy.
struct CheckPolicy {
  ChangePointOptions detector;
  // A change point among the newest `recent` runs is judged; older ones have been
  // judged by the checks that saw them open.
  int recent = 5;
  // The least |relative change| that fails (0.01 = 1 %); smaller change points are
  // reported and pass.
  double min_change = 0;
  // Fewer runs than this in a series: too short to judge.
  int min_runs = 8;
};

struct CheckFinding {
  SeriesKey key;
  Change change;
  bool fails = false;  // worse and at least min_change
};

struct CheckResult {
  std::vector<CheckFinding> findings;   // change points among the newest runs
  std::vector<SeriesInfo> too_short;    // series not judged, with their run counts
  int64_t series_judged = 0;
  bool pass() const;
};

// Whether the series too short to judge fail the check: under CI (CiVariable), unless
// `allow_short` or PERFGATE_ALLOW_SKIP=1 accepts them; never elsewhere.
bool ShortFails(const CheckResult& result, bool allow_short, const EnvLookup& env = ProcessEnv);

// Judges the newest runs of every series the filter matches. Reads only the newest
// detector.window + recent points of each series: the check's cost does not grow with
// the history.
StatusOr<CheckResult> CheckHistory(Store& store, const SeriesFilter& filter, const CheckPolicy& policy);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_ANALYSIS_H_
