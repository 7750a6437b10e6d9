// The results history's cost per gate run: appending one run of 200 figures (and 200
// level rows) to a 10,000-run history, and checking those 200 series' newest runs for
// change points (perfgate history check), on SQLite and, where PERFGATE_BENCH_POSTGRES
// names a postgresql:// URL of an empty database, on PostgreSQL. Target: the whole
// run's check under one second.
//
//   build/benchmarks/history_store_benchmark --benchmark_min_time=1x
//
// The 10,000-run history is written once per back end with SQL (2,000,000 figures: a
// few seconds), then every benchmark appends to it.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <sqlite3.h>
#ifdef PERFGATE_HAVE_POSTGRESQL
#include <libpq-fe.h>
#endif

#include <map>
#include <memory>

#include "perfgate/history/analysis.h"
#include "perfgate/history/record.h"
#include "perfgate/history/store.h"

namespace perfgate::history {
namespace {

constexpr int kFigures = 200;
constexpr int kHistoryRuns = 10000;

// One run of kFigures figures of one engine, each with 5 trial samples, and a level row
// per figure.
Run BenchRun(int64_t index) {
  Run run;
  run.key = NewRunKey();
  run.context = {"2026-12-05T00:00:00Z", "commit" + std::to_string(index), "main", "bench", "Decode", "bench", "",
                 "0.2.0", {}};
  for (int f = 0; f < kFigures; ++f) {
    const double v = 1000 + f + std::sin(static_cast<double>(index * 7 + f));
    run.figures.push_back({"hf2q", "kernels/k" + std::to_string(f) + "/us_per_token", v,
                           {v - 1, v - 0.5, v, v + 0.5, v + 1}, Worse::kUp});
    run.levels.push_back({"hf2q", "kernels", "k" + std::to_string(f), 24, v});
  }
  return run;
}

// The history of kHistoryRuns runs: the first through the Store (its schema and
// series), the rest by SQL that both back ends run, since appending 10,000 runs one by
// one would take the benchmark's whole budget.
// (A recursive CTE: SQLite's library has no generate_series.)
constexpr const char* kFillSql = R"sql(
INSERT INTO runs (run_key, time, commit_sha, branch, suite, test, machine, device, perfgate_version, meta)
  WITH RECURSIVE g(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM g WHERE n < 10000)
  SELECT 'fill' || n, '2026-12-05T00:00:00Z', 'commit' || n, 'main', 'bench', 'Decode', 'bench', '', '0.2.0', '{}'
  FROM g;
INSERT INTO figures (series_id, run_id, median, samples)
  SELECT s.id, r.id, 1000 + s.id + (r.id % 7) * 0.125, '[999,1000,1001,1002,1003]' FROM series s CROSS JOIN runs r
  WHERE r.id > 1;
)sql";

Status RunSqliteSql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  return rc == SQLITE_OK ? Status() : Status::Error("bench.sql", message);
}

#ifdef PERFGATE_HAVE_POSTGRESQL
// Each statement of `sql` (split at ";\n") on its own, so that a failure names its own.
Status RunPostgresSql(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  Status status;
  for (size_t from = 0, end; status.ok() && from < sql.size(); from = end + 2) {
    end = sql.find(";\n", from);
    if (end == std::string::npos) end = sql.size();
    PGresult* res = PQexec(conn, sql.substr(from, end - from).c_str());
    if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_EMPTY_QUERY) {
      status = Status::Error("bench.sql", std::string(PQresStatus(PQresultStatus(res))) + ": " + PQerrorMessage(conn));
    }
    PQclear(res);
  }
  PQfinish(conn);
  return status;
}
#endif

// The store at `location` holding kHistoryRuns runs; nullptr (the benchmark skips) when
// it cannot be made.
std::unique_ptr<Store> FilledStore(const std::string& location, bool postgres, std::string* why) {
  auto store = OpenStore(location);
  if (!store.ok()) {
    *why = store.status().ToString();
    return nullptr;
  }
  auto count = (*store)->RunCount();
  if (count.ok() && *count >= kHistoryRuns) return std::move(store).value();
  const auto first = (*store)->Append(BenchRun(1));
  if (!first.ok()) {
    *why = first.status().ToString();
    return nullptr;
  }
#ifdef PERFGATE_HAVE_POSTGRESQL
  const Status filled = postgres ? RunPostgresSql(location, kFillSql) : RunSqliteSql(location, kFillSql);
#else
  const Status filled = RunSqliteSql(location, kFillSql);
#endif
  if (!filled.ok()) {
    *why = filled.ToString();
    return nullptr;
  }
  return std::move(store).value();
}

Store* SharedStore(bool postgres, benchmark::State& state) {
  static std::map<bool, std::unique_ptr<Store>> stores;
  static std::map<bool, std::string> why;
  if (!stores.count(postgres)) {
    std::string location = (std::filesystem::temp_directory_path() / "perfgate-bench-history.sqlite").string();
    if (postgres) location = std::getenv("PERFGATE_BENCH_POSTGRES") ? std::getenv("PERFGATE_BENCH_POSTGRES") : "";
    if (location.empty()) why[postgres] = "set PERFGATE_BENCH_POSTGRES to a postgresql:// URL of an empty database";
    stores[postgres] = location.empty() ? nullptr : FilledStore(location, postgres, &why[postgres]);
  }
  if (!stores[postgres]) state.SkipWithError(why[postgres].c_str());
  return stores[postgres].get();
}

CheckPolicy BenchPolicy() {
  CheckPolicy policy;
  policy.recent = 5;
  return policy;
}

void BM_AppendRun(benchmark::State& state, bool postgres) {
  Store* store = SharedStore(postgres, state);
  if (!store) return;
  int64_t index = kHistoryRuns;
  for (auto _ : state) {
    state.PauseTiming();
    const Run run = BenchRun(++index);
    state.ResumeTiming();
    if (!store->Append(run).ok()) state.SkipWithError("append failed");
  }
  state.counters["figures"] = kFigures;
}

void BM_CheckRun(benchmark::State& state, bool postgres) {
  Store* store = SharedStore(postgres, state);
  if (!store) return;
  for (auto _ : state) {
    auto result = CheckHistory(*store, {"bench", "Decode", "hf2q", {}}, BenchPolicy());
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
  state.counters["series"] = kFigures;
}

// What a gate run costs: append its run, then check every series.
void BM_AppendAndCheckRun(benchmark::State& state, bool postgres) {
  Store* store = SharedStore(postgres, state);
  if (!store) return;
  int64_t index = 2 * kHistoryRuns;
  for (auto _ : state) {
    state.PauseTiming();
    const Run run = BenchRun(++index);
    state.ResumeTiming();
    if (!store->Append(run).ok()) state.SkipWithError("append failed");
    auto result = CheckHistory(*store, {"bench", "Decode", "hf2q", {}}, BenchPolicy());
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
  }
}

BENCHMARK_CAPTURE(BM_AppendRun, sqlite, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckRun, sqlite, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AppendAndCheckRun, sqlite, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AppendRun, postgresql, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckRun, postgresql, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AppendAndCheckRun, postgresql, true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfgate::history

BENCHMARK_MAIN();
