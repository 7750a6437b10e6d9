// Hostile and damaged nsys exports: what SQLite would run for the reader (views,
// generated columns, work without end), files that are not the committed export
// (cut short, grown, beside a journal or a log), and impossible rows. Each is a clear
// error or a named, counted diagnostic, and nothing runs without bound.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/sqlite_db.h"
#include "perfgate/nsys/reader.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::nsys {
namespace {

using testing_support::MakeDatabase;
using testing_support::MinimalExportSql;

const std::string kHostilePid = std::to_string(int64_t{9} << 24);

std::string Kernel(int64_t start, int64_t end, int stream = 7, int correlation = 1, int name = 1) {
  return "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(start) + ", " + std::to_string(end) +
         ", 0, " + std::to_string(stream) + ", " + std::to_string(correlation) + ", " + kHostilePid + ", " +
         std::to_string(name) + ");";
}

Status ReadError(const std::string& path) {
  auto e = ReadNsysFile(path);
  return e.ok() ? Status() : e.status();
}

// A kernel table swapped for a view over an endless recursive query: refused at once.
TEST(NsysHostile, ViewsAreNotRead) {
  const std::string path = MakeDatabase(
      MinimalExportSql() + "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
      "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
      " SELECT i AS start, i + 1 AS end, 0 AS deviceId, 7 AS streamId, i AS correlationId, 1 AS globalPid,"
      " 1 AS demangledName FROM n;");
  const Status s = ReadError(path);
  EXPECT_EQ(s.code(), "nsys.bad_table");
  EXPECT_NE(s.message().find("CUPTI_ACTIVITY_KIND_KERNEL is a view"), std::string::npos) << s.message();
  // An optional table too.
  const Status runtime = ReadError(MakeDatabase(MinimalExportSql() + Kernel(1, 2) +
                                                "CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT 1 AS start;"));
  EXPECT_EQ(runtime.code(), "nsys.bad_table");
}

TEST(NsysHostile, GeneratedColumnsAreNotRead) {
  const std::string path = MakeDatabase(
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0');"
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "INSERT INTO StringIds VALUES (1, 'k');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER GENERATED ALWAYS AS (start + 5) VIRTUAL,"
      " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, deviceId, streamId, correlationId, globalPid, demangledName)"
      " VALUES (1, 0, 7, 1, " + kHostilePid + ", 1);");
  const Status s = ReadError(path);
  EXPECT_EQ(s.code(), "nsys.bad_table");
  EXPECT_NE(s.message().find("CUPTI_ACTIVITY_KIND_KERNEL.end is a generated column"), std::string::npos)
      << s.message();
}

// The backstop: whatever statement runs on a connection stops once SQLite has worked
// past the file's size (here a query of the caller's own, since the reader's never do).
TEST(NsysHostile, WorkOnAConnectionIsBoundedByTheFile) {
  const std::string path = MakeDatabase("CREATE TABLE t (x INTEGER);");
  auto db = internal::Database::Open(path, {"t.not_sqlite", "t.bad_table", "t.uncommitted"});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto st = db->Prepare("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n");
  ASSERT_TRUE(st.ok());
  auto row = st->Next();
  ASSERT_FALSE(row.ok());
  EXPECT_EQ(row.status().code(), "t.bad_table");
  EXPECT_NE(row.status().message().find("worked past"), std::string::npos) << row.status().message();
}

TEST(NsysHostile, AFileThatIsNotTheCommittedExportIsRefused) {
  const std::string good = MakeDatabase(MinimalExportSql() + Kernel(1, 2));
  ASSERT_TRUE(ReadNsysFile(good).ok());
  const auto size = std::filesystem::file_size(good);
  auto copy_with = [&](const std::string& name, uintmax_t new_size) {
    const std::string path = good + "." + name + ".sqlite";
    std::filesystem::copy_file(good, path, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(path, new_size);
    return path;
  };
  for (const auto& [name, new_size] : {std::pair{"cut", size - 1}, {"grown", size + 2}, {"page_short", size - 4096}}) {
    SCOPED_TRACE(name);
    const Status s = ReadError(copy_with(name, new_size));
    EXPECT_EQ(s.code(), "nsys.uncommitted") << s.ToString();
  }
  for (const char* sidecar : {"-journal", "-wal"}) {
    SCOPED_TRACE(sidecar);
    const std::string path = copy_with(std::string("side") + sidecar, size);
    std::ofstream(path + sidecar, std::ios::binary) << std::string(512, '\x01');
    const Status s = ReadError(path);
    EXPECT_EQ(s.code(), "nsys.uncommitted");
    EXPECT_NE(s.message().find(path + sidecar), std::string::npos) << s.message();
    std::filesystem::resize_file(path + sidecar, 0);  // an empty one holds nothing
    EXPECT_TRUE(ReadNsysFile(path).ok());
  }
}

TEST(NsysHostile, ImpossibleRowsAreCounted) {
  const int64_t far = int64_t{1} << 62;
  const std::string path = MakeDatabase(
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0');"
      "CREATE TABLE StringIds (id INTEGER, value TEXT);"  // no primary key: ids may repeat
      "INSERT INTO StringIds VALUES (1, 'gemm'), (1, 'not gemm'), (NULL, 'orphan'), (2, 'norm');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
      " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);" +
      Kernel(100, 200) + Kernel(100, 200) +        // one row twice
      Kernel(150, 300, 7, 2, 2) +                   // starts inside the first on its stream
      Kernel(0, far, 8, 3) +                        // a 2^62 ns kernel
      Kernel(-far, 10, 8, 4) + Kernel(400, 500, 9, 5));
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& d = e->trace.diagnostics;
  EXPECT_EQ(d.Count("nsys.duplicate_row"), 1);
  EXPECT_EQ(d.Count("nsys.stream_overlap"), 1);
  EXPECT_EQ(d.Count("nsys.bad_interval"), 2);
  EXPECT_EQ(d.Count("nsys.bad_string"), 2);
  ASSERT_EQ(e->trace.items.size(), 3u);  // by hand: 6 rows, one copy and two beyond 2^61 dropped
  EXPECT_EQ(e->trace.items[0].name, "gemm");  // the first text of id 1
}

TEST(NsysHostile, OneLongNameOnManyKernelsIsBoundedByTheFile) {
  std::string sql = MinimalExportSql() + "UPDATE StringIds SET value = printf('%.*c', 1048576, 'x') WHERE id = 1;";
  for (int i = 0; i < 100; ++i) sql += Kernel(i * 10, i * 10 + 5, 7, i + 1);
  const Status s = ReadError(MakeDatabase(sql));
  EXPECT_EQ(s.code(), "nsys.too_large");
}

}  // namespace
}  // namespace perfgate::nsys
