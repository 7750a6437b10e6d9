// nsys trials through the source list (sources::FindSource("nsys")) and the CLI:
// devices, processes, NVTX labels as tokens and windows. Expected figures come from
// plain SQL on the same export.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "perfgate/nsys/reader.h"
#include "perfgate/sources/source.h"
#include "support/corpus.h"
#include "support/run_command.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::nsys {
namespace {

using attribution::AttributionOptions;
using testing_support::SqlInt;

constexpr const char* kH100 = "nsys/h100_2gpu_1s.sqlite";

std::string Pid(const std::string& column) { return "((" + column + " >> 24) & 16777215)"; }

// Kernels joined to their launch call on (pid, correlationId), with the call's name.
const std::string kKernelLaunch =
    "CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND " +
    Pid("r.globalTid") + " = " + Pid("k.globalPid") + " LEFT JOIN StringIds rn ON rn.id = r.nameId";

StatusOr<attribution::TrialSummary> Summarize(const std::string& path, AttributionOptions options) {
  auto source = sources::FindSource("nsys");
  if (!source.ok()) return source.status();
  EXPECT_EQ(sources::SniffSource(path), *source);
  return (*source)->summarize(path, sources::WithDefaultProcessFilter(**source, "engine", options));
}

AttributionOptions OnDevice(int64_t device) {
  AttributionOptions o;
  o.tokens = 1;
  o.device = device;
  return o;
}

TEST(NsysTrial, SeveralDevicesWithoutAChoiceIsAnError) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  AttributionOptions o;
  o.tokens = 1;
  auto s = Summarize(path, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.several_devices");
  for (int device : {0, 1}) {
    const int64_t n =
        SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = " + std::to_string(device));
    EXPECT_NE(s.status().message().find(std::to_string(device) + ": " + std::to_string(n) + " kernels"),
              std::string::npos)
        << s.status().message();
  }
}

TEST(NsysTrial, PerDeviceFiguresMatchSql) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  for (int device : {0, 1}) {
    SCOPED_TRACE(device);
    auto s = Summarize(path, OnDevice(device));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const std::string d = std::to_string(device);
    const std::string on = " WHERE deviceId = " + d;
    EXPECT_EQ(s->source, "nsys");
    EXPECT_EQ(s->items, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL" + on));
    EXPECT_EQ(s->total_sum_ns, SqlInt(path, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL" + on));
    EXPECT_EQ(static_cast<int64_t>(s->kernels.size()),
              SqlInt(path, "SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL" + on));
    EXPECT_EQ(s->extras.at("memcpys"), SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY" + on));
    EXPECT_EQ(s->extras.at("memsets"), SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET" + on));
    EXPECT_EQ(s->extras.at("memcpy_ns"), SqlInt(path, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY" + on));
    // Distinct launch calls behind the device's kernels, by kind (LaunchKernel,
    // GraphLaunch, anything else), and the kernels without one in the capture.
    const std::string launches = "SELECT count(DISTINCT r.rowid) FROM " + kKernelLaunch + " WHERE k.deviceId = " + d;
    EXPECT_EQ(s->extras.at("kernel_launches"), SqlInt(path, launches + " AND rn.value LIKE '%LaunchKernel%'"));
    EXPECT_EQ(s->extras.at("graph_launches"), SqlInt(path, launches + " AND rn.value LIKE '%GraphLaunch%'"));
    EXPECT_EQ(s->extras.at("other_launches"),
              SqlInt(path, launches + " AND rn.value NOT LIKE '%LaunchKernel%' AND rn.value NOT LIKE '%GraphLaunch%'"));
    EXPECT_EQ(
        s->extras.at("unlaunched_kernels"),
        SqlInt(path, "SELECT count(*) FROM " + kKernelLaunch + " WHERE k.deviceId = " + d + " AND r.rowid IS NULL"));
    EXPECT_EQ(s->diagnostics.Count("attr.other_device"),
              SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId <> " + d));
  }
}

TEST(NsysTrial, ProcessByPid) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  // pid 111 ran on device 0 only, so no device needs choosing.
  AttributionOptions o;
  o.tokens = 1;
  o.process_id = 111;
  auto s = Summarize(path, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items,
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE " + Pid("globalPid") + " = 111"));
  EXPECT_EQ(s->excluded_other_process,
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE " + Pid("globalPid") + " <> 111"));
  // Kernels whose launch call precedes the capture stay with their process.
  EXPECT_GT(s->extras.at("unlaunched_kernels"), 0);
  // pid 112 never used device 0.
  o = OnDevice(0);
  o.process_id = 112;
  auto none = Summarize(path, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "attr.no_target_rows");
  o.process_id = 4242;
  none = Summarize(path, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "attr.no_target_rows");
  EXPECT_NE(none.status().message().find("python3 (111) x1721"), std::string::npos) << none.status().message();
}

// Kernels of two processes on one device, in an export with no PROCESSES and no
// runtime table: each kernel's process is its globalPid. Without a choice they are
// an error naming both; pid:N alone picks one; --all-processes sums them, counted.
TEST(NsysTrial, SeveralProcessesWithoutAChoiceIsAnError) {
  auto gpid = [](int64_t pid) { return std::to_string((int64_t{1} << 48) | (pid << 24)); };
  auto kernel = [](int64_t start, const std::string& correlation, const std::string& global_pid) {
    return "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(start) + ", " +
           std::to_string(start + 50) + ", 0, 7, " + correlation + ", " + global_pid + ", 1);";
  };
  const std::string path = testing_support::MakeDatabase(testing_support::MinimalExportSql() +
                                                         kernel(100, "1", gpid(77)) + kernel(200, "2", gpid(77)) +
                                                         kernel(300, "1", gpid(78)));
  AttributionOptions o;
  o.tokens = 1;
  auto none = Summarize(path, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "attr.several_processes");
  EXPECT_EQ(none.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(none.status().message().find("(unnamed) (77): 2 kernels, (unnamed) (78): 1 kernels"), std::string::npos)
      << none.status().message();
  o.process_id = 77;  // no PROCESSES table: the id alone still chooses
  auto one = Summarize(path, o);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->items, 2);
  EXPECT_EQ(one->total_sum_ns, 100);
  EXPECT_EQ(one->excluded_other_process, 1);
  EXPECT_EQ(one->diagnostics.Count("attr.other_process"), 1);
  o.process_id.reset();
  o.all_processes = true;
  auto all = Summarize(path, o);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->items, 3);
  EXPECT_EQ(all->diagnostics.Count("attr.mixed_processes"), 1);
  o.all_processes = false;
  o.process_prefix = "python";  // a name needs the PROCESSES table
  auto named = Summarize(path, o);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), "attr.no_target_rows");
  EXPECT_NE(named.status().message().find("launched by an unnamed process: 3"), std::string::npos)
      << named.status().message();
}

TEST(NsysTrial, ProcessByNamePrefix) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  AttributionOptions o;
  o.tokens = 1;
  o.process_prefix = "python";  // both processes are python3: still two devices
  auto s = Summarize(path, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.several_devices");
  o.device = 1;
  s = Summarize(path, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 1"));
  // mock.sqlite names its process by path: the prefix matches the last component too.
  PERFGATE_CORPUS_FILE_OR_SKIP(mock, "nsys/mock.sqlite");
  o = AttributionOptions();
  o.tokens = 1;
  o.process_prefix = "python";
  s = Summarize(mock, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, SqlInt(mock, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  o.process_prefix = "llama";
  s = Summarize(mock, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.no_target_rows");
  EXPECT_NE(s.status().message().find("/home/rich-wsl/nsys-tui/.venv-gpu/bin/python (91186) x2"), std::string::npos)
      << s.status().message();
}

TEST(NsysTrial, DeviceErrorsNameTheExportsDevices) {
  PERFGATE_CORPUS_FILE_OR_SKIP(mock, "nsys/mock.sqlite");
  auto s = Summarize(mock, OnDevice(3));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.no_target_rows");
  const std::string gpu = testing_support::SqlRows(mock, "SELECT name FROM TARGET_INFO_GPU")[0][0];
  EXPECT_NE(s.status().message().find("[devices of the export: 0 = " + gpu + "]"), std::string::npos)
      << s.status().message();
}

// The aten::mm ranges of the process that ran device 0 (pid 111), and the window
// they span.
const std::string kMmRanges =
    "SELECT * FROM NVTX_EVENTS WHERE text LIKE 'aten::mm, op_id = %' AND " + Pid("globalTid") + " = 111";

TEST(NsysTrial, NvtxRangeAsTokensWindowAndPhase) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  AttributionOptions o = OnDevice(0);
  o.tokens = 0;
  o.token_label = "aten::mm";
  o.window = attribution::DecodeWindow::Label("aten::mm");
  auto s = Summarize(path, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, SqlInt(path, "SELECT count(*) FROM (" + kMmRanges + ")"));
  EXPECT_EQ(s->tokens, 140);
  // Inside the window: a kernel whose launch call (else the kernel) starts between the
  // first range's start and the last one's end.
  const std::string window = "(SELECT min(start) AS lo, max(end) AS hi FROM (" + kMmRanges + "))";
  const std::string in_window =
      "SELECT k.rowid AS id, k.end - k.start AS ns, r.start AS launch, r.end AS launch_end,"
      " r.globalTid AS tid FROM " +
      kKernelLaunch + ", " + window + " w WHERE k.deviceId = 0 AND coalesce(r.start, k.start) BETWEEN w.lo AND w.hi";
  EXPECT_EQ(s->items, SqlInt(path, "SELECT count(*) FROM (" + in_window + ")"));
  EXPECT_EQ(s->excluded_outside_window,
            SqlInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 0") - s->items);
  // Phase: the innermost NVTX range on the launching thread around the launch call:
  // of the ranges that contain it, the one that starts last (nested ranges). A
  // temporary index keeps the lookup fast (the export itself is opened read-only).
  const std::string index =
      "CREATE TEMP TABLE nv AS SELECT globalTid, start, end, substr(text, 1, instr(text, ', op_id = ') - 1) AS op"
      " FROM NVTX_EVENTS; CREATE INDEX temp.nv_thread_start ON nv (globalTid, start);";
  // Every phase at once: kernels and summed time per innermost op, "(unknown)" for a
  // kernel without a launch call in the capture or without a range around it.
  const std::string innermost =
      "(SELECT n.op FROM nv n WHERE n.globalTid = kw.tid AND n.start <= kw.launch AND kw.launch_end <= n.end"
      " ORDER BY n.start DESC, n.end ASC LIMIT 1)";
  const auto phases = testing_support::SqlRows(
      path, index + "SELECT coalesce(" + innermost + ", '(unknown)') AS op, count(*), sum(ns) FROM (" + in_window +
                ") kw GROUP BY op");
  ASSERT_GT(phases.size(), 10u);
  EXPECT_EQ(s->phases.size(), phases.size());
  for (const auto& row : phases) {
    SCOPED_TRACE(row[0]);
    ASSERT_TRUE(s->phases.count(row[0]));
    EXPECT_EQ(s->phases.at(row[0]).items, std::stoll(row[1]));
    EXPECT_EQ(s->phases.at(row[0]).gpu_sum_ns, std::stoll(row[2]));
  }
  ASSERT_TRUE(s->phases.count("aten::mm"));
  // Host rows of pid 112 (device 1 only) are left out, counted.
  EXPECT_EQ(s->diagnostics.Count("nsys.other_device_process"),
            SqlInt(path, "SELECT (SELECT count(*) FROM NVTX_EVENTS WHERE " + Pid("globalTid") +
                             " = 112) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE " + Pid("globalTid") +
                             " = 112)"));
}

TEST(NsysCli, AttributeOneDeviceWithAnNvtxLabel) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  auto r = testing_support::RunPerfgate("attribute --trace e=" + path +
                                        " --device 0 --tokens auto:aten::mm --window label:aten::mm --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "nsys");
  EXPECT_EQ(j["words"]["phase"], "NVTX range");
  const auto& trial = j["engines"]["e"]["trials"][0];
  EXPECT_EQ(trial["tokens"], SqlInt(path, "SELECT count(*) FROM (" + kMmRanges + ")"));
  EXPECT_EQ(trial["tokens_source"], "label:aten::mm");
}

TEST(NsysCli, SeveralDevicesIsExitTwo) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  auto r = testing_support::RunPerfgate("attribute --trace e=" + path + " --tokens 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[attr.several_devices]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0: 1721 kernels, 1: 1721 kernels"), std::string::npos) << r.err;
}

// nsys reads bad rows as counted diagnostics already: --lenient would change nothing,
// so it is refused rather than ignored.
TEST(NsysCli, LenientIsRefused) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  auto r = testing_support::RunPerfgate("attribute --trace e=" + path + " --device 0 --tokens 1 --lenient");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[attr.unsupported_option]: --lenient (options.lenient) applies to trace-event JSON "
                       "trials, not to Nsight Systems exports"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(testing_support::RunPerfgate("attribute --trace e=" + path + " --device 0 --tokens 1").exit_code, 0);
}

}  // namespace
}  // namespace perfgate::nsys
