// A small decoder (8 layers, hidden 1024) decoding 64 tokens on an H200 in JAX,
// recorded with jax.profiler.trace: one jitted decode_step per token, which XLA runs as
// a command buffer (one cuGraphLaunch per token). The recordings' README says how the
// independent counts (177 kernels per step) were made.
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../label_engine.h"
#include "perfgate/gtest.h"

namespace {

namespace fs = std::filesystem;
using perfgate::testing::EngineSpec;
using perfgate::testing::SuiteConfig;

// The engine is the recording's directory under fixtures/recordings.
constexpr char kEngine[] = "jax_decode_h200";

// Budgets, from the recordings (medians of 3 trials: 177 kernels, 512.1 µs of GPU
// time and 1 graph launch per token, trial spread 0.04 %).
constexpr double kKernelsPerToken = 177;
constexpr double kGpuUsPerToken = 540;  // about 5 % above 512.1
constexpr double kLaunchesPerToken = 1;

SuiteConfig JaxDecodeSuite(const std::string& recordings) {
  SuiteConfig c;
  c.suite = PERFGATE_SUITE_NAME;
  c.recordings_dir = recordings;
  c.golden_dir = PERFGATE_GOLDEN_DIR;
  // Each token runs inside StepTraceAnnotation("decode_step"), a host range in XLA's
  // trace; one process (python3) recorded.
  EngineSpec e = perfgate_suites::LabelEngine(kEngine, "decode_step");
  e.options.all_processes = true;
  c.engines.push_back(e);
  return c;
}

class JaxDecodeH200 : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return JaxDecodeSuite(PERFGATE_RECORDINGS_DIR); }
};

TEST_F(JaxDecodeH200, KernelsPerTokenBudgets) {
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_EXACTLY(engine(kEngine), kKernelsPerToken);
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(kEngine), kKernelsPerToken);
  // Every decode kernel runs in the jitted step's module (the phase XLA's trace names).
  PERFGATE_EXPECT_PHASE_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(kEngine), "jit_decode_step", kKernelsPerToken);
}

TEST_F(JaxDecodeH200, GpuTimePerTokenBudgets) {
  PERFGATE_EXPECT_METRIC_AT_MOST(engine(kEngine), "gpu_us_per_token", kGpuUsPerToken);
  PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine(kEngine), "jit_decode_step", kGpuUsPerToken);
}

TEST_F(JaxDecodeH200, LaunchesPerTokenBudgets) {
  // One cuGraphLaunch (CudaGraph:5) per decode step launches all 177 kernels.
  PERFGATE_EXPECT_LAUNCHES_PER_TOKEN_AT_MOST(engine(kEngine), kLaunchesPerToken);
  PERFGATE_EXPECT_GRAPH_LAUNCHES_PER_TOKEN_AT_MOST(engine(kEngine), kLaunchesPerToken);
}

TEST_F(JaxDecodeH200, Golden) { PERFGATE_EXPECT_MATCHES_GOLDEN(kEngine); }

// --- the red: the same budgets on a regressed recording -----------------------------

std::string Inflate(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// A trial with one more kernel per decode step: every gemm_fusion_dot_89 (one per
// step) gets a twin on the same stream, launched by the same graph launch. Empty when
// the trace lacks them or XLA's closing `{}`.
std::string WithTwinKernels(std::string trace) {
  const std::string needle = "\"name\": \"gemm_fusion_dot_89\"";
  std::string twins;
  for (size_t at = trace.find(needle); at != std::string::npos; at = trace.find(needle, at + 1)) {
    const size_t begin = trace.rfind("{\"ph\"", at);
    const size_t end = trace.find("}}", at) + 2;
    std::string twin = trace.substr(begin, end - begin);
    twin.replace(twin.find(needle), needle.size(), "\"name\": \"gemm_fusion_dot_89_twin\"");
    twins += twin + ", ";
  }
  const size_t last = trace.rfind("{}]");
  if (twins.empty() || last == std::string::npos) return "";
  trace.insert(last, twins);
  return trace;
}

// The three trials with twins, as plain JSON under DIR/jax_decode_h200/trial-K/: the
// suite's recordings directory of the regressed build (PERFGATE_RECORDINGS=DIR runs the
// whole suite red). Empty on failure.
std::string WriteRegressedRecording() {
  const fs::path dir = fs::path(::testing::TempDir()) / "jax_decode_h200_regressed";
  for (int k = 1; k <= 3; ++k) {
    const std::string trial = "trial-" + std::to_string(k);
    const std::string trace =
        WithTwinKernels(Inflate(std::string(PERFGATE_RECORDINGS_DIR) + "/" + kEngine + "/" + trial + "/trace.json.gz"));
    if (trace.empty()) return "";
    fs::create_directories(dir / kEngine / trial);
    std::ofstream(dir / kEngine / trial / "trace.json", std::ios::binary) << trace;
  }
  return dir.string();
}

TEST(JaxDecodeH200Regressed, ExtraKernelsFailTheBudgets) {
  const std::string dir = WriteRegressedRecording();
  ASSERT_FALSE(dir.empty()) << "a trial has no gemm_fusion_dot_89 or no closing {}";
  const auto load = perfgate::testing::LoadSuite(JaxDecodeSuite(dir));
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  ASSERT_TRUE(load.data != nullptr);
  const perfgate::attribution::EngineSummary& regressed = load.data->engine(kEngine);
  // 178 kernels per token: the budgets go red, each naming the figure.
  const auto exactly = perfgate::testing::SubmissionsPerTokenExactly(regressed, kKernelsPerToken);
  EXPECT_FALSE(exactly);
  std::printf("red: %s\n", exactly.message());  // the figure, for the log
  EXPECT_FALSE(perfgate::testing::SubmissionsPerTokenAtMost(regressed, kKernelsPerToken));
  EXPECT_FALSE(perfgate::testing::PhaseSubmissionsPerTokenAtMost(regressed, "jit_decode_step", kKernelsPerToken));
  EXPECT_TRUE(perfgate::testing::SubmissionsPerTokenAtMost(regressed, kKernelsPerToken + 1));
  // Still one graph launch per token: the twins ride on it.
  EXPECT_TRUE(perfgate::testing::GraphLaunchesPerTokenAtMost(regressed, kLaunchesPerToken));
}

// A budget just under the recorded figure goes red on the recordings themselves.
TEST_F(JaxDecodeH200, BudgetsJustUnderTheFiguresFail) {
  EXPECT_FALSE(perfgate::testing::SubmissionsPerTokenAtMost(engine(kEngine), kKernelsPerToken - 0.5));
  EXPECT_FALSE(perfgate::testing::MetricAtMost(engine(kEngine), "gpu_us_per_token", 512.0));
  EXPECT_FALSE(perfgate::testing::GraphLaunchesPerTokenAtMost(engine(kEngine), 0.99));
}

}  // namespace
