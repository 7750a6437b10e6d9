// OpenStore: which back end a location names.
#include <tuple>

#include "history/sqlite_store.h"
#include "perfgate/history/store.h"
#ifdef PERFGATE_HAVE_POSTGRESQL
#include "history/postgres_store.h"
#endif

namespace perfgate::history {

bool SeriesKey::operator<(const SeriesKey& o) const {
  return std::tie(suite, test, engine, metric) < std::tie(o.suite, o.test, o.engine, o.metric);
}

bool SeriesKey::operator==(const SeriesKey& o) const {
  return std::tie(suite, test, engine, metric) == std::tie(o.suite, o.test, o.engine, o.metric);
}

StatusOr<std::vector<SeriesInfo>> Store::ListSeriesKeys() { return ListSeries(); }

StatusOr<std::vector<LevelRow>> Store::ReadLevels(int64_t id) {
  PERFGATE_ASSIGN_OR_RETURN(Run run, ReadRun(id));
  return std::move(run.levels);
}

namespace {

bool IsPostgresUrl(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& location) {
  if (location.empty()) {
    return Status::Error("history.bad_location", "no store given: an SQLite file path or a postgresql:// URL",
                         {}, ErrorKind::kUsage);
  }
  if (IsPostgresUrl(location)) {
#ifdef PERFGATE_HAVE_POSTGRESQL
    return OpenPostgresStore(location);
#else
    return Status::Error("history.bad_location",
                         "this perfgate was built without PostgreSQL (libpq was not found when it was configured)",
                         {}, ErrorKind::kEnvironment);
#endif
  }
  if (location.find("://") != std::string::npos) {
    return Status::Error("history.bad_location",
                         "'" + location + "' is a URL of no store perfgate knows: give an SQLite file path or a "
                         "postgresql:// URL",
                         {}, ErrorKind::kUsage);
  }
  return OpenSqliteStore(location);
}

}  // namespace perfgate::history
