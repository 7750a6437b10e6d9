// The nsys reader on the two real exports of shared/corpus/nsys: every figure is
// compared with the same figure computed by plain SQL on the same file (SqlInt), never
// with a number copied from perfgate's output.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>

#include "perfgate/attribution/kernel_families.h"
#include "perfgate/attribution/work.h"
#include "perfgate/nsys/reader.h"
#include "support/corpus.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::nsys {
namespace {

using model::WorkItem;
using model::WorkKind;
using testing_support::SqlInt;
using testing_support::SqlRows;

// The pid of a serialized GlobalId column, in SQL.
std::string SqlPid(const std::string& column) { return "((" + column + " >> 24) & 16777215)"; }

struct DeviceFigures {
  int64_t kernels = 0;
  int64_t kernel_ns = 0;
  int64_t memcpys = 0;
  int64_t memsets = 0;
  std::set<std::string> names;
};

std::map<int64_t, DeviceFigures> PerDevice(const model::WorkSet& trace) {
  std::map<int64_t, DeviceFigures> out;
  for (const model::WorkItem& w : trace.items) {
    DeviceFigures& d = out[w.device];
    if (w.kind == model::WorkKind::kKernel) {
      ++d.kernels;
      d.kernel_ns += w.duration_ns();
      d.names.insert(w.name);
    }
    d.memcpys += w.kind == model::WorkKind::kMemcpy;
    d.memsets += w.kind == model::WorkKind::kMemset;
  }
  return out;
}

// The same figures by SQL, per deviceId.
void ExpectDeviceFiguresMatchSql(const std::string& path, const std::map<int64_t, DeviceFigures>& got,
                                 bool has_memset_table) {
  const auto devices = SqlRows(path, "SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1");
  ASSERT_EQ(got.size(), devices.size());
  for (const auto& row : devices) {
    const std::string d = row[0];
    SCOPED_TRACE("device " + d);
    const DeviceFigures& f = got.at(std::stoll(d));
    const std::string where = " WHERE deviceId = " + d;
    EXPECT_EQ(f.kernels, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL" + where));
    EXPECT_EQ(f.kernel_ns, SqlInt(path, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL" + where));
    EXPECT_EQ(static_cast<int64_t>(f.names.size()),
              SqlInt(path, "SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL" + where));
    EXPECT_EQ(f.memcpys, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY" + where));
    EXPECT_EQ(f.memsets,
              has_memset_table ? SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET" + where) : 0);
  }
}

// Kernels of `device` joined to a runtime call: by SQL, on (pid, correlationId); by
// the reader, on the remapped correlation id.
int64_t JoinedKernelsBySql(const std::string& path, int64_t device) {
  return SqlInt(path,
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r"
                " ON r.correlationId = k.correlationId AND " +
                    SqlPid("r.globalTid") + " = " + SqlPid("k.globalPid") +
                    " WHERE k.deviceId = " + std::to_string(device));
}

int64_t JoinedKernels(const model::WorkSet& trace, int64_t device) {
  std::set<int64_t> launched;
  for (const auto& r : trace.host_calls) {
    if (r.correlation) launched.insert(*r.correlation);
  }
  int64_t n = 0;
  for (const model::WorkItem& w : trace.items) {
    n += w.kind == model::WorkKind::kKernel && w.device == device && w.correlation && launched.count(*w.correlation);
  }
  return n;
}

TEST(NsysCorpus, MockExportMatchesSql) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "nsys/mock.sqlite");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->schema_version, "3.24.14");
  EXPECT_EQ(e->product_version, "2026.1.1.204");
  ExpectDeviceFiguresMatchSql(path, PerDevice(e->trace), /*has_memset_table=*/false);
  EXPECT_EQ(PerDevice(e->trace).at(0).kernels, 2);  // the corpus README's count
  EXPECT_EQ(static_cast<int64_t>(e->trace.host_calls.size()),
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
  EXPECT_EQ(e->trace.host_calls.size(), 9u);
  int64_t driver = 0;
  for (const auto& r : e->trace.host_calls) driver += r.driver;
  // eventClass 1 is TRACE_PROCESS_EVENT_CUDA_DRIVER (cuModuleGetLoadingMode here).
  EXPECT_EQ(driver, SqlInt(path,
                           "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN ENUM_NSYS_EVENT_CLASS c"
                           " ON c.id = r.eventClass WHERE c.name = 'TRACE_PROCESS_EVENT_CUDA_DRIVER'"));
  EXPECT_EQ(driver, 1);
  EXPECT_EQ(JoinedKernels(e->trace, 0), JoinedKernelsBySql(path, 0));
  // No NVTX_EVENTS and no memset table: fine, and counted.
  EXPECT_TRUE(e->trace.host_spans.empty());
  const auto* absent = e->trace.diagnostics.Find("nsys.absent_table");
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(absent->count, 2);  // CUPTI_ACTIVITY_KIND_MEMSET, NVTX_EVENTS
  EXPECT_EQ(e->device_names.at(0), SqlRows(path, "SELECT name FROM TARGET_INFO_GPU")[0][0]);
  EXPECT_EQ(e->device_names.at(0), "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(e->session_start_utc_ns, SqlInt(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"));
  const int64_t pid = SqlInt(path, "SELECT DISTINCT " + SqlPid("globalPid") + " FROM CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_EQ(e->trace.process_names.at(pid),
            SqlRows(path, "SELECT name FROM PROCESSES WHERE pid = " + std::to_string(pid))[0][0]);
  for (const model::WorkItem& w : e->trace.items) EXPECT_EQ(w.pid, pid);
}

TEST(NsysCorpus, H100ExportPerDeviceMatchesSql) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "nsys/h100_2gpu_1s.sqlite");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->schema_version, "3.25.0");
  const auto per_device = PerDevice(e->trace);
  ExpectDeviceFiguresMatchSql(path, per_device, /*has_memset_table=*/true);
  EXPECT_EQ(per_device.at(0).kernels + per_device.at(1).kernels, 3442);  // the corpus README's count
  EXPECT_EQ(static_cast<int64_t>(e->trace.host_calls.size()),
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
  for (int64_t device : {0, 1}) {
    SCOPED_TRACE(device);
    EXPECT_EQ(JoinedKernels(e->trace, device), JoinedKernelsBySql(path, device));
  }
  // 16,782 push/pop ranges, all named by PyTorch's emit_nvtx ("aten::mm, op_id = N").
  EXPECT_EQ(static_cast<int64_t>(e->trace.host_spans.size()),
            SqlInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL"));
  EXPECT_EQ(e->trace.host_spans.size(), 16782u);
  EXPECT_EQ(e->trace.diagnostics.Count("nsys.pytorch_nvtx_suffix"),
            SqlInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE '%, op_id = %'"));
  // The label the tests and the suite use, per process.
  for (const auto& row : SqlRows(path, "SELECT DISTINCT " + SqlPid("globalTid") + " FROM NVTX_EVENTS")) {
    const int64_t pid = std::stoll(row[0]);
    SCOPED_TRACE(pid);
    int64_t mm = 0;
    for (const auto& a : e->trace.host_spans) mm += a.pid == pid && a.name == "aten::mm";
    EXPECT_EQ(mm, SqlInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE text LIKE 'aten::mm, op_id = %' AND " +
                                   SqlPid("globalTid") + " = " + row[0]));
    EXPECT_EQ(e->trace.process_names.at(pid), "python3");
  }
  // No TARGET_INFO_GPU / TARGET_INFO_CUDA_DEVICE in this export: no names, counted.
  EXPECT_TRUE(e->device_names.empty());
  const auto* absent = e->trace.diagnostics.Find("nsys.absent_table");
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(absent->first_detail, "TARGET_INFO_GPU");
  EXPECT_FALSE(e->trace.diagnostics.Has("nsys.unknown_string"));
  EXPECT_FALSE(e->trace.diagnostics.Has("nsys.bad_interval"));
}

TEST(NsysCorpus, CorrelationIdsArePerProcess) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "nsys/h100_2gpu_1s.sqlite");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  // Kernels whose correlationId matches a runtime call of another process only: joined
  // on the id alone they would get a foreign launch.
  const int64_t foreign =
      SqlInt(path,
             "CREATE TEMP TABLE rt AS SELECT correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
             " CREATE INDEX temp.rt_correlation ON rt (correlationId);"
             "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM rt r"
             " WHERE r.correlationId = k.correlationId) AND NOT EXISTS (SELECT 1 FROM rt r"
             " WHERE r.correlationId = k.correlationId AND " +
                 SqlPid("r.globalTid") + " = " + SqlPid("k.globalPid") + ")");
  EXPECT_GT(foreign, 0);  // the file has such ids, so the test can fail
  std::map<int64_t, int64_t> launch_pid;
  for (const auto& r : e->trace.host_calls) {
    if (r.correlation) launch_pid[*r.correlation] = r.pid;
  }
  for (const model::WorkItem& w : e->trace.items) {
    auto it = w.correlation ? launch_pid.find(*w.correlation) : launch_pid.end();
    if (it != launch_pid.end()) {
      EXPECT_EQ(it->second, w.pid);
    }
  }
}

TEST(NsysCorpus, SniffsExportsOnly) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "nsys/mock.sqlite");
  EXPECT_TRUE(LooksLikeNsysExport(path));
  const std::string plain = testing_support::MakeDatabase("CREATE TABLE t (x INTEGER);");
  EXPECT_FALSE(LooksLikeNsysExport(plain));
  EXPECT_FALSE(LooksLikeNsysExport(std::string(PERFGATE_SOURCE_DIR) + "/README.md"));
  EXPECT_FALSE(LooksLikeNsysExport(std::string(PERFGATE_SOURCE_DIR)));
  // A FIFO is never opened (the open would wait for a writer).
  const std::string fifo = plain + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(LooksLikeNsysExport(fifo));
  EXPECT_EQ(ReadNsysFile(fifo).status().code(), "io.not_a_file");
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace perfgate::nsys

namespace perfgate::nsys {
namespace {

// The reader keeps the demangled name and lets attribution::CanonicalKernelName make
// the display name, as for Kineto traces; on the corpus exports it is nsys's own
// shortName for every distinct kernel.
TEST(NsysCorpus, DisplayNamesAreNsysShortNames) {
  for (const char* file : {"nsys/mock.sqlite", "nsys/h100_2gpu_1s.sqlite"}) {
    SCOPED_TRACE(file);
    PERFGATE_CORPUS_FILE_OR_SKIP(path, file);
    const auto rows = SqlRows(path,
                              "SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k"
                              " JOIN StringIds d ON d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName");
    ASSERT_FALSE(rows.empty());
    for (const auto& row : rows) EXPECT_EQ(attribution::CanonicalKernelName(row[0]), row[1]) << row[0];
  }
}

}  // namespace
}  // namespace perfgate::nsys
