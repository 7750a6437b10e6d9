// The results store on a PostgreSQL server (postgres_store.h). A run is one
// transaction; its run_key makes an append retried after a lost connection write it
// once. Series are written in key order, so that runs writing the same new series at
// once wait on each other instead of deadlocking.
#include "history/postgres_store.h"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/text_input.h"
#include "history/codec.h"
#include "history/postgres_connection.h"

namespace perfgate::history {
// The helpers are in a namespace of their own: the framework compiles in unity batches.
namespace pg {
namespace {

constexpr const char* kWriteFailed = "history.write_failed";
constexpr const char* kBadStore = "history.bad_store";
constexpr const char* kUnreachable = "history.unreachable";

// The schema of version 1: the SQLite store's tables (sqlite_store.cc) in PostgreSQL's
// types.
constexpr const char* kPgSchemaV1 = R"sql(
CREATE TABLE perfgate_schema (version INTEGER NOT NULL);
CREATE TABLE runs (id BIGSERIAL PRIMARY KEY, run_key TEXT NOT NULL UNIQUE, time TEXT NOT NULL,
  commit_sha TEXT NOT NULL, branch TEXT NOT NULL, suite TEXT NOT NULL, test TEXT NOT NULL,
  machine TEXT NOT NULL, device TEXT NOT NULL, perfgate_version TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE series (id BIGSERIAL PRIMARY KEY, suite TEXT NOT NULL, test TEXT NOT NULL, engine TEXT NOT NULL,
  metric TEXT NOT NULL, worse TEXT NOT NULL, UNIQUE (suite, test, engine, metric));
CREATE TABLE figures (series_id BIGINT NOT NULL REFERENCES series(id), run_id BIGINT NOT NULL REFERENCES runs(id),
  median DOUBLE PRECISION NOT NULL, samples TEXT NOT NULL, PRIMARY KEY (series_id, run_id));
CREATE INDEX figures_by_run ON figures (run_id);
CREATE TABLE levels (run_id BIGINT NOT NULL REFERENCES runs(id), engine TEXT NOT NULL, level TEXT NOT NULL,
  name TEXT NOT NULL, calls_per_token DOUBLE PRECISION NOT NULL, us_per_token DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, engine, level, name));
INSERT INTO perfgate_schema (version) VALUES (1);
)sql";

// The transaction-level advisory lock ("perfgate" in ASCII) under which one process at
// a time creates or migrates a database's tables; the others wait, then find it done.
constexpr int64_t kSchemaLockKey = 0x7065726667617465;

// A step that takes a store of version v to v + 1, inside the open's transaction.
using MigrationStep = Status (*)(pg::Connection& conn);
// The steps, version 1's at index 0. Version 1 is the first, so there are none yet: a
// version 2 raises kSchemaVersion and adds its one function here.
constexpr std::array<MigrationStep, kSchemaVersion - 1> kPgMigrations = {};

// How often a transaction that lost a deadlock or a serialization check is run.
constexpr int kConflictTries = 3;
// Rows per INSERT: a few round trips for a run of thousands of figures, far below the
// protocol's 65535 parameters.
constexpr size_t kRowsPerInsert = 500;

Status BadStore(const pg::Connection& conn, const std::string& what) {
  return Status::Error(kBadStore, conn.location() + ": " + what, {}, ErrorKind::kEnvironment);
}

std::string PercentDecoded(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Where a URL's parts are. The credentials end at the last '@' before the path, so a
// password with a raw '@', '?' or ':' in it is never taken for the host or the query.
struct UrlSpans {
  size_t user_begin = 0;                // just after "://"
  size_t at = std::string::npos;        // the '@' that ends the credentials
  size_t password = std::string::npos;  // just after the credentials' ':'
  size_t host_begin = 0;
  size_t query_begin = std::string::npos;  // just after '?'
};

UrlSpans SpansOf(const std::string& url) {
  UrlSpans spans;
  const size_t scheme_end = url.find("://");
  spans.user_begin = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const size_t at = url.rfind('@', url.find('/', spans.user_begin));
  if (at != std::string::npos && at >= spans.user_begin) {
    spans.at = at;
    const size_t colon = url.find(':', spans.user_begin);
    if (colon < at) spans.password = colon + 1;
  }
  spans.host_begin = spans.at == std::string::npos ? spans.user_begin : spans.at + 1;
  const size_t question = url.find('?', spans.host_begin);
  if (question != std::string::npos) spans.query_begin = question + 1;
  return spans;
}

// The query's parameters, each "key=value".
std::vector<std::string> QueryItems(const std::string& url, const UrlSpans& spans) {
  std::vector<std::string> items;
  if (spans.query_begin == std::string::npos) return items;
  size_t begin = spans.query_begin;
  while (begin <= url.size()) {
    const size_t end = std::min(url.find('&', begin), url.size());
    items.push_back(url.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

bool IsPasswordItem(const std::string& item) { return item.rfind("password=", 0) == 0; }

// The passwords of `url` as written and percent-decoded, which no message may show.
std::vector<std::string> UrlPasswords(const std::string& url) {
  const UrlSpans spans = SpansOf(url);
  std::vector<std::string> raw;
  if (spans.password != std::string::npos) raw.push_back(url.substr(spans.password, spans.at - spans.password));
  for (const std::string& item : QueryItems(url, spans)) {
    if (IsPasswordItem(item)) raw.push_back(item.substr(9));
  }
  std::vector<std::string> secrets;
  for (const std::string& secret : raw) {
    if (secret.empty()) continue;
    secrets.push_back(secret);
    if (PercentDecoded(secret) != secret) secrets.push_back(PercentDecoded(secret));
  }
  return secrets;
}

// `message` with every password of `url` replaced by "***".
std::string Scrub(std::string message, const std::string& url) {
  for (const std::string& secret : UrlPasswords(url)) {
    for (size_t at = message.find(secret); at != std::string::npos; at = message.find(secret, at + 3)) {
      message.replace(at, secret.size(), "***");
    }
  }
  return message;
}

// history.bad_location for a URL libpq cannot read.
Status CheckUrl(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options != nullptr) {
    PQconninfoFree(options);
    return Status();
  }
  std::string why = error ? error : "out of memory";
  PQfreemem(error);
  while (!why.empty() && why.back() == '\n') why.pop_back();
  return Status::Error("history.bad_location",
                       PostgresLocation(url) + ": not a PostgreSQL URL libpq can read: " + Scrub(why, url), {},
                       ErrorKind::kUsage);
}

// PostgreSQL's text is UTF-8 without NUL bytes; the server would refuse such a run
// part-way, so it is refused whole before.
Status CheckPgText(const std::string& what, const std::string& text) {
  std::string why;
  if (text.find('\0') != std::string::npos) {
    why = "holds a NUL byte";
  } else if (::perfgate::internal::FindInvalidUtf8(text) != std::string::npos) {
    why = "is not UTF-8";
  } else {
    return Status();
  }
  return Status::Error("history.bad_run",
                       what + " '" + text.substr(0, 80) + "' " + why + ", which a PostgreSQL store's text cannot hold");
}

Status CheckPgRunText(const Run& run) {
  const RunContext& c = run.context;
  const std::pair<const char*, const std::string*> fields[] = {
      {"the run key", &run.key},   {"the time", &c.time},     {"the commit", &c.commit},
      {"the branch", &c.branch},   {"the suite", &c.suite},   {"the test", &c.test},
      {"the machine", &c.machine}, {"the device", &c.device}, {"the perfgate version", &c.perfgate_version}};
  for (const auto& [what, text] : fields) PERFGATE_RETURN_IF_ERROR(CheckPgText(what, *text));
  for (const Figure& f : run.figures) {
    PERFGATE_RETURN_IF_ERROR(CheckPgText("a figure's engine", f.engine));
    PERFGATE_RETURN_IF_ERROR(CheckPgText("a figure's metric", f.metric));
  }
  for (const LevelRow& row : run.levels) {
    PERFGATE_RETURN_IF_ERROR(CheckPgText("a level row's engine", row.engine));
    PERFGATE_RETURN_IF_ERROR(CheckPgText("a level row's level", row.level));
    PERFGATE_RETURN_IF_ERROR(CheckPgText("a level row's name", row.name));
  }
  return Status();
}

// The schema: reading its version, creating and migrating it.

// The schema version, 0 for a database without perfgate_schema. The catalog is read
// with the statement's snapshot, not through the session's name cache (to_regclass),
// which would not see a table another process created while this one waited.
StatusOr<int> ReadSchemaVersion(pg::Connection& conn) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows exists,
                            conn.Exec("SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                                      "ON n.oid = c.relnamespace WHERE c.relname = 'perfgate_schema' "
                                      "AND n.nspname = current_schema()",
                                      pg::Params(), kBadStore, "looking for its schema"));
  if (exists.Int64(0, 0) == 0) return 0;
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows version, conn.Exec("SELECT max(version) FROM perfgate_schema", pg::Params(),
                                                        kBadStore, "reading its schema version"));
  const int64_t value = version.Int64(0, 0);
  if (value < 1 || value > std::numeric_limits<int>::max()) {
    return BadStore(conn, "perfgate_schema holds no schema version (" + std::to_string(value) + ")");
  }
  return static_cast<int>(value);
}

Status RefuseFutureSchema(const pg::Connection& conn, int version) {
  if (version <= kSchemaVersion) return Status();
  return Status::Error("history.future_schema",
                       conn.location() + " holds a history of schema version " + std::to_string(version) +
                           ", newer than this perfgate's " + std::to_string(kSchemaVersion) +
                           ": upgrade perfgate to read or write it",
                       {}, ErrorKind::kEnvironment);
}

Status CreateTables(pg::Connection& conn) {
  Status created = conn.Run(kPgSchemaV1, kWriteFailed, "creating the history's tables");
  if (conn.last_sqlstate() != "42P07") return created;  // 42P07: a table of that name exists
  return Status::Error("history.bad_location",
                       conn.location() +
                           " holds tables of the history's names (runs, series, figures, levels) but no "
                           "perfgate_schema: choose another database, or another schema with the URL's "
                           "options=-csearch_path%3D<schema>",
                       {}, ErrorKind::kUsage);
}

Status SetSchemaVersion(pg::Connection& conn, int version) {
  auto set = conn.Exec("UPDATE perfgate_schema SET version = $1", pg::Params().Int64(version), kWriteFailed,
                       "recording the schema version");
  return set.ok() ? Status() : set.status();
}

// Inside the open's transaction, holding the schema lock.
Status CreateOrMigrateLocked(pg::Connection& conn) {
  auto locked = conn.Exec("SELECT pg_advisory_xact_lock($1)", pg::Params().Int64(kSchemaLockKey), kWriteFailed,
                          "locking the history to create its tables");
  if (!locked.ok()) return locked.status();
  PERFGATE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(conn));  // another may have done it meanwhile
  PERFGATE_RETURN_IF_ERROR(RefuseFutureSchema(conn, version));
  if (version == 0) {
    PERFGATE_RETURN_IF_ERROR(CreateTables(conn));
    version = 1;
  }
  for (; version < kSchemaVersion; ++version) {
    PERFGATE_RETURN_IF_ERROR(kPgMigrations[version - 1](conn));
    PERFGATE_RETURN_IF_ERROR(SetSchemaVersion(conn, version + 1));
  }
  return Status();
}

// Reading the version takes no lock and writes nothing, so a store at this version
// opens on a read-only database or a standby too.
Status PrepareSchema(pg::Connection& conn) {
  PERFGATE_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(conn));
  PERFGATE_RETURN_IF_ERROR(RefuseFutureSchema(conn, version));
  if (version == kSchemaVersion) return Status();
  Status s = conn.Run("BEGIN ISOLATION LEVEL READ COMMITTED", kWriteFailed, "beginning the schema's transaction");
  if (s.ok()) s = CreateOrMigrateLocked(conn);
  if (s.ok()) s = conn.Run("COMMIT", kWriteFailed, "committing the history's tables");
  if (!s.ok()) conn.Rollback();
  return s;
}

// Appending a run.

// "($1, $2), ($3, $4)": `rows` rows of `columns` parameters.
std::string ValuesList(size_t rows, int columns) {
  std::string out;
  int next = 1;
  for (size_t row = 0; row < rows; ++row) {
    out += row ? ", (" : "(";
    for (int column = 0; column < columns; ++column) out += (column ? ", $" : "$") + std::to_string(next++);
    out += ")";
  }
  return out;
}

// Runs `insert` VALUES ... `suffix` over `rows` rows, kRowsPerInsert at a time;
// add_row(i, params) adds the parameters of row i.
template <typename AddRow>
Status InsertRows(pg::Connection& conn, const std::string& insert, int columns, size_t rows, const std::string& suffix,
                  const std::string& doing, AddRow add_row) {
  for (size_t begin = 0; begin < rows; begin += kRowsPerInsert) {
    const size_t end = std::min(rows, begin + kRowsPerInsert);
    pg::Params params;
    for (size_t i = begin; i < end; ++i) add_row(i, params);
    auto done = conn.Exec(insert + ValuesList(end - begin, columns) + suffix, params, kWriteFailed, doing);
    if (!done.ok()) return done.status();
  }
  return Status();
}

// The new run's id, or nullopt when the store holds its key already.
StatusOr<std::optional<int64_t>> InsertRunRow(pg::Connection& conn, const Run& run) {
  const RunContext& c = run.context;
  pg::Params params;
  params.Text(run.key).Text(c.time).Text(c.commit).Text(c.branch).Text(c.suite).Text(c.test);
  params.Text(c.machine).Text(c.device).Text(c.perfgate_version).Text(EncodeMeta(c.meta));
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows rows, conn.Exec("INSERT INTO runs (run_key, time, commit_sha, branch, suite, test, machine, device, "
                               "perfgate_version, meta) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                               "ON CONFLICT (run_key) DO NOTHING RETURNING id",
                               params, kWriteFailed, "writing the run"));
  if (rows.size() == 0) return std::optional<int64_t>();
  return std::optional<int64_t>(rows.Int64(0, 0));
}

StatusOr<int64_t> ExistingRunId(pg::Connection& conn, const std::string& key) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows rows, conn.Exec("SELECT id FROM runs WHERE run_key = $1", pg::Params().Text(key),
                                                     kWriteFailed, "looking up the run's key"));
  if (rows.size() != 1) return BadStore(conn, "the run key " + key + " is held, yet no run has it");
  return rows.Int64(0, 0);
}

using SeriesIds = std::map<std::pair<std::string, std::string>, int64_t>;  // (engine, metric) -> id

// The ids of the run's series, writing those the store lacks (the first run's worse
// direction is kept).
StatusOr<SeriesIds> UpsertSeries(pg::Connection& conn, const Run& run) {
  std::vector<const Figure*> sorted;
  for (const Figure& f : run.figures) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(), [](const Figure* a, const Figure* b) {
    return std::tie(a->engine, a->metric) < std::tie(b->engine, b->metric);
  });
  const RunContext& c = run.context;
  PERFGATE_RETURN_IF_ERROR(InsertRows(
      conn, "INSERT INTO series (suite, test, engine, metric, worse) VALUES ", 5, sorted.size(),
      " ON CONFLICT (suite, test, engine, metric) DO NOTHING", "writing the run's series",
      [&](size_t i, pg::Params& p) {
        p.Text(c.suite).Text(c.test).Text(sorted[i]->engine).Text(sorted[i]->metric).Text(WorseName(sorted[i]->worse));
      }));
  // A statement of its own: it sees the series other runs committed while this one
  // waited on them.
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows rows, conn.Exec("SELECT engine, metric, id FROM series WHERE suite = $1 AND test = $2",
                               pg::Params().Text(c.suite).Text(c.test), kWriteFailed, "reading the run's series"));
  SeriesIds ids;
  for (int i = 0; i < rows.size(); ++i) ids[{rows.Text(i, 0), rows.Text(i, 1)}] = rows.Int64(i, 2);
  return ids;
}

Status InsertFigures(pg::Connection& conn, int64_t run_id, const Run& run, const SeriesIds& series) {
  for (const Figure& f : run.figures) {
    if (series.count({f.engine, f.metric}) == 0) {
      return BadStore(conn, "the series of " + f.engine + " " + f.metric + " vanished");
    }
  }
  return InsertRows(
      conn, "INSERT INTO figures (series_id, run_id, median, samples) VALUES ", 4, run.figures.size(), "",
      "writing the run's figures", [&](size_t i, pg::Params& p) {
        const Figure& f = run.figures[i];
        p.Int64(series.at({f.engine, f.metric})).Int64(run_id).Double(f.median).Text(EncodeSamples(f.samples));
      });
}

Status InsertLevels(pg::Connection& conn, int64_t run_id, const Run& run) {
  return InsertRows(conn, "INSERT INTO levels (run_id, engine, level, name, calls_per_token, us_per_token) VALUES ", 6,
                    run.levels.size(), "", "writing the run's level tables", [&](size_t i, pg::Params& p) {
                      const LevelRow& row = run.levels[i];
                      p.Int64(run_id).Text(row.engine).Text(row.level).Text(row.name);
                      p.Double(row.calls_per_token).Double(row.us_per_token);
                    });
}

StatusOr<int64_t> WriteRun(pg::Connection& conn, const Run& run) {
  PERFGATE_ASSIGN_OR_RETURN(std::optional<int64_t> id, InsertRunRow(conn, run));
  if (!id) return ExistingRunId(conn, run.key);  // a retried append: nothing more to write
  PERFGATE_ASSIGN_OR_RETURN(SeriesIds series, UpsertSeries(conn, run));
  PERFGATE_RETURN_IF_ERROR(InsertFigures(conn, *id, run, series));
  PERFGATE_RETURN_IF_ERROR(InsertLevels(conn, *id, run));
  return *id;
}

StatusOr<int64_t> AppendInTransaction(pg::Connection& conn, const Run& run) {
  // READ COMMITTED whatever the URL's default: each statement sees what other runs
  // committed while it waited on them.
  PERFGATE_RETURN_IF_ERROR(conn.Run("BEGIN ISOLATION LEVEL READ COMMITTED", kWriteFailed, "beginning the run"));
  StatusOr<int64_t> id = WriteRun(conn, run);
  const Status s = id.ok() ? conn.Run("COMMIT", kWriteFailed, "committing the run") : id.status();
  if (!s.ok()) {
    conn.Rollback();
    return s;
  }
  return id;
}

// Reading.

// Every series; with its points counted when `counted` (a scan of every figure).
StatusOr<std::vector<SeriesInfo>> ReadSeriesList(pg::Connection& conn, bool counted) {
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows rows, conn.Exec(counted ? "SELECT s.suite, s.test, s.engine, s.metric, s.worse, count(f.run_id) FROM series s "
                                         "LEFT JOIN figures f ON f.series_id = s.id GROUP BY s.id"
                                       : "SELECT suite, test, engine, metric, worse, -1 FROM series",
                               pg::Params(), kBadStore, "listing its series"));
  std::vector<SeriesInfo> out;
  for (int i = 0; i < rows.size(); ++i) {
    SeriesInfo info;
    info.key = {rows.Text(i, 0), rows.Text(i, 1), rows.Text(i, 2), rows.Text(i, 3)};
    if (!ParseWorse(rows.Text(i, 4), &info.worse)) {
      return BadStore(conn, "a series whose worse direction is '" + rows.Text(i, 4) + "'");
    }
    info.points = rows.Int64(i, 5);
    out.push_back(std::move(info));
  }
  // Byte order, as the SQLite store's: the database's collation may differ.
  std::sort(out.begin(), out.end(), [](const SeriesInfo& a, const SeriesInfo& b) { return a.key < b.key; });
  return out;
}

StatusOr<std::vector<Point>> ReadPoints(pg::Connection& conn, const SeriesKey& key, int64_t last) {
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows series, conn.Exec("SELECT id FROM series WHERE suite = $1 AND test = $2 AND engine = $3 AND metric = $4",
                                 pg::Params().Text(key.suite).Text(key.test).Text(key.engine).Text(key.metric),
                                 kBadStore, "looking up a series"));
  if (series.size() == 0) {
    return Status::Error("history.unknown_series", conn.location() + " holds no series " + key.suite + "/" + key.test +
                                                       " " + key.engine + " " + key.metric);
  }
  const int64_t limit = last > 0 ? last : std::numeric_limits<int64_t>::max();
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows rows, conn.Exec("SELECT r.id, r.time, r.commit_sha, r.branch, f.median, f.samples FROM figures f "
                               "JOIN runs r ON r.id = f.run_id WHERE f.series_id = $1 ORDER BY f.run_id DESC LIMIT $2",
                               pg::Params().Int64(series.Int64(0, 0)).Int64(limit), kBadStore, "reading a series"));
  std::vector<Point> out;
  for (int i = rows.size() - 1; i >= 0; --i) {
    Point p{rows.Int64(i, 0), rows.Text(i, 1), rows.Text(i, 2), rows.Text(i, 3), rows.Double(i, 4), {}};
    PERFGATE_ASSIGN_OR_RETURN(p.samples, DecodeSamples(rows.Text(i, 5)));
    out.push_back(std::move(p));
  }
  return out;
}

Status ReadRunFigures(pg::Connection& conn, Run& run) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows rows,
                            conn.Exec("SELECT s.engine, s.metric, f.median, f.samples, s.worse FROM figures f "
                                      "JOIN series s ON s.id = f.series_id WHERE f.run_id = $1",
                                      pg::Params().Int64(run.id), kBadStore, "reading a run's figures"));
  for (int i = 0; i < rows.size(); ++i) {
    Figure f{rows.Text(i, 0), rows.Text(i, 1), rows.Double(i, 2), {}, Worse::kBoth};
    PERFGATE_ASSIGN_OR_RETURN(f.samples, DecodeSamples(rows.Text(i, 3)));
    ParseWorse(rows.Text(i, 4), &f.worse);
    run.figures.push_back(std::move(f));
  }
  std::sort(run.figures.begin(), run.figures.end(), [](const Figure& a, const Figure& b) {
    return std::tie(a.engine, a.metric) < std::tie(b.engine, b.metric);
  });
  return Status();
}

// A run's level rows, ordered by engine, level and name (byte order, as the SQLite
// store's).
StatusOr<std::vector<LevelRow>> ReadLevelRows(pg::Connection& conn, int64_t id) {
  PERFGATE_ASSIGN_OR_RETURN(
      pg::Rows rows,
      conn.Exec("SELECT engine, level, name, calls_per_token, us_per_token FROM levels WHERE run_id = $1",
                pg::Params().Int64(id), kBadStore, "reading a run's level tables"));
  std::vector<LevelRow> out;
  for (int i = 0; i < rows.size(); ++i) {
    out.push_back({rows.Text(i, 0), rows.Text(i, 1), rows.Text(i, 2), rows.Double(i, 3), rows.Double(i, 4)});
  }
  std::sort(out.begin(), out.end(), [](const LevelRow& a, const LevelRow& b) {
    return std::tie(a.engine, a.level, a.name) < std::tie(b.engine, b.level, b.name);
  });
  return out;
}

Status UnknownRun(const pg::Connection& conn, int64_t id) {
  return Status::Error("history.unknown_run", conn.location() + " holds no run " + std::to_string(id));
}

StatusOr<std::vector<LevelRow>> ReadRunLevels(pg::Connection& conn, int64_t id) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows run, conn.Exec("SELECT id FROM runs WHERE id = $1", pg::Params().Int64(id),
                                                    kBadStore, "reading a run"));
  if (run.size() == 0) return UnknownRun(conn, id);
  return ReadLevelRows(conn, id);
}

StatusOr<Run> ReadWholeRun(pg::Connection& conn, int64_t id) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows rows,
                            conn.Exec("SELECT run_key, time, commit_sha, branch, suite, test, machine, device, "
                                      "perfgate_version, meta FROM runs WHERE id = $1",
                                      pg::Params().Int64(id), kBadStore, "reading a run"));
  if (rows.size() == 0) return UnknownRun(conn, id);
  Run run;
  run.id = id;
  run.key = rows.Text(0, 0);
  run.context = {rows.Text(0, 1), rows.Text(0, 2), rows.Text(0, 3),
                 rows.Text(0, 4), rows.Text(0, 5), rows.Text(0, 6),
                 rows.Text(0, 7), rows.Text(0, 8), {}};
  PERFGATE_ASSIGN_OR_RETURN(run.context.meta, DecodeMeta(rows.Text(0, 9)));
  PERFGATE_RETURN_IF_ERROR(ReadRunFigures(conn, run));
  PERFGATE_ASSIGN_OR_RETURN(run.levels, ReadLevelRows(conn, id));
  return run;
}

StatusOr<int64_t> CountRuns(pg::Connection& conn) {
  PERFGATE_ASSIGN_OR_RETURN(pg::Rows rows,
                            conn.Exec("SELECT count(*) FROM runs", pg::Params(), kBadStore, "counting its runs"));
  return rows.Int64(0, 0);
}

class PostgresStore final : public Store {
 public:
  PostgresStore(std::string url, std::unique_ptr<pg::Connection> conn)
      : url_(std::move(url)), location_(conn->location()), conn_(std::move(conn)) {}

  StatusOr<int64_t> Append(const Run& run) override {
    PERFGATE_RETURN_IF_ERROR(ValidateRun(run));
    PERFGATE_RETURN_IF_ERROR(CheckPgRunText(run));
    return Retrying<int64_t>(kWriteFailed, [&run](pg::Connection& conn) { return AppendInTransaction(conn, run); });
  }
  StatusOr<std::vector<SeriesInfo>> ListSeries() override {
    return Retrying<std::vector<SeriesInfo>>(kUnreachable,
                                             [](pg::Connection& conn) { return ReadSeriesList(conn, true); });
  }
  StatusOr<std::vector<SeriesInfo>> ListSeriesKeys() override {
    return Retrying<std::vector<SeriesInfo>>(kUnreachable,
                                             [](pg::Connection& conn) { return ReadSeriesList(conn, false); });
  }
  StatusOr<std::vector<Point>> Points(const SeriesKey& key, int64_t last) override {
    return Retrying<std::vector<Point>>(kUnreachable,
                                        [&](pg::Connection& conn) { return ReadPoints(conn, key, last); });
  }
  StatusOr<Run> ReadRun(int64_t id) override {
    return Retrying<Run>(kUnreachable, [id](pg::Connection& conn) { return ReadWholeRun(conn, id); });
  }
  StatusOr<std::vector<LevelRow>> ReadLevels(int64_t id) override {
    return Retrying<std::vector<LevelRow>>(kUnreachable,
                                           [id](pg::Connection& conn) { return ReadRunLevels(conn, id); });
  }
  StatusOr<int64_t> RunCount() override { return Retrying<int64_t>(kUnreachable, CountRuns); }
  std::string Location() const override { return location_; }

 private:
  // Runs `body` on the connection. When the connection is lost (the server restarted,
  // the network cut), it is run once more on a new one: a transaction on the lost one
  // is gone whole, and a run's key keeps a run whose commit did land from being
  // written twice. A deadlock or serialization failure runs it again, up to
  // kConflictTries times. When no connection serves, the error is `lost_code`'s.
  template <typename T, typename Body>
  StatusOr<T> Retrying(const char* lost_code, Body body) {
    bool reconnected = false;
    for (int conflicts = 1;; ++conflicts) {
      if (conn_->lost()) {
        auto fresh = pg::Connection::Open(url_, location_);
        if (!fresh.ok()) return Lost(lost_code, fresh.status());
        conn_ = std::move(fresh).value();
        reconnected = true;
      }
      StatusOr<T> result = body(*conn_);
      if (result.ok()) return result;
      if (conn_->lost()) {
        if (reconnected) return Lost(lost_code, result.status());
        continue;
      }
      if (!pg::IsRetryableConflict(conn_->last_sqlstate()) || conflicts >= kConflictTries) return result.status();
    }
  }

  static Status Lost(const char* lost_code, const Status& why) {
    const bool append = std::string(lost_code) == kWriteFailed;
    return Status::Error(lost_code, why.message() + (append ? ": the run is not recorded" : ""), {},
                         ErrorKind::kEnvironment);
  }

  std::string url_;  // with its password, for new connections
  std::string location_;
  std::unique_ptr<pg::Connection> conn_;
};

}  // namespace
}  // namespace pg

std::string PostgresLocation(const std::string& url) {
  const pg::UrlSpans spans = pg::SpansOf(url);
  std::string out = url.substr(0, spans.user_begin);
  if (spans.at != std::string::npos) {
    const size_t user_end = spans.password == std::string::npos ? spans.at : spans.password - 1;
    out += url.substr(spans.user_begin, user_end - spans.user_begin) + "@";
  }
  const size_t host_end = spans.query_begin == std::string::npos ? url.size() : spans.query_begin - 1;
  out += url.substr(spans.host_begin, host_end - spans.host_begin);
  std::string query;
  for (const std::string& item : pg::QueryItems(url, spans)) {
    if (!pg::IsPasswordItem(item)) query += (query.empty() ? "" : "&") + item;
  }
  return query.empty() ? out : out + "?" + query;
}

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url) {
  PERFGATE_RETURN_IF_ERROR(pg::CheckUrl(url));
  PERFGATE_ASSIGN_OR_RETURN(std::unique_ptr<pg::Connection> conn, pg::Connection::Open(url, PostgresLocation(url)));
  PERFGATE_RETURN_IF_ERROR(pg::PrepareSchema(*conn));
  return std::unique_ptr<Store>(std::make_unique<pg::PostgresStore>(url, std::move(conn)));
}

}  // namespace perfgate::history
