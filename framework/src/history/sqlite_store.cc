// The results store on an SQLite file. Writers serialize on SQLite's database lock
// (BEGIN IMMEDIATE, waiting up to lock_wait_ms); a run is one transaction, so a
// failure keeps none of it.
#include "history/sqlite_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <sys/stat.h>

#include "history/codec.h"

namespace perfgate::history {
namespace {

// The schema of version 1 (docs/history.md#the-store). Both back ends hold the same
// tables; PostgreSQL's spells the types its way.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE perfgate_schema (version INTEGER NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY, run_key TEXT NOT NULL UNIQUE, time TEXT NOT NULL,
  commit_sha TEXT NOT NULL, branch TEXT NOT NULL, suite TEXT NOT NULL, test TEXT NOT NULL,
  machine TEXT NOT NULL, device TEXT NOT NULL, perfgate_version TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE series (id INTEGER PRIMARY KEY, suite TEXT NOT NULL, test TEXT NOT NULL, engine TEXT NOT NULL,
  metric TEXT NOT NULL, worse TEXT NOT NULL, UNIQUE (suite, test, engine, metric));
CREATE TABLE figures (series_id INTEGER NOT NULL REFERENCES series(id), run_id INTEGER NOT NULL REFERENCES runs(id),
  median REAL NOT NULL, samples TEXT NOT NULL, PRIMARY KEY (series_id, run_id)) WITHOUT ROWID;
CREATE TABLE levels (run_id INTEGER NOT NULL REFERENCES runs(id), engine TEXT NOT NULL, level TEXT NOT NULL,
  name TEXT NOT NULL, calls_per_token REAL NOT NULL, us_per_token REAL NOT NULL,
  PRIMARY KEY (run_id, engine, level, name)) WITHOUT ROWID;
INSERT INTO perfgate_schema (version) VALUES (1);
)sql";

// The code a failed SQLite call is reported under.
const char* CodeOf(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "history.locked";
    case SQLITE_READONLY:
    case SQLITE_PERM: return "history.read_only";
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: return "history.bad_store";
    default: return "history.write_failed";
  }
}

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  int prepare_rc() const { return rc_; }
  Stmt& Bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& Bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return rc_ == SQLITE_OK ? sqlite3_step(stmt_) : rc_; }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  int64_t Int(int i) const { return sqlite3_column_int64(stmt_, i); }
  double Real(int i) const { return sqlite3_column_double(stmt_, i); }
  std::string Text(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, i))) : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(sqlite3* db, std::string path, int lock_wait_ms)
      : db_(db), path_(std::move(path)), lock_wait_ms_(lock_wait_ms) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  Status Prepare();
  StatusOr<int64_t> Append(const Run& run) override;
  StatusOr<std::vector<SeriesInfo>> ListSeries() override { return ReadSeriesList(true); }
  StatusOr<std::vector<SeriesInfo>> ListSeriesKeys() override { return ReadSeriesList(false); }
  StatusOr<std::vector<Point>> Points(const SeriesKey& key, int64_t last) override;
  StatusOr<Run> ReadRun(int64_t id) override;
  StatusOr<std::vector<LevelRow>> ReadLevels(int64_t id) override;
  StatusOr<int64_t> RunCount() override;
  std::string Location() const override { return path_; }

 private:
  Status Fail(int rc, const std::string& doing) const;
  Status Exec(const char* sql, const std::string& doing);
  StatusOr<int> SchemaVersion();
  Status CreateOrMigrate();
  StatusOr<int64_t> AppendInTransaction(const Run& run);
  StatusOr<int64_t> InsertRun(const Run& run);
  StatusOr<int64_t> SeriesId(const RunContext& context, const Figure& figure);
  Status InsertFigures(int64_t run_id, const Run& run);
  Status InsertLevels(int64_t run_id, const Run& run);
  StatusOr<std::optional<int64_t>> FindSeries(const SeriesKey& key);
  StatusOr<std::vector<LevelRow>> ReadLevelRows(int64_t id);
  // Every series; with its points counted when `counted` (a scan of every figure).
  StatusOr<std::vector<SeriesInfo>> ReadSeriesList(bool counted);

  sqlite3* db_;
  std::string path_;
  int lock_wait_ms_;
};

Status SqliteStore::Fail(int rc, const std::string& doing) const {
  std::string message = path_ + ": " + doing + ": " + sqlite3_errmsg(db_);
  if ((rc & 0xff) == SQLITE_BUSY) message += " (another writer held the store's lock past the wait)";
  return Status::Error(CodeOf(rc), message, {}, ErrorKind::kEnvironment);
}

Status SqliteStore::Exec(const char* sql, const std::string& doing) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status() : Fail(rc, doing);
}

// The schema version, 0 for an empty database; history.bad_location for a database
// that holds other tables and no perfgate_schema.
StatusOr<int> SqliteStore::SchemaVersion() {
  Stmt tables(db_, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
  std::vector<std::string> names;
  int rc;
  while ((rc = tables.Step()) == SQLITE_ROW) names.push_back(tables.Text(0));
  if (rc != SQLITE_DONE) return Fail(rc, "reading its tables");
  if (names.empty()) return 0;
  if (std::find(names.begin(), names.end(), "perfgate_schema") == names.end()) {
    return Status::Error("history.bad_location",
                         path_ + " is an SQLite database but no perfgate history (it holds the table '" + names[0] +
                             "' and no perfgate_schema): choose another path",
                         {}, ErrorKind::kUsage);
  }
  Stmt version(db_, "SELECT max(version) FROM perfgate_schema");
  rc = version.Step();
  if (rc != SQLITE_ROW) return Fail(rc, "reading its schema version");
  return static_cast<int>(version.Int(0));
}

Status SqliteStore::CreateOrMigrate() {
  PERFGATE_ASSIGN_OR_RETURN(int version, SchemaVersion());
  if (version > kSchemaVersion) {
    return Status::Error("history.future_schema",
                         path_ + " holds a history of schema version " + std::to_string(version) +
                             ", newer than this perfgate's " + std::to_string(kSchemaVersion) +
                             ": upgrade perfgate to read or write it",
                         {}, ErrorKind::kEnvironment);
  }
  if (version == 0) return Exec(kSchemaV1, "creating the history's tables");
  // Version 1 is the first; a migration from version N to N+1 goes here.
  return Status();
}

Status SqliteStore::Prepare() {
  // Every statement waits for another writer's lock, the COMMIT too (it waits for
  // readers to finish), up to lock_wait_ms.
  sqlite3_busy_timeout(db_, lock_wait_ms_);
  if (sqlite3_db_readonly(db_, "main") == 1) {
    PERFGATE_ASSIGN_OR_RETURN(int version, SchemaVersion());
    if (version > kSchemaVersion) return CreateOrMigrate();  // its error
    if (version == 0) {
      return Status::Error("history.read_only", path_ + " is read-only and holds no history yet", {},
                           ErrorKind::kEnvironment);
    }
    return Status();
  }
  Status s = Exec("BEGIN IMMEDIATE", "locking it to check its schema");
  if (s.ok()) s = CreateOrMigrate();
  if (s.ok()) s = Exec("COMMIT", "committing its schema");
  if (!s.ok()) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  return s;
}

StatusOr<int64_t> SqliteStore::InsertRun(const Run& run) {
  Stmt existing(db_, "SELECT id FROM runs WHERE run_key = ?");
  existing.Bind(1, run.key);
  int rc = existing.Step();
  if (rc == SQLITE_ROW) return existing.Int(0);
  if (rc != SQLITE_DONE) return Fail(rc, "looking up the run's key");
  const RunContext& c = run.context;
  Stmt insert(db_,
              "INSERT INTO runs (run_key, time, commit_sha, branch, suite, test, machine, device, perfgate_version, "
              "meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.Bind(1, run.key).Bind(2, c.time).Bind(3, c.commit).Bind(4, c.branch).Bind(5, c.suite).Bind(6, c.test);
  insert.Bind(7, c.machine).Bind(8, c.device).Bind(9, c.perfgate_version).Bind(10, EncodeMeta(c.meta));
  rc = insert.Step();
  if (rc != SQLITE_DONE) return Fail(rc, "writing the run");
  return -sqlite3_last_insert_rowid(db_);  // negative: new, its figures still to write
}

StatusOr<std::optional<int64_t>> SqliteStore::FindSeries(const SeriesKey& key) {
  Stmt find(db_, "SELECT id FROM series WHERE suite = ? AND test = ? AND engine = ? AND metric = ?");
  find.Bind(1, key.suite).Bind(2, key.test).Bind(3, key.engine).Bind(4, key.metric);
  const int rc = find.Step();
  if (rc == SQLITE_ROW) return std::optional<int64_t>(find.Int(0));
  if (rc != SQLITE_DONE) return Fail(rc, "looking up a series");
  return std::optional<int64_t>();
}

StatusOr<int64_t> SqliteStore::SeriesId(const RunContext& context, const Figure& figure) {
  const SeriesKey key{context.suite, context.test, figure.engine, figure.metric};
  PERFGATE_ASSIGN_OR_RETURN(auto found, FindSeries(key));
  if (found) return *found;
  Stmt insert(db_, "INSERT INTO series (suite, test, engine, metric, worse) VALUES (?, ?, ?, ?, ?)");
  insert.Bind(1, key.suite).Bind(2, key.test).Bind(3, key.engine).Bind(4, key.metric);
  insert.Bind(5, std::string(WorseName(figure.worse)));
  const int rc = insert.Step();
  if (rc != SQLITE_DONE) return Fail(rc, "writing a series");
  return sqlite3_last_insert_rowid(db_);
}

Status SqliteStore::InsertFigures(int64_t run_id, const Run& run) {
  Stmt insert(db_, "INSERT INTO figures (series_id, run_id, median, samples) VALUES (?, ?, ?, ?)");
  for (const Figure& f : run.figures) {
    PERFGATE_ASSIGN_OR_RETURN(int64_t series_id, SeriesId(run.context, f));
    insert.Reset();
    insert.Bind(1, series_id).Bind(2, run_id).Bind(3, f.median).Bind(4, EncodeSamples(f.samples));
    const int rc = insert.Step();
    if (rc != SQLITE_DONE) return Fail(rc, "writing the figure " + f.engine + " " + f.metric);
  }
  return Status();
}

Status SqliteStore::InsertLevels(int64_t run_id, const Run& run) {
  Stmt insert(db_,
              "INSERT INTO levels (run_id, engine, level, name, calls_per_token, us_per_token) VALUES (?, ?, ?, ?, ?, ?)");
  for (const LevelRow& row : run.levels) {
    insert.Reset();
    insert.Bind(1, run_id).Bind(2, row.engine).Bind(3, row.level).Bind(4, row.name);
    insert.Bind(5, row.calls_per_token).Bind(6, row.us_per_token);
    const int rc = insert.Step();
    if (rc != SQLITE_DONE) return Fail(rc, "writing a level row");
  }
  return Status();
}

StatusOr<int64_t> SqliteStore::AppendInTransaction(const Run& run) {
  PERFGATE_ASSIGN_OR_RETURN(int64_t id, InsertRun(run));
  if (id > 0) return id;  // the key is held already: a retried append
  PERFGATE_RETURN_IF_ERROR(InsertFigures(-id, run));
  PERFGATE_RETURN_IF_ERROR(InsertLevels(-id, run));
  return -id;
}

StatusOr<int64_t> SqliteStore::Append(const Run& run) {
  PERFGATE_RETURN_IF_ERROR(ValidateRun(run));
  PERFGATE_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE", "locking it to append a run"));
  auto id = AppendInTransaction(run);
  Status s = id.ok() ? Exec("COMMIT", "committing the run") : id.status();
  if (!s.ok()) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
  return id;
}

StatusOr<std::vector<SeriesInfo>> SqliteStore::ReadSeriesList(bool counted) {
  Stmt list(db_, counted ? "SELECT s.suite, s.test, s.engine, s.metric, s.worse, count(f.run_id) FROM series s "
                           "LEFT JOIN figures f ON f.series_id = s.id GROUP BY s.id "
                           "ORDER BY s.suite, s.test, s.engine, s.metric"
                         : "SELECT suite, test, engine, metric, worse, -1 FROM series ORDER BY suite, test, engine, metric");
  std::vector<SeriesInfo> out;
  int rc;
  while ((rc = list.Step()) == SQLITE_ROW) {
    SeriesInfo info;
    info.key = {list.Text(0), list.Text(1), list.Text(2), list.Text(3)};
    if (!ParseWorse(list.Text(4), &info.worse)) {
      return Status::Error("history.bad_store", path_ + ": a series whose worse direction is '" + list.Text(4) + "'");
    }
    info.points = list.Int(5);
    out.push_back(std::move(info));
  }
  if (rc != SQLITE_DONE) return Fail(rc, "listing its series");
  return out;
}

StatusOr<std::vector<Point>> SqliteStore::Points(const SeriesKey& key, int64_t last) {
  PERFGATE_ASSIGN_OR_RETURN(auto series_id, FindSeries(key));
  if (!series_id) {
    return Status::Error("history.unknown_series", path_ + " holds no series " + key.suite + "/" + key.test + " " +
                                                       key.engine + " " + key.metric);
  }
  Stmt points(db_,
              "SELECT r.id, r.time, r.commit_sha, r.branch, f.median, f.samples FROM figures f "
              "JOIN runs r ON r.id = f.run_id WHERE f.series_id = ? ORDER BY f.run_id DESC LIMIT ?");
  points.Bind(1, *series_id).Bind(2, last > 0 ? last : int64_t{-1});
  std::vector<Point> out;
  int rc;
  while ((rc = points.Step()) == SQLITE_ROW) {
    Point p{points.Int(0), points.Text(1), points.Text(2), points.Text(3), points.Real(4), {}};
    PERFGATE_ASSIGN_OR_RETURN(p.samples, DecodeSamples(points.Text(5)));
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return Fail(rc, "reading a series");
  std::reverse(out.begin(), out.end());
  return out;
}

StatusOr<Run> SqliteStore::ReadRun(int64_t id) {
  Stmt run_row(db_,
               "SELECT run_key, time, commit_sha, branch, suite, test, machine, device, perfgate_version, meta "
               "FROM runs WHERE id = ?");
  run_row.Bind(1, id);
  int rc = run_row.Step();
  if (rc == SQLITE_DONE) {
    return Status::Error("history.unknown_run", path_ + " holds no run " + std::to_string(id));
  }
  if (rc != SQLITE_ROW) return Fail(rc, "reading a run");
  Run run;
  run.id = id;
  run.key = run_row.Text(0);
  run.context = {run_row.Text(1), run_row.Text(2), run_row.Text(3), run_row.Text(4), run_row.Text(5),
                 run_row.Text(6), run_row.Text(7), run_row.Text(8), {}};
  PERFGATE_ASSIGN_OR_RETURN(run.context.meta, DecodeMeta(run_row.Text(9)));
  Stmt figures(db_,
               "SELECT s.engine, s.metric, f.median, f.samples, s.worse FROM figures f JOIN series s "
               "ON s.id = f.series_id WHERE f.run_id = ? ORDER BY s.engine, s.metric");
  figures.Bind(1, id);
  while ((rc = figures.Step()) == SQLITE_ROW) {
    Figure f{figures.Text(0), figures.Text(1), figures.Real(2), {}, Worse::kBoth};
    PERFGATE_ASSIGN_OR_RETURN(f.samples, DecodeSamples(figures.Text(3)));
    ParseWorse(figures.Text(4), &f.worse);
    run.figures.push_back(std::move(f));
  }
  if (rc != SQLITE_DONE) return Fail(rc, "reading a run's figures");
  PERFGATE_ASSIGN_OR_RETURN(run.levels, ReadLevelRows(id));
  return run;
}

StatusOr<std::vector<LevelRow>> SqliteStore::ReadLevelRows(int64_t id) {
  Stmt levels(db_,
              "SELECT engine, level, name, calls_per_token, us_per_token FROM levels WHERE run_id = ? "
              "ORDER BY engine, level, name");
  levels.Bind(1, id);
  std::vector<LevelRow> out;
  int rc;
  while ((rc = levels.Step()) == SQLITE_ROW) {
    out.push_back({levels.Text(0), levels.Text(1), levels.Text(2), levels.Real(3), levels.Real(4)});
  }
  if (rc != SQLITE_DONE) return Fail(rc, "reading a run's level tables");
  return out;
}

StatusOr<std::vector<LevelRow>> SqliteStore::ReadLevels(int64_t id) {
  Stmt run(db_, "SELECT 1 FROM runs WHERE id = ?");
  run.Bind(1, id);
  const int rc = run.Step();
  if (rc == SQLITE_DONE) return Status::Error("history.unknown_run", path_ + " holds no run " + std::to_string(id));
  if (rc != SQLITE_ROW) return Fail(rc, "reading a run");
  return ReadLevelRows(id);
}

StatusOr<int64_t> SqliteStore::RunCount() {
  Stmt count(db_, "SELECT count(*) FROM runs");
  const int rc = count.Step();
  if (rc != SQLITE_ROW) return Fail(rc, "counting its runs");
  return count.Int(0);
}

// Why a path cannot be opened: a directory that cannot be written is history.read_only.
Status OpenError(const std::string& path, const std::string& sqlite_message) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 && ::stat(dir.c_str(), &st) == 0 && ::access(dir.c_str(), W_OK) != 0) {
    return Status::Error("history.read_only",
                         path + ": cannot create the history: the directory " + dir + " cannot be written", {},
                         ErrorKind::kEnvironment);
  }
  return Status::Error("history.unreachable", path + ": cannot open the history: " + sqlite_message, {},
                       ErrorKind::kEnvironment);
}

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, SqliteStoreOptions options) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return OpenError(path, message);
  }
  auto store = std::make_unique<SqliteStore>(db, path, options.lock_wait_ms);
  PERFGATE_RETURN_IF_ERROR(store->Prepare());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace perfgate::history
