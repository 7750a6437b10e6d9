// The results store: where runs are appended and series read back. Two back ends
// behind one interface: SQLite (a file path, the default) and PostgreSQL (a
// postgresql:// URL, for CI runners sharing one history).
#ifndef PERFGATE_HISTORY_STORE_H_
#define PERFGATE_HISTORY_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/history/run.h"

namespace perfgate::history {

// The schema version this perfgate writes. A store of an older version is migrated
// forward on open; a newer one is refused (history.future_schema).
inline constexpr int kSchemaVersion = 1;

// One series: a figure of one engine in one suite's test, over runs.
struct SeriesKey {
  std::string suite;
  std::string test;
  std::string engine;
  std::string metric;
  bool operator<(const SeriesKey& o) const;
  bool operator==(const SeriesKey& o) const;
};

struct SeriesInfo {
  SeriesKey key;
  Worse worse = Worse::kBoth;
  int64_t points = 0;
};

// One run's value of a series.
struct Point {
  int64_t run_id = 0;
  std::string time;
  std::string commit;
  std::string branch;
  double median = 0;
  std::vector<double> samples;
};

class Store {
 public:
  virtual ~Store() = default;
  // Appends `run` whole, in one transaction, and returns its id; a run whose key the
  // store holds already is not written again (its id is returned). Nothing of a run
  // that fails is kept.
  virtual StatusOr<int64_t> Append(const Run& run) = 0;
  // Every series, ordered by key, with its number of points.
  virtual StatusOr<std::vector<SeriesInfo>> ListSeries() = 0;
  // The same without counting points (points is -1): what a check reads, whose cost must
  // not grow with the history.
  virtual StatusOr<std::vector<SeriesInfo>> ListSeriesKeys();
  // A series' points, oldest first; only the newest `last` when last > 0.
  virtual StatusOr<std::vector<Point>> Points(const SeriesKey& key, int64_t last = 0) = 0;
  // A whole run: context, figures and level tables; history.unknown_run for an id
  // the store does not hold.
  virtual StatusOr<Run> ReadRun(int64_t id) = 0;
  // A run's level tables alone (what the movers of a change point read), ordered by
  // engine, level and name; history.unknown_run for an id the store does not hold.
  virtual StatusOr<std::vector<LevelRow>> ReadLevels(int64_t id);
  // The number of runs held.
  virtual StatusOr<int64_t> RunCount() = 0;
  // The store's location with any password left out.
  virtual std::string Location() const = 0;
};

// Opens (creating or migrating it when needed) the store at `location`: a
// postgresql:// or postgres:// URL, else an SQLite file path. Errors:
// history.bad_location, history.unreachable (cannot open or connect),
// history.future_schema, history.read_only.
StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& location);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_STORE_H_
