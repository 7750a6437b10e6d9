// SQL run on an export with SQLite itself: the independent figures the nsys tests
// compare perfgate's with, and the small hand-made databases of the error tests.
#ifndef PERFGATE_TESTS_UNIT_NSYS_SQL_UTIL_H_
#define PERFGATE_TESTS_UNIT_NSYS_SQL_UTIL_H_

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace perfgate::testing_support {

// The rows of `sql` on the file (opened read-only), every value as text ("" for NULL).
// `sql` may start with statements that build TEMP tables and indexes.
inline std::vector<std::vector<std::string>> SqlRows(const std::string& path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path;
    sqlite3_close(db);
    return rows;
  }
  char* error = nullptr;
  auto collect = [](void* out, int n, char** values, char**) {
    auto* r = static_cast<std::vector<std::vector<std::string>>*>(out);
    r->emplace_back();
    for (int i = 0; i < n; ++i) r->back().emplace_back(values[i] != nullptr ? values[i] : "");
    return 0;
  };
  if (sqlite3_exec(db, sql.c_str(), collect, &rows, &error) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << (error != nullptr ? error : "?") << "\n" << sql;
    sqlite3_free(error);
  }
  sqlite3_close(db);
  return rows;
}

// The first value of the first row of `sql`, as an integer.
inline int64_t SqlInt(const std::string& path, const std::string& sql) {
  auto rows = SqlRows(path, sql);
  if (rows.empty() || rows[0].empty()) {
    ADD_FAILURE() << "no row: " << sql;
    return -1;
  }
  return std::stoll(rows[0][0]);
}

// A fresh database at a new temporary path, built by `script`; "" on failure.
inline std::string MakeDatabase(const std::string& script) {
  static int serial = 0;
  const std::string path = (std::filesystem::temp_directory_path() / ("perfgate-nsys-" + std::to_string(::getpid()) +
                                                                      "-" + std::to_string(++serial) + ".sqlite"))
                               .string();
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  char* error = nullptr;
  // No journal and no fsync: a scratch file.
  const bool ok =
      sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
      sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;", nullptr, nullptr, &error) == SQLITE_OK &&
      sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  if (!ok) ADD_FAILURE() << "cannot build the database: " << (error != nullptr ? error : "?");
  sqlite3_free(error);
  sqlite3_close(db);
  return ok ? path : "";
}

// The smallest nsys export the reader takes: metadata, strings, and a kernel table.
inline std::string MinimalExportSql(const std::string& schema_version = "3.25.0") {
  return "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);"
         "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '" +
         schema_version +
         "');"
         "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
         "INSERT INTO StringIds VALUES (1, 'void gemm_kernel<1>(int)');"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
         " demangledName INTEGER NOT NULL);";
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_NSYS_SQL_UTIL_H_
