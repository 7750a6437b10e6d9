// `perfgate attribute` on trace-event JSON: the options real traces need (--device,
// --process pid:N, --lenient, label prefixes and patterns), on hand-placed Kineto
// traces whose figures are counted by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "unit/json_trace/kineto_gen.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using json_trace::gen::KinetoWriter;
using testing_support::RunPerfgate;
using testing_support::WriteTempFile;

constexpr int64_t kUs = 1'000;
constexpr int64_t kPid = 4242;
constexpr int64_t kOther = 5151;

// python3 (4242) launches 3 kernels of 10 us on device 0 and 2 of 20 us on device
// 1; worker (5151) launches one 7 us kernel on device 0.
std::string TwoDeviceTrace() {
  KinetoWriter w;
  w.ProcessName(kPid, "python3");
  w.ProcessName(kOther, "worker");
  int64_t corr = 1;
  auto launch = [&](int64_t pid, int64_t device, int64_t dur) {
    const int64_t t = corr * 100 * kUs;
    w.Runtime("cudaLaunchKernel", pid, pid, t, 2 * kUs, corr);
    w.Kernel("k_dev" + std::to_string(device), device, 7, t + 10 * kUs, dur, corr);
    ++corr;
  };
  for (int i = 0; i < 3; ++i) launch(kPid, 0, 10 * kUs);
  for (int i = 0; i < 2; ++i) launch(kPid, 1, 20 * kUs);
  launch(kOther, 0, 7 * kUs);
  return w.Finish();
}

nlohmann::json FirstTrial(const std::string& out) {
  return nlohmann::json::parse(out)["engines"]["e"]["trials"][0];
}

// `perfgate attribute --trace e=PATH --tokens ARGS`.
testing_support::CommandResult Attribute(const std::string& path, const std::string& args) {
  return RunPerfgate("attribute --trace e=" + path + " --tokens " + args);
}

// The same with --format json, which must succeed: its one trial (null when it failed).
nlohmann::json AttributedTrial(const std::string& path, const std::string& args) {
  SCOPED_TRACE(args);
  auto r = Attribute(path, args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? FirstTrial(r.out) : nlohmann::json();
}

// The same refused (exit 2) with `message` on stderr.
void ExpectRefused(const std::string& path, const std::string& args, const std::string& message) {
  SCOPED_TRACE(args);
  auto r = Attribute(path, args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

TEST(AttributeCliTraceJson, SeveralDevicesNeedAChoice) {
  const std::string path = WriteTempFile(TwoDeviceTrace(), ".json");
  ExpectRefused(path, "1",
                path + ": error[attr.several_devices]: the kept kernels ran on 2 devices (0: 4 kernels, 1: 2 kernels); "
                       "choose one with --device N");

  auto t = AttributedTrial(path, "1 --device 1");
  EXPECT_EQ(t["items"], 2);
  EXPECT_DOUBLE_EQ(t["gpu_us_per_token"].get<double>(), 40.0);
  EXPECT_EQ(t["diagnostics"]["attr.other_device"], 4);

  // Per engine, ENGINE=N; device 0 holds both processes' kernels: never summed
  // without a choice, summed (and counted) with --all-processes.
  ExpectRefused(path, "1 --device e=0",
                path + ": error[attr.several_processes]: the kept kernels come from 2 processes (python3 (4242): 3 "
                       "kernels, worker (5151): 1 kernels); choose one with --process NAME|pid:N, or sum them with "
                       "--all-processes");
  auto zero = AttributedTrial(path, "1 --device e=0 --all-processes");
  EXPECT_EQ(zero["items"], 4);
  EXPECT_EQ(zero["diagnostics"]["attr.mixed_processes"], 1);
  EXPECT_DOUBLE_EQ(zero["gpu_us_per_token"].get<double>(), 37.0);

  for (const char* bad : {"x", "-1", "1.5"}) {
    ExpectRefused(path, std::string("1 --device '") + bad + "'", "expected a device index");
  }
  ExpectRefused(path, "1 --device 3",
                "error[attr.no_target_rows]: no kept kernel ran on device 3 (devices: 0: 4 kernels, 1: 2 kernels)");
}

TEST(AttributeCliTraceJson, ProcessById) {
  const std::string path = WriteTempFile(TwoDeviceTrace(), ".json");
  auto t = AttributedTrial(path, "1 --process pid:5151");
  EXPECT_EQ(t["items"], 1);
  EXPECT_DOUBLE_EQ(t["gpu_us_per_token"].get<double>(), 7.0);
  EXPECT_EQ(t["excluded"]["other_process"], 5);

  // python3's kernels span both devices: still a choice to make.
  EXPECT_EQ(AttributedTrial(path, "1 --process pid:4242 --device 0")["items"], 3);

  ExpectRefused(path, "1 --process pid:77",
                "error[attr.no_target_rows]: no kernel launched by process 77 among 6 kernels");
  for (const std::string bad : {"pid:", "pid:x", "pid:-1", "pid:4242x"}) {
    ExpectRefused(path, "1 --process " + bad,
                  "error[cli.usage]: --process '" + bad + "': expected pid:N with N a process id");
  }
}

TEST(AttributeCliTraceJson, AllProcessesWithAProcessIsAUsageError) {
  const std::string path = WriteTempFile(TwoDeviceTrace(), ".json");
  for (const char* process : {"--process pid:4242", "--process python", "--process e=python"}) {
    ExpectRefused(path, std::string("1 --device 0 --all-processes ") + process,
                  "error[cli.usage]: --all-processes and --process for engine 'e' contradict each other");
  }
  // Either alone is fine: 4 kernels summed, or python3's 3.
  EXPECT_EQ(AttributedTrial(path, "1 --device 0 --all-processes")["items"], 4);
  EXPECT_EQ(AttributedTrial(path, "1 --device 0 --process python")["items"], 3);
}

TEST(AttributeCliTraceJson, MetalRefusesDeviceProcessIdAndLenient) {
  const std::string hf2q = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0/hf2q";
  for (const char* option : {"--device 0", "--process pid:1", "--lenient"}) {
    SCOPED_TRACE(option);
    auto r = RunPerfgate("attribute --trace hf2q=" + hf2q + " --tokens 64 " + option);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("error[attr.unsupported_option]"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not to Metal System Trace exports"), std::string::npos) << r.err;
  }
}

// One kernel of three has "ts" as a string: strict mode stops there, located;
// --lenient drops it, counts it, and attributes the other two.
TEST(AttributeCliTraceJson, LenientReadsPastAMalformedKeptEvent) {
  KinetoWriter w;
  w.ProcessName(kPid, "python3");
  w.Runtime("cudaLaunchKernel", kPid, kPid, 100 * kUs, 2 * kUs, 1);
  w.Kernel("good_a", 0, 7, 110 * kUs, 5 * kUs, 1);
  w.Raw(R"({"ph": "X", "cat": "kernel", "name": "bad", "pid": 0, "tid": 7, "ts": "120", "dur": 1, )"
        R"("args": {"correlation": 2}})");
  w.Runtime("cudaLaunchKernel", kPid, kPid, 200 * kUs, 2 * kUs, 3);
  w.Kernel("good_b", 0, 7, 210 * kUs, 6 * kUs, 3);
  const std::string text = w.Finish();
  const std::string path = WriteTempFile(text, ".json");
  // Where the bad "ts" is, counted here: line and column of its key.
  const size_t at = text.find(R"("ts": "120")");
  const size_t line_start = text.rfind('\n', at) + 1;
  const int64_t line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  const std::string where = path + ":" + std::to_string(line) + ":" + std::to_string(at - line_start + 1);

  ExpectRefused(path, "1", where + ": error[json.bad_event]: \"ts\" is a string");

  auto t = AttributedTrial(path, "1 --lenient");
  EXPECT_EQ(t["items"], 2);
  EXPECT_DOUBLE_EQ(t["gpu_us_per_token"].get<double>(), 11.0);
  EXPECT_EQ(t["diagnostics"]["json.bad_event"], 1);
}

// Three SGLang-style steps "step[DECODE bs=4]" (host annotations), each launching two
// 5 us kernels; a "step[PREFILL bs=4]" before them launches one 50 us kernel.
std::string ServingTrace() {
  KinetoWriter w;
  w.ProcessName(kPid, "python3");
  int64_t corr = 1;
  auto step = [&](const std::string& name, int64_t t, int kernels, int64_t dur) {
    w.Annotation(name, false, kPid, kPid, t, 80 * kUs, corr);
    for (int k = 0; k < kernels; ++k) {
      w.Runtime("hipLaunchKernel", kPid, kPid, t + (10 + 20 * k) * kUs, 2 * kUs, corr);
      w.Kernel("Cijk_Alik_Bljk_step", 0, 7, t + (15 + 20 * k) * kUs, dur, corr);
      ++corr;
    }
  };
  step("step[PREFILL bs=4]", 100 * kUs, 1, 50 * kUs);
  for (int i = 0; i < 3; ++i) step("step[DECODE bs=4]", (300 + 100 * i) * kUs, 2, 5 * kUs);
  return w.Finish();
}

TEST(AttributeCliTraceJson, DecodeStepLabelsByPrefixAndPattern) {
  const std::string path = WriteTempFile(ServingTrace(), ".json");
  // A value holding '=' (the batch size) is written ENGINE=VALUE; a prefix needs neither.
  for (const std::string& spec : {std::string("'auto-prefix:step[DECODE' --window 'label-prefix:step[DECODE'"),
                                  std::string(R"('e=auto-regex:step\[DECODE bs=\d+\]' )"
                                              R"(--window 'e=label-regex:step\[DECODE bs=\d+\]')"),
                                  std::string("'e=auto:step[DECODE bs=4]' --window 'e=label:step[DECODE bs=4]'")}) {
    auto t = AttributedTrial(path, spec);
    EXPECT_EQ(t["tokens"], 3);
    EXPECT_EQ(t["items"], 6);
    EXPECT_DOUBLE_EQ(t["gpu_us_per_token"].get<double>(), 10.0);
  }
  // Without a window, tokens from the prefix count the steps around kernels; the
  // prefill's own label is another step kind.
  auto all_steps = AttributedTrial(path, "'auto-prefix:step['");
  EXPECT_EQ(all_steps["tokens"], 4);
  EXPECT_EQ(all_steps["tokens_source"], "label:prefix:step[");

  ExpectRefused(path, "'auto:step[DECODE bs=4]'", "a value that holds '=' is written ENGINE=VALUE");
  ExpectRefused(path, "'auto-regex:step[DECODE'",
                "error[cli.usage]: --tokens auto-regex:step[DECODE: label regex 'step[DECODE' is not an ECMAScript "
                "regular expression");
  ExpectRefused(path, "3 --window 'label-regex:('", "--window label-regex:(: label regex '(' is not");
  ExpectRefused(path, "3 --window 'label-glob:step*'", "expected label:NAME, label-prefix:TEXT, label-regex:RE");
}

// new-suite writes a prefix or pattern label as the LabelMatch it is, and an exact one
// as the string literal it always was.
TEST(AttributeCliTraceJson, NewSuiteRendersLabelKinds) {
  char dir_template[] = "/tmp/perfgate-labels-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  // Two engines of three tiny trials: one "decode_step" around one kernel.
  KinetoWriter w;
  w.ProcessName(kPid, "python3");
  w.Annotation("decode_step", false, kPid, kPid, 10 * kUs, 50 * kUs);
  w.Runtime("cudaLaunchKernel", kPid, kPid, 20 * kUs, 2 * kUs, 1);
  w.Kernel("k", 0, 7, 30 * kUs, 5 * kUs, 1);
  const std::string trace = w.Finish();
  for (const char* engine : {"graphs", "eager"}) {
    for (int t = 1; t <= 3; ++t) {
      const std::string trial = dir + "/" + engine + "/trial-" + std::to_string(t);
      ASSERT_EQ(testing_support::RunCommand("mkdir -p '" + trial + "'").exit_code, 0);
      std::ofstream(trial + "/trace.json") << trace;
    }
  }
  auto r = testing_support::RunCommand(
      std::string(PERFGATE_CLI_PATH) + " new-suite demo --engine graphs=" + dir + "/graphs --baseline eager=" + dir +
      "/eager --tokens 'auto-prefix:decode_' --window 'graphs=label-regex:decode_st.p' --window "
      "'eager=label:decode_step' --dir " + dir + "/s --golden-dir " + dir + "/g");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string suite = testing_support::SlurpFile(dir + "/s/demo_perf.cc");
  EXPECT_NE(suite.find("e.options.window = DecodeWindow::Label(perfgate::attribution::LabelMatch::Regex(\"decode_st.p\"));"),
            std::string::npos)
      << suite;
  EXPECT_NE(suite.find("e.options.window = DecodeWindow::Label(\"decode_step\");"), std::string::npos) << suite;
  EXPECT_NE(suite.find("e.options.token_label = perfgate::attribution::LabelMatch::Prefix(\"decode_\");"),
            std::string::npos)
      << suite;
  testing_support::RunCommand("rm -rf '" + dir + "'");
}

}  // namespace
}  // namespace perfgate
