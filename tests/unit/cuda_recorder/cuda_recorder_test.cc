// perfgate::cuda::RecordInterleaved with the stand-in target: the bundle it writes, each
// fail-closed rule made to fail, resume, force, interleaving, finding the tracer, and
// whether CUDA can record on this machine.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "core/text_input.h"
#include "cuda_recorder_support.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/sources/source.h"

namespace perfgate {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;
namespace fs = std::filesystem;

using CudaRecorder = testing_support::CudaRecorderSandbox;

int64_t Kernels(const model::WorkSet& trace) {
  int64_t n = 0;
  for (const model::WorkItem& w : trace.items) n += w.kind == model::WorkKind::kKernel;
  return n;
}

std::vector<std::string> CuptiFiles(const std::string& trial) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(trial) / "cupti")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(CudaRecorder, RecordsOneProcessIntoATrialAttributionReads) {
  auto r = cuda::RecordInterleaved({Engine("a", "ok", 4)}, Options(), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString() << "\n" << progress_.str();
  ASSERT_EQ(r->trials.size(), 1u);
  const std::string trial = TrialDir("a", 1);
  EXPECT_EQ(r->trials[0].path, trial);
  EXPECT_FALSE(fs::exists(fs::path(trial) / "INCOMPLETE"));

  auto trace = json_trace::ReadTraceJsonFile((fs::path(trial) / "trace.json.gz").string());
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(Kernels(*trace), 4);
  EXPECT_EQ(trace->items[0].name, "fake_kernel_0");
  // gzip with mtime 0: the same trace gives the same bytes.
  const std::string gz = testing_support::ReadText(fs::path(trial) / "trace.json.gz");
  ASSERT_GE(gz.size(), 8u);
  EXPECT_EQ(gz.substr(0, 2), "\x1f\x8b");
  EXPECT_EQ(gz.substr(4, 4), std::string(4, '\0'));

  // The raw trace went into trace.json.gz; the log stays.
  const std::vector<std::string> cupti = CuptiFiles(trial);
  ASSERT_EQ(cupti.size(), 1u);
  EXPECT_THAT(cupti[0], MatchesRegex("cupti-[0-9]+\\.log"));
  const std::string command_log = testing_support::ReadText(fs::path(trial) / "command.log");
  EXPECT_THAT(command_log, HasSubstr("fake target: ok"));
  EXPECT_THAT(command_log, HasSubstr("fake target stderr"));
  EXPECT_THAT(command_log, HasSubstr("exited with status 0"));

  const std::string env = testing_support::ReadText(fs::path(trial) / "env.txt");
  EXPECT_THAT(env, HasSubstr("CUDA_INJECTION64_PATH=" + tracer_ + "\n"));
  EXPECT_THAT(env, HasSubstr("NVTX_INJECTION64_PATH=" + tracer_ + "\n"));
  EXPECT_THAT(env, HasSubstr("PERFGATE_CUPTI_OUTPUT_DIR=" + trial + "/cupti\n"));
  EXPECT_THAT(env, HasSubstr("FAKE_EXTRA=extra value\n"));
}

TEST_F(CudaRecorder, MetaJsonSaysWhatWasRecorded) {
  auto r = cuda::RecordInterleaved({Engine("a", "ok", 3)}, Options(), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const json meta = Meta("a", 1);
  EXPECT_EQ(meta["format"], "perfgate recording bundle");
  EXPECT_EQ(meta["format_version"], xctrace::kBundleFormatVersion);
  EXPECT_EQ(meta["recorder"], "perfgate record");
  EXPECT_EQ(meta["complete"], true);
  EXPECT_EQ(meta["backend"], "cuda");
  EXPECT_EQ(meta["engine"], "a");
  EXPECT_EQ(meta["command"], json({PERFGATE_FAKE_CUDA_TARGET, "ok", "3"}));
  EXPECT_EQ(meta["tokens"], 3);
  EXPECT_EQ(meta["trial"], 1);
  EXPECT_EQ(meta["trials"], 1);
  EXPECT_EQ(meta["job"]["index"], 1);
  EXPECT_EQ(meta["environment_names"], json({"FAKE_CUDA_LOG", "FAKE_EXTRA"}));
  EXPECT_TRUE(meta["start_time"].is_string());
  EXPECT_TRUE(meta["end_time"].is_string());
  EXPECT_FALSE(meta["host"].get<std::string>().empty());
  EXPECT_FALSE(meta["os_version"].get<std::string>().empty());
  EXPECT_TRUE(meta["git"].is_object()) << meta["git"];
  EXPECT_FALSE(meta.contains("xctrace"));
  EXPECT_EQ(meta["tracer"], json({{"path", tracer_}, {"found_by", "--tracer"}}));
  EXPECT_EQ(meta["gpu"]["name"], "Fake GPU");
  EXPECT_EQ(meta["gpu"]["compute_capability"], "9.0");
  EXPECT_EQ(meta["gpu"]["sms"], 132);
  EXPECT_EQ(meta["gpu"]["memory_bytes"], 150000000000);
  EXPECT_EQ(meta["cuda"], json({{"driver_version", 13000}, {"runtime_version", 13000}, {"cupti_version", 130001}}));
  ASSERT_EQ(meta["tracer_summary"].size(), 1u);
  EXPECT_EQ(meta["tracer_summary"][0]["complete"], true);
  EXPECT_EQ(meta["tracer_summary"][0]["dropped_records"], 0);
  EXPECT_EQ(meta["kernels"], 3);
  EXPECT_EQ(meta["merged"], false);
  EXPECT_EQ(meta["trace"], "trace.json.gz");
  // NVML's clocks, or why there are none.
  if (meta["clocks"].is_null()) {
    EXPECT_THAT(meta["clocks_unavailable"].get<std::string>(), HasSubstr("NVML"));
  } else {
    EXPECT_TRUE(meta["clocks"]["devices"].is_array());
  }
}

TEST_F(CudaRecorder, DiscoveryReadsTheTrialsAsTraceEventJson) {
  auto r = cuda::RecordInterleaved({Engine("a", "ok", 2)}, Options(2), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto recording = bundle::DiscoverTrials(r->engine_dirs[0]);
  ASSERT_TRUE(recording.ok()) << recording.status().ToString();
  ASSERT_EQ(recording->trials.size(), 2u);
  for (const bundle::Trial& t : recording->trials) {
    EXPECT_THAT(t.path, HasSubstr("trace.json.gz"));
    EXPECT_EQ(t.source->descriptor.name, "trace_json");
    EXPECT_THAT(t.meta_path, HasSubstr("meta.json"));
  }
}

TEST_F(CudaRecorder, TwoProcessesWithGpuWorkAreMergedIntoOneTrace) {
  auto r = cuda::RecordInterleaved({Engine("a", "two_processes", 3)}, Options(), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string trial = TrialDir("a", 1);
  auto trace = json_trace::ReadTraceJsonFile((fs::path(trial) / "trace.json.gz").string());
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(Kernels(*trace), 3 + 4);
  // Each process numbers its correlations from 1; merged, every kernel still joins one launch.
  std::set<int64_t> correlations;
  for (const auto& call : trace->host_calls) correlations.insert(call.correlation.value_or(-1));
  EXPECT_EQ(correlations.size(), 7u);

  const json meta = Meta("a", 1);
  EXPECT_EQ(meta["merged"], true);
  EXPECT_EQ(meta["trace_pids"].size(), 2u);
  EXPECT_EQ(meta["tracer_summary"].size(), 2u);
  EXPECT_EQ(meta["kernels"], 7);
  auto text = internal::ReadWholeFile((fs::path(trial) / "trace.json.gz").string());
  ASSERT_TRUE(text.ok());
  const json merged = json::parse(*text);
  EXPECT_EQ(merged["perfgate_merged"]["pids"], meta["trace_pids"]);
  EXPECT_EQ(merged["perfgate_merged"]["perfgate_tracers"].size(), 2u);
  EXPECT_EQ(CuptiFiles(trial).size(), 2u);  // the two logs, no raw trace
}

struct FailCase {
  std::string mode;
  std::string code;
  std::string says;
};

void PrintTo(const FailCase& c, std::ostream* os) { *os << c.mode << " -> " << c.code; }

class CudaRecorderFails : public testing_support::CudaRecorderSandbox,
                          public ::testing::WithParamInterface<FailCase> {};

TEST_P(CudaRecorderFails, LeavesTheTrialIncompleteWithTheNamedError) {
  const FailCase& c = GetParam();
  auto r = cuda::RecordInterleaved({Engine("a", c.mode)}, Options(), out_);
  ASSERT_FALSE(r.ok()) << c.mode;
  EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(r.status().message(), HasSubstr(c.says));
  EXPECT_THAT(r.status().message(), StartsWith("a trial 1/1: "));
  const std::string trial = TrialDir("a", 1);
  EXPECT_THAT(r.status().location().path, StartsWith(trial));
  EXPECT_TRUE(fs::exists(fs::path(trial) / "INCOMPLETE"));
  EXPECT_FALSE(fs::exists(fs::path(trial) / "trace.json.gz"));
  EXPECT_TRUE(fs::exists(fs::path(trial) / "command.log"));
  const json meta = Meta("a", 1);
  EXPECT_EQ(meta["complete"], false);
  EXPECT_EQ(meta["error"]["code"], c.code);
  // Attribution refuses it by name.
  auto recording = bundle::DiscoverTrials((fs::path(out_) / "a").string());
  ASSERT_FALSE(recording.ok());
  EXPECT_EQ(recording.status().code(), "record.incomplete_bundle");
}

INSTANTIATE_TEST_SUITE_P(Rules, CudaRecorderFails,
                         ::testing::Values(FailCase{"crash", "process.signaled", "SIGSEGV"},
                                           FailCase{"log_only", "record.tracer_incomplete", "crashed or was killed"},
                                           FailCase{"partial", "record.tracer_incomplete", ".json.partial"},
                                           FailCase{"incomplete", "record.tracer_incomplete",
                                                    "perfgate_tracer.complete"},
                                           FailCase{"dropped", "record.dropped_records", "CUPTI lost 1 records"},
                                           FailCase{"not_tracing", "record.tracer_failed",
                                                    "CUPTI_ERROR_UNKNOWN"},
                                           FailCase{"tracer_errors", "record.tracer_failed",
                                                    "cuptiActivityFlushAll (exit)"},
                                           FailCase{"untimed", "record.untimed_records", "without a whole time span"},
                                           FailCase{"miscounted", "record.bad_trace", "the tracer counted 5 kernels"},
                                           FailCase{"late_error", "record.tracer_failed", "arrived after the trace"},
                                           FailCase{"nothing", "record.no_trace", "CUDA_INJECTION64_PATH reaches it"},
                                           FailCase{"zero_kernels", "record.no_target_rows", "no kernel"},
                                           FailCase{"fail", "process.exit_status", "status 3"}),
                         [](const ::testing::TestParamInfo<FailCase>& info) { return info.param.mode; });

TEST_F(CudaRecorder, NvtxRangesLeftOpenAreAWarningKeptInTheMeta) {
  std::ostringstream progress;
  cuda::RecordOptions o = Options();
  o.progress = &progress;
  auto r = cuda::RecordInterleaved({Engine("a", "unclosed")}, o, out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(progress.str(), HasSubstr("warning: process "));
  EXPECT_THAT(progress.str(), HasSubstr("exited with 2 NVTX range(s) open"));
  const auto meta = testing_support::ReadJson(fs::path(out_) / "a" / "trial-1" / "meta.json");
  ASSERT_EQ(meta.at("warnings").size(), 1u);
  EXPECT_THAT(meta.at("warnings").at(0).get<std::string>(), HasSubstr("a decode step left open is a token fewer"));
}

TEST_F(CudaRecorder, SummaryFieldsOfTheWrongTypeAreNoCrash) {
  // The count check and the warnings read nothing from them; the trace's kernels are
  // still counted by the reader attribution uses.
  auto r = cuda::RecordInterleaved({Engine("a", "damaged_fields", 3)}, Options(), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto meta = testing_support::ReadJson(fs::path(out_) / "a" / "trial-1" / "meta.json");
  EXPECT_EQ(meta.at("kernels"), 3);
  EXPECT_TRUE(meta.at("warnings").empty());
}

TEST_F(CudaRecorder, ACommandThatCannotStartIsLoggedAndIncomplete) {
  xctrace::EngineRecordSpec spec = Engine("a", "ok");
  spec.command[0] = (root_ / "no-such-engine").string();
  auto r = cuda::RecordInterleaved({spec}, Options(), out_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.not_found") << r.status().ToString();
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("a", 1)) / "INCOMPLETE"));
  EXPECT_THAT(testing_support::ReadText(fs::path(TrialDir("a", 1)) / "command.log"), HasSubstr("not started: "));
}

TEST_F(CudaRecorder, AProcessThatDiedUnfinishedIsNamedByPid) {
  auto r = cuda::RecordInterleaved({Engine("a", "log_only")}, Options(), out_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), MatchesRegex(".*process [0-9]+ \\(a log, no trace\\).*"));
}

TEST_F(CudaRecorder, ATimeoutStopsTheCommandAndLeavesTheTrialIncomplete) {
  cuda::RecordOptions o = Options();
  o.record_timeout_ms = 300;
  const auto start = std::chrono::steady_clock::now();
  auto r = cuda::RecordInterleaved({Engine("a", "hang")}, o, out_);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.timeout") << r.status().ToString();
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("a", 1)) / "INCOMPLETE"));
  EXPECT_THAT(testing_support::ReadText(fs::path(TrialDir("a", 1)) / "command.log"), HasSubstr("timed out"));
}

TEST_F(CudaRecorder, ACancelStopsTheCommandAndLeavesTheTrialIncomplete) {
  std::atomic<bool> cancel{false};
  cuda::RecordOptions o = Options();
  o.cancel = &cancel;
  std::thread raise([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.store(true);
  });
  auto r = cuda::RecordInterleaved({Engine("a", "hang")}, o, out_);
  raise.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.interrupted") << r.status().ToString();
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("a", 1)) / "INCOMPLETE"));
  EXPECT_THAT(testing_support::ReadText(fs::path(TrialDir("a", 1)) / "command.log"),
              HasSubstr("fake target: hang"));
  EXPECT_EQ(Meta("a", 1)["complete"], false);
}

TEST_F(CudaRecorder, ResumeKeepsCompleteTrialsAndRedoesAnIncompleteOne) {
  ASSERT_TRUE(cuda::RecordInterleaved({Engine("a", "ok")}, Options(2), out_).ok());
  // Trial 2 as a crash would have left it.
  std::ofstream(fs::path(TrialDir("a", 2)) / "INCOMPLETE") << "failed: killed\n";
  auto again = cuda::RecordInterleaved({Engine("a", "ok")}, Options(2), out_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ(again->trials.size(), 2u);
  EXPECT_TRUE(again->trials[0].resumed);
  EXPECT_FALSE(again->trials[1].resumed);
  EXPECT_EQ(Runs(), std::vector<std::string>({TrialDir("a", 1), TrialDir("a", 2), TrialDir("a", 2)}));
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("a", 2)) / "INCOMPLETE"));
  EXPECT_THAT(progress_.str(), HasSubstr("redoing an incomplete trial (failed: killed)"));
}

TEST_F(CudaRecorder, ACompleteTrialWithoutItsTraceIsRefusedAsDamaged) {
  ASSERT_TRUE(cuda::RecordInterleaved({Engine("a", "ok")}, Options(), out_).ok());
  fs::remove(fs::path(TrialDir("a", 1)) / "trace.json.gz");
  auto again = cuda::RecordInterleaved({Engine("a", "ok")}, Options(), out_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), "record.not_a_bundle");
  EXPECT_THAT(again.status().message(), HasSubstr("has no trace.json.gz (damaged)"));
}

TEST_F(CudaRecorder, AChangedCommandIsRefusedUnlessForced) {
  ASSERT_TRUE(cuda::RecordInterleaved({Engine("a", "ok", 4)}, Options(), out_).ok());
  auto refused = cuda::RecordInterleaved({Engine("a", "ok", 5)}, Options(), out_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), "record.bundle_mismatch");
  EXPECT_EQ(refused.status().kind(), ErrorKind::kUsage);
  EXPECT_EQ(Runs().size(), 1u);  // nothing ran
  cuda::RecordOptions forced = Options();
  forced.force = true;
  auto redone = cuda::RecordInterleaved({Engine("a", "ok", 5)}, forced, out_);
  ASSERT_TRUE(redone.ok()) << redone.status().ToString();
  EXPECT_FALSE(redone->trials[0].resumed);
  EXPECT_EQ(Meta("a", 1)["tokens"], 5);
  EXPECT_EQ(Meta("a", 1)["kernels"], 5);
}

TEST_F(CudaRecorder, AnXctraceTrialIsAnotherRecording) {
  ASSERT_TRUE(cuda::RecordInterleaved({Engine("a", "ok")}, Options(), out_).ok());
  // The resume identity holds the backend: the same engine, command and tokens
  // recorded by xctrace are not this recording.
  json meta = Meta("a", 1);
  meta.erase("backend");
  meta["template"] = "Metal System Trace";
  std::ofstream(fs::path(TrialDir("a", 1)) / "meta.json") << meta.dump();
  auto again = cuda::RecordInterleaved({Engine("a", "ok")}, Options(), out_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), "record.bundle_mismatch");
  EXPECT_THAT(again.status().message(), HasSubstr("backend null there, \"cuda\" now"));
}

TEST_F(CudaRecorder, TwoEnginesAreInterleaved) {
  auto r = cuda::RecordInterleaved({Engine("a", "ok"), Engine("b", "ok")}, Options(2), out_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> order;
  for (const auto& t : r->trials) order.push_back(t.engine + std::to_string(t.trial));
  EXPECT_EQ(order, std::vector<std::string>({"a1", "b1", "a2", "b2"}));
  EXPECT_EQ(Runs(), std::vector<std::string>({TrialDir("a", 1), TrialDir("b", 1), TrialDir("a", 2), TrialDir("b", 2)}));
  EXPECT_EQ(Meta("b", 2)["job"]["index"], 4);
  EXPECT_EQ(Meta("b", 2)["job"]["interleaved_engines"], json({"a", "b"}));
  EXPECT_EQ(r->engine_dirs, std::vector<std::string>({out_ + "/a", out_ + "/b"}));
}

TEST_F(CudaRecorder, XctraceOnlyOptionsAreRefused) {
  cuda::RecordOptions o = Options();
  o.tables = {"metal-gpu-intervals"};
  auto r = cuda::RecordInterleaved({Engine("a", "ok")}, o, out_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.bad_spec");
  EXPECT_THAT(r.status().message(), HasSubstr("--tables"));
  o = Options();
  o.time_limit_ms = 1000;
  EXPECT_EQ(cuda::RecordInterleaved({Engine("a", "ok")}, o, out_).status().code(), "record.bad_spec");
  EXPECT_TRUE(Runs().empty());
}

TEST_F(CudaRecorder, AMissingTracerIsAnEnvironmentError) {
  cuda::RecordOptions o = Options();
  o.tracer_path = (root_ / "missing.so").string();
  auto r = cuda::RecordInterleaved({Engine("a", "ok")}, o, out_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.no_tracer");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(r.status().message(), HasSubstr("missing.so is not a file"));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(CudaRecorder, TheTracerIsFoundByEnvironmentThenBesideTheProgramThenInTheBuild) {
  setenv("PERFGATE_CUPTI_TRACER", tracer_.c_str(), 1);
  auto by_env = cuda::LocateTracer();
  ASSERT_TRUE(by_env.ok()) << by_env.status().ToString();
  EXPECT_EQ(by_env->path, tracer_);
  EXPECT_EQ(by_env->found_by, "PERFGATE_CUPTI_TRACER");
  auto explicit_first = cuda::LocateTracer(tracer_);
  ASSERT_TRUE(explicit_first.ok());
  EXPECT_EQ(explicit_first->found_by, "--tracer");

  setenv("PERFGATE_CUPTI_TRACER", (root_ / "nope.so").c_str(), 1);
  EXPECT_THAT(cuda::LocateTracer().status().message(),
              HasSubstr("PERFGATE_CUPTI_TRACER=" + (root_ / "nope.so").string()));

  unsetenv("PERFGATE_CUPTI_TRACER");
#ifdef PERFGATE_BUILT_TRACER
  // Nothing beside this test program, which is not perfgate (as a suite is not): the
  // tracer this build made is found in the build tree.
  auto built = cuda::LocateTracer();
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->found_by, "the build tree");
  EXPECT_EQ(fs::path(built->path), fs::path(PERFGATE_BUILT_TRACER).lexically_normal());
#else
  // Nothing beside this test program and no tracer built: every place tried is named.
  auto none = cuda::LocateTracer();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "record.no_tracer");
  EXPECT_THAT(none.status().message(), HasSubstr("/lib/libperfgate_cupti.so"));
  EXPECT_THAT(none.status().message(), HasSubstr("/lib64/libperfgate_cupti.so"));
  EXPECT_THAT(none.status().message(), HasSubstr("built only where CUDA's CUPTI is found"));
#endif
}

TEST(CudaRecordingHere, SaysExactlyWhyItIsImpossible) {
  std::optional<std::string> why = cuda::WhyCudaRecordingImpossible();
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    ASSERT_TRUE(why.has_value());
    EXPECT_THAT(*why, StartsWith("no NVIDIA driver (libcuda.so.1 cannot be loaded: "));
  } else {
    // A driver: recording is possible, or it is the GPU or the tracer that is missing.
    if (why) {
      EXPECT_THAT(*why, MatchesRegex("^no (usable )?(GPU|tracer) \\(.*"));
    }
  }
}

}  // namespace
}  // namespace perfgate
