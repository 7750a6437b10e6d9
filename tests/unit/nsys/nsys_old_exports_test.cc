// Exports of older Nsight Systems versions, and exports other tools wrote into. No such
// export is in the corpus and none was found in public repositories, so each database
// is built here from the schema the format's users document (the nsys 2021 stats
// scripts and Extra-P's reader: a 2021 export has no metadata table, its GPUs in
// TARGET_INFO_CUDA_GPU beside a five-column TARGET_INFO_GPU, kernels without
// mangledName, NVTX text without textId; nsys 2022.1's metadata table is
// EXPORT_META_DATA at schema 2.9.1). Every figure asserted is computed again with SQL
// on the same file (per device: count(*) and sum(end - start) of the kernel table).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "perfgate/nsys/reader.h"
#include "support/run_command.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::nsys {
namespace {

using testing_support::MakeDatabase;
using testing_support::SqlRows;

const std::string kPid = std::to_string(int64_t{42} << 24);

// Strings and a kernel table as 2021 wrote them (no mangledName), with kernels on two
// devices, and an NVTX range whose text is inline (no textId column).
std::string KernelsOf2021() {
  return "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
         "INSERT INTO StringIds VALUES (1, 'void gemm<128>(float*)'), (2, 'gemm'), (3, 'softmax_kernel');"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
         " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,"
         " gridX INTEGER NOT NULL, blockX INTEGER NOT NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
         " (100, 350, 0, 1, 7, 11, " + kPid + ", 1, 2, 64, 128),"
         " (400, 520, 0, 1, 7, 12, " + kPid + ", 3, 3, 8, 256),"
         " (600, 1600, 1, 2, 9, 13, " + kPid + ", 1, 2, 64, 128);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
         " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
         " correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (50, 90, 0, 1, 7, 10, " + kPid + ", 4096, 1);"
         "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
         " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER);"
         "INSERT INTO NVTX_EVENTS VALUES (90, 1700, 59, NULL, NULL, NULL, 'decode', " + kPid + ");";
}

// A 2021 export (nsys 2021.2): no metadata, GPUs in TARGET_INFO_CUDA_GPU.
std::string Export2021() {
  return KernelsOf2021() +
         "CREATE TABLE TARGET_INFO_CUDA_GPU (id INTEGER NOT NULL, name TEXT NOT NULL, totalMemory INTEGER,"
         " computeCapabilityMajor INTEGER, computeCapabilityMinor INTEGER, numMultiprocessors INTEGER);"
         "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-16GB', 16945512448, 7, 0, 80),"
         " (1, 'Tesla V100-SXM2-32GB', 34089730048, 7, 0, 80);"
         "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,"
         " isDiscrete INTEGER);"
         "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'GV100', '0000:06:00.0', 1), (0, 1, 'GV100', '0000:07:00.0', 1);";
}

// Per device: (kernel count, summed ns), as perfgate read them.
std::map<int64_t, std::pair<int64_t, int64_t>> KernelsPerDevice(const NsysExport& e) {
  std::map<int64_t, std::pair<int64_t, int64_t>> out;
  for (const model::WorkItem& w : e.trace.items) {
    if (w.kind != model::WorkKind::kKernel) continue;
    out[w.device].first += 1;
    out[w.device].second += w.end_ns - w.start_ns;
  }
  return out;
}

// The same with SQL on the file.
std::map<int64_t, std::pair<int64_t, int64_t>> KernelsPerDeviceBySql(const std::string& path) {
  std::map<int64_t, std::pair<int64_t, int64_t>> out;
  for (const auto& row :
       SqlRows(path, "SELECT deviceId, count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY deviceId")) {
    out[std::stoll(row[0])] = {std::stoll(row[1]), std::stoll(row[2])};
  }
  return out;
}

TEST(NsysOldExports, Nsys2021WithoutMetadataReadsByItsTables) {
  const std::string path = MakeDatabase(Export2021());
  EXPECT_TRUE(LooksLikeNsysExport(path));
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->schema_version, "");
  EXPECT_EQ(e->trace.diagnostics.Count("nsys.unversioned_export"), 1);
  EXPECT_EQ(KernelsPerDevice(*e), KernelsPerDeviceBySql(path));
  EXPECT_EQ(KernelsPerDevice(*e).at(1), (std::pair<int64_t, int64_t>{1, 1000}));  // by hand: 1600 - 600
  // Device names come from TARGET_INFO_CUDA_GPU, not the chip names of TARGET_INFO_GPU.
  EXPECT_EQ(e->device_names, (std::map<int64_t, std::string>{{0, "Tesla V100-SXM2-16GB"}, {1, "Tesla V100-SXM2-32GB"}}));
  // A copy without ENUM_CUDA_MEMCPY_OPER is named by CUPTI's kind; NVTX text is inline.
  ASSERT_EQ(e->trace.items.size(), 4u);
  EXPECT_EQ(e->trace.items[3].name, "[CUDA memcpy Host-to-Device]");
  ASSERT_EQ(e->trace.host_spans.size(), 1u);
  EXPECT_EQ(e->trace.host_spans[0].name, "decode");
}

TEST(NsysOldExports, FiveColumnGpuTableNamesDevicesByItsId) {
  // nsys 2021.3 on: TARGET_INFO_GPU without cuDevice, and no TARGET_INFO_CUDA_GPU.
  const std::string path = MakeDatabase(KernelsOf2021() +
                                        "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL,"
                                        " name TEXT, busLocation TEXT, isDiscrete INTEGER);"
                                        "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'A100-SXM4-40GB', '0000:07:00.0', 1),"
                                        " (0, 1, 'A100-SXM4-80GB', '0000:0f:00.0', 1);");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->device_names, (std::map<int64_t, std::string>{{0, "A100-SXM4-40GB"}, {1, "A100-SXM4-80GB"}}));
  EXPECT_EQ(KernelsPerDevice(*e), KernelsPerDeviceBySql(path));
}

TEST(NsysOldExports, Nsys2022Point1MetadataTable) {
  const std::string path = MakeDatabase(
      "CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);"
      "INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1'),"
      " ('EXPORT_PRODUCT_VERSION', '2022.1.3.3-1c7b5f7'), ('EXPORT_TIME_UTC', '2022-03-08T10:11:12');" +
      Export2021());
  EXPECT_TRUE(LooksLikeNsysExport(path));
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->schema_version, "2.9.1");
  EXPECT_EQ(e->product_version, "2022.1.3.3-1c7b5f7");
  EXPECT_FALSE(e->trace.diagnostics.Has("nsys.unversioned_export"));
  EXPECT_EQ(KernelsPerDevice(*e), KernelsPerDeviceBySql(path));
  // The table's version is still checked.
  auto old = ReadNsysFile(MakeDatabase(
      "CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT); INSERT INTO EXPORT_META_DATA VALUES "
      "('EXPORT_SCHEMA_VERSION', '1.4.0');" + Export2021()));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), "nsys.unknown_schema");
  EXPECT_NE(old.status().message().find("2.x to 3.x"), std::string::npos) << old.status().message();
}

TEST(NsysOldExports, WindowsIntegratedGpuNamesNoCudaDevice) {
  // A laptop: the Intel iGPU is listed first, with no CUDA device.
  const std::string path = MakeDatabase(
      testing_support::MinimalExportSql() +
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 30, 0, 7, 1, " + kPid + ", 1);"
      "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,"
      " isDiscrete INTEGER, cuDevice INTEGER);"
      "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'Intel(R) UHD Graphics 630', NULL, 0, NULL),"
      " (0, 1, 'NVIDIA GeForce RTX 2070 with Max-Q Design', '0000:01:00.0', 1, 0);");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->device_names, (std::map<int64_t, std::string>{{0, "NVIDIA GeForce RTX 2070 with Max-Q Design"}}));
  EXPECT_EQ(e->trace.diagnostics.Count("nsys.non_cuda_gpu"), 1);
}

TEST(NsysOldExports, TablesAndViewsOfOtherToolsAreIgnored) {
  // What Extra-P writes into the export it reads: views over the kernel table, a
  // table of its own, an index; and a view over a table that no longer exists.
  const std::string path = MakeDatabase(
      Export2021() +
      "CREATE VIEW EXTRAP_GPU_INFO AS SELECT numMultiprocessors AS maxThreads FROM TARGET_INFO_CUDA_GPU;"
      "CREATE VIEW EXTRAP_CONCURRENT_KERNELS AS SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL;"
      "CREATE TABLE EXTRAP_RESOLVED_CALLPATHS AS SELECT correlationId, 'main->gemm' AS callpath"
      " FROM CUPTI_ACTIVITY_KIND_KERNEL;"
      "CREATE INDEX EXTRAP_NVTX_INDEX ON NVTX_EVENTS (globalTid, start, end);"
      "CREATE TABLE gone (x INTEGER); CREATE VIEW stale AS SELECT x FROM gone; DROP TABLE gone;");
  auto e = ReadNsysFile(path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(KernelsPerDevice(*e), KernelsPerDeviceBySql(path));
  EXPECT_EQ(e->trace.items.size(), 4u);
}

TEST(NsysOldExports, ADatabaseWithStringIdsAloneIsNoExport) {
  const std::string path = MakeDatabase("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);");
  EXPECT_FALSE(LooksLikeNsysExport(path));
  auto e = ReadNsysFile(path);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), "nsys.not_nsys_export");
}

TEST(NsysOldExports, CliAttributesA2021Export) {
  const std::string path = MakeDatabase(Export2021());
  auto r = testing_support::RunPerfgate("attribute --trace old=" + path + " --tokens 1 --device 1 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Device 1 ran one kernel of 1,000 ns (by hand: 1600 - 600): one item of 1 µs.
  const auto buckets = nlohmann::json::parse(r.out).at("engines").at("old").at("buckets");
  EXPECT_EQ(buckets.at("xs_<2us").at("median_items_per_token"), 1.0);
  EXPECT_EQ(buckets.at("xs_<2us").at("median_us_per_token"), 1.0);
  EXPECT_EQ(buckets.at("sm_2_8us").at("median_items_per_token"), 0.0);
}

}  // namespace
}  // namespace perfgate::nsys
