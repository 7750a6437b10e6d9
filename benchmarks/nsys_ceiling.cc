#include "nsys_ceiling.h"

#include <benchmark/benchmark.h>
#include <sqlite3.h>

namespace perfgate::bench {
namespace {

// Steps every row of each query on the export (opened read-only, immutable).
template <size_t N>
int64_t StepRows(const std::string& path, const char* const (&queries)[N]) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return -1;
  }
  int64_t rows = 0;
  for (const char* sql : queries) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
      rows = -1;
      break;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      ++rows;
      for (int i = 0; i < sqlite3_column_count(st); ++i) benchmark::DoNotOptimize(sqlite3_column_int64(st, i));
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return rows;
}

}  // namespace

int64_t ScanNsysEventTables(const std::string& path) {
  static const char* const kQueries[] = {
      "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL",
      "SELECT start, end, deviceId, streamId, correlationId, globalPid, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
      "SELECT start, end, deviceId, streamId, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET",
      "SELECT start, end, eventClass, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME",
      "SELECT start, end, eventType, text, textId, globalTid FROM NVTX_EVENTS"};
  return StepRows(path, kQueries);
}

int64_t JoinNsysKernelsToLaunches(const std::string& path) {
  // Correlation ids are per process: globalPid is globalTid with the thread's 24 bits
  // cleared. No index on correlationId in an export: SQLite builds an automatic one.
  static const char* const kQueries[] = {
      "SELECT k.start, k.end, k.deviceId, k.streamId, k.demangledName, r.start, r.globalTid "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
      "ON r.correlationId = k.correlationId AND r.globalTid / 16777216 = k.globalPid / 16777216"};
  return StepRows(path, kQueries);
}

}  // namespace perfgate::bench
