// Bad input to the nsys reader: every case is an error with its code and a message
// naming the file, or a counted diagnostic; never a crash. The databases are made here
// with SQLite (MakeDatabase).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "perfgate/nsys/reader.h"
#include "support/run_command.h"
#include "unit/core/as_nobody.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::nsys {
namespace {

using testing_support::MakeDatabase;
using testing_support::MinimalExportSql;

std::string WriteFile(const std::string& bytes) { return testing_support::WriteTempFile(bytes, ".sqlite"); }

// The error code of reading `path`, with the message checked to name the file.
std::string ErrorCode(const std::string& path) {
  auto e = ReadNsysFile(path);
  if (e.ok()) return "ok";
  EXPECT_EQ(e.status().location().path, path) << e.status().ToString();
  return e.status().code();
}

TEST(NsysErrors, NotSqlite) {
  EXPECT_EQ(ErrorCode(WriteFile("{\"traceEvents\": []}")), "nsys.not_sqlite");
  EXPECT_EQ(ErrorCode(WriteFile("")), "nsys.not_sqlite");
  // The magic, then no valid database header.
  EXPECT_EQ(ErrorCode(WriteFile(std::string("SQLite format 3\0", 16) + std::string(200, 'x'))), "nsys.not_sqlite");
}

TEST(NsysErrors, SqliteButNotAnNsysExport) {
  const std::string plain = MakeDatabase("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  EXPECT_EQ(ErrorCode(plain), "nsys.not_nsys_export");
  const std::string no_version = MakeDatabase(
      "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT); INSERT INTO META_DATA_EXPORT VALUES "
      "('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems');");
  EXPECT_EQ(ErrorCode(no_version), "nsys.not_nsys_export");
}

TEST(NsysErrors, UnknownSchemaVersion) {
  for (const char* version : {"4.0.0", "1.9.0", "three", ""}) {
    SCOPED_TRACE(version);
    const std::string path = MakeDatabase(MinimalExportSql(version));
    auto e = ReadNsysFile(path);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), "nsys.unknown_schema");
    EXPECT_NE(e.status().message().find("'" + std::string(version) + "'"), std::string::npos) << e.status().message();
  }
  EXPECT_EQ(ErrorCode(MakeDatabase(MinimalExportSql("3.99.7"))), "ok");  // any 3.x reads
  EXPECT_EQ(ErrorCode(MakeDatabase(MinimalExportSql("2.9.1"))), "ok");   // and 2.x
}

TEST(NsysErrors, RequiredTableMissing) {
  const std::string path = MakeDatabase(MinimalExportSql() + "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;");
  auto e = ReadNsysFile(path);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), "nsys.missing_table");
  EXPECT_NE(e.status().message().find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << e.status().message();
  EXPECT_EQ(ErrorCode(MakeDatabase(MinimalExportSql() + "DROP TABLE StringIds;")), "nsys.missing_table");
}

TEST(NsysErrors, RequiredColumnMissing) {
  const std::string path =
      MakeDatabase(MinimalExportSql() + "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName;");
  auto e = ReadNsysFile(path);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), "nsys.bad_table");
  EXPECT_NE(e.status().message().find("demangledName"), std::string::npos) << e.status().message();
}

TEST(NsysErrors, UnreadableFiles) {
  EXPECT_EQ(ErrorCode("/nonexistent/perfgate/trace.sqlite"), "io.not_found");
  EXPECT_EQ(ErrorCode(std::filesystem::temp_directory_path().string()), "io.not_a_file");
  const std::string locked = MakeDatabase(MinimalExportSql());
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  EXPECT_EQ(testing_support::AsUnprivileged([&] {
              auto e = ReadNsysFile(locked);
              return e.ok() ? std::string("ok") : e.status().code();
            }),
            "io.permission_denied");
}

// Rows that cannot be mapped are counted and named, never dropped silently.
TEST(NsysErrors, BadRowsAreCounted) {
  const int64_t g = (int64_t{1} << 48) | (int64_t{77} << 24);  // pid 77
  const std::string gp = std::to_string(g);
  const std::string path = MakeDatabase(
      MinimalExportSql() + "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 5, " + gp +
      ", 1);"  // fine
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 250, 0, 7, 6, " +
      gp +
      ", 1);"                                                                            // end before start
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (400, 500, 0, 7, NULL, NULL, 99);"  // no ids, no name
      // Text in the integer columns reads as NULL: no device, no stream (never 0).
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (510, 520, 'gpu?', 7, 7, " + gp + ", 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (530, 540, 0, 'stream?', 8, " + gp + ", 1);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,"
      " textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (50, 600, 59, 'step', NULL, " +
      std::to_string(g + 3) +
      ");"
      "INSERT INTO NVTX_EVENTS VALUES (60, NULL, 59, 'open', NULL, " +
      gp +
      ");"  // never closed
      "INSERT INTO NVTX_EVENTS VALUES (70, NULL, 34, 'mark', NULL, " +
      gp + ");");  // a mark
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& t = e->trace;
  ASSERT_EQ(t.items.size(), 2u);
  EXPECT_EQ(t.items[0].pid, 77);
  EXPECT_EQ(t.items[1].name, "(string 99)");
  EXPECT_EQ(t.diagnostics.Count("nsys.bad_interval"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.unknown_string"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.missing_correlation"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.unknown_process"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.unknown_device"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.unknown_stream"), 1);
  for (const auto& w : t.items) EXPECT_TRUE(w.start_ns != 510 && w.start_ns != 530) << w.start_ns;
  EXPECT_EQ(t.items[0].process, 77);
  EXPECT_FALSE(t.items[1].process.has_value());  // NULL globalPid: no owner, not pid 0
  EXPECT_EQ(t.diagnostics.Count("nsys.unclosed_nvtx"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.skipped_nvtx"), 1);
  ASSERT_EQ(t.host_spans.size(), 1u);
  EXPECT_EQ(t.host_spans[0].name, "step");
  EXPECT_EQ(t.host_spans[0].pid, 77);
  EXPECT_EQ(t.host_spans[0].tid, 3);
  EXPECT_EQ(e->rows, 8);
}

// A NULL demangledName falls back to the kernel's shortName, counted; with neither it
// is "(unnamed)", counted as before.
TEST(NsysErrors, NullDemangledNameFallsBackToShortName) {
  std::string sql = MinimalExportSql();
  const std::string strict = " demangledName INTEGER NOT NULL);";
  ASSERT_NE(sql.find(strict), std::string::npos);
  sql.replace(sql.find(strict), strict.size(), " demangledName INTEGER, shortName INTEGER);");
  const std::string kernel = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ";
  const std::string path = MakeDatabase(sql + "INSERT INTO StringIds VALUES (2, 'gemm_kernel');" + kernel +
                                        "(100, 200, 0, 7, 1, 1, 1, 2);" + kernel + "(300, 400, 0, 7, 2, 1, NULL, 2);" +
                                        kernel + "(500, 600, 0, 7, 3, 1, NULL, NULL);");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& t = e->trace;
  ASSERT_EQ(t.items.size(), 3u);
  EXPECT_EQ(t.items[0].name, "void gemm_kernel<1>(int)");
  EXPECT_EQ(t.items[1].name, "gemm_kernel");
  EXPECT_EQ(t.items[2].name, "(unnamed)");
  EXPECT_EQ(t.diagnostics.Count("nsys.short_name_only"), 1);
  EXPECT_EQ(t.diagnostics.Count("nsys.unknown_string"), 1);
}

// The rarer shapes of good rows: start/end ranges named through StringIds, PyTorch's
// decorated names, driver calls without the enum table, a repeated correlation id,
// copies named without the enum table.
TEST(NsysReader, RangesCallsAndCopiesOfEveryShape) {
  const int64_t g = int64_t{5} << 24;  // pid 5, thread 0
  const std::string gp = std::to_string(g);
  const std::string path = MakeDatabase(
      MinimalExportSql() + "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, 5, " + gp + ", 1);" +
      "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,"
      " textId INTEGER, globalTid INTEGER);"
      "INSERT INTO NVTX_EVENTS VALUES (10, 900, 60, NULL, 1, " + gp + ");"
      "INSERT INTO NVTX_EVENTS VALUES (20, 800, 59, 'aten::mm, seq = 3, op_id = 9, sizes = [[2, 2]]', NULL, " + gp +
      ");"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER"
      " NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);"
      "INSERT INTO StringIds VALUES (2, 'cuLaunchKernel');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (30, 40, 1, " + gp + ", 5, 2);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (50, 60, 0, " + gp + ", 5, 2);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"
      " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, copyKind INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (300, 310, 0, 7, 8, " + gp + ", 1);");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& t = e->trace;
  ASSERT_EQ(t.host_spans.size(), 2u);
  EXPECT_EQ(t.host_spans[0].name, "void gemm_kernel<1>(int)");  // textId 1
  EXPECT_EQ(t.host_spans[1].name, "aten::mm");
  EXPECT_EQ(t.diagnostics.Count("nsys.pytorch_nvtx_suffix"), 1);
  ASSERT_EQ(t.host_calls.size(), 2u);
  EXPECT_TRUE(t.host_calls[0].driver);  // eventClass 1 without ENUM_NSYS_EVENT_CLASS
  EXPECT_FALSE(t.host_calls[1].driver);
  EXPECT_EQ(t.host_calls[0].correlation, t.items[0].correlation);
  EXPECT_EQ(t.diagnostics.Count("nsys.duplicate_correlation"), 1);
  ASSERT_EQ(t.items.size(), 2u);
  EXPECT_EQ(t.items[1].name, "[CUDA memcpy Host-to-Device]");  // CUPTI's kind 1, without ENUM_CUDA_MEMCPY_OPER
  EXPECT_NE(t.items[1].correlation, t.items[0].correlation);
  EXPECT_EQ(t.event_kinds.at("NVTX_EVENTS"), 2);
  EXPECT_EQ(t.event_kinds.at("CUPTI_ACTIVITY_KIND_RUNTIME"), 2);
}

// Correlation ids that cannot be packed with their process (negative, or 2^39 and
// more) still join each kernel to the call of its own process and of no other, and
// an id repeated out of order is still found (the rows below, by hand: pid 5 calls
// 7, 2^40, -3, 7; pid 6 calls -3 and 2^40).
TEST(NsysReader, UnpackableCorrelationIdsStillJoinWithinTheirProcess) {
  const std::string p5 = std::to_string(int64_t{5} << 24), p6 = std::to_string(int64_t{6} << 24);
  const std::string big = std::to_string(int64_t{1} << 40);
  auto kernel = [](const std::string& corr, const std::string& gp) {
    return "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 7, " + corr + ", " + gp + ", 1);";
  };
  auto call = [](const std::string& corr, const std::string& gp) {
    return "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (30, 40, 0, " + gp + ", " + corr + ", 1);";
  };
  const std::string path = MakeDatabase(
      MinimalExportSql() + kernel("-3", p5) + kernel(big, p5) + kernel("-3", p6) + kernel(big, p6) +
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER"
      " NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);" +
      call("7", p5) + call(big, p5) + call("-3", p5) + call("7", p5) + call("-3", p6) + call(big, p6));
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& t = e->trace;
  ASSERT_EQ(t.items.size(), 4u);
  ASSERT_EQ(t.host_calls.size(), 6u);
  EXPECT_EQ(t.items[0].correlation, t.host_calls[2].correlation);  // pid 5, -3
  EXPECT_EQ(t.items[1].correlation, t.host_calls[1].correlation);  // pid 5, 2^40
  EXPECT_EQ(t.items[2].correlation, t.host_calls[4].correlation);  // pid 6, -3
  EXPECT_EQ(t.items[3].correlation, t.host_calls[5].correlation);  // pid 6, 2^40
  std::set<int64_t> distinct;
  for (const auto& r : t.host_calls) distinct.insert(*r.correlation);
  EXPECT_EQ(distinct.size(), 5u);  // the repeated 7 of pid 5 is one
  EXPECT_EQ(t.diagnostics.Count("nsys.duplicate_correlation"), 1);
  ASSERT_NE(t.diagnostics.Find("nsys.duplicate_correlation"), nullptr);
  EXPECT_EQ(t.diagnostics.Find("nsys.duplicate_correlation")->first_detail, "correlation 7 in process 5");
}

TEST(NsysErrors, CliExitsTwoWithTheCode) {
  const std::string plain = MakeDatabase("CREATE TABLE t (x INTEGER);");
  auto r = testing_support::RunPerfgate("attribute --trace e=" + plain + " --tokens 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(plain + ": error[nsys.not_nsys_export]"), std::string::npos) << r.err;
  const std::string future = MakeDatabase(MinimalExportSql("4.0.0"));
  r = testing_support::RunPerfgate("attribute --trace e=" + future + " --tokens 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(future + ": error[nsys.unknown_schema]"), std::string::npos) << r.err;
  const std::string empty = MakeDatabase(MinimalExportSql());
  r = testing_support::RunPerfgate("attribute --trace e=" + empty + " --tokens 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[attr.no_target_rows]"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perfgate::nsys
