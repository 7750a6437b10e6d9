// A small Llama decoding 64 tokens on an H200, recorded by perfgate's CUPTI tracer
// through `perfgate record --backend cuda` (fixtures/recordings/cuda_decode_h200/README.md):
// torch.compile's CUDA graphs against eager, tokens from one NVTX range per decode
// step. With PERFGATE_RECORD=1 on a machine with a GPU the suite records both engines
// itself. The tracer is also checked against the PyTorch profiler on the same decode.
//
// Every figure asserted here was computed independently by
//   python3 tests/recordings/cuda_tracer_agreement.py --names fixtures/recordings
// (standard-library JSON, its own windowing): eager 423.000 kernels/token and
// 821.415 / 821.854 / 821.450 kernel-us/token in trials 1-3 (the profiler: 821.630);
// graphs 160.000 kernels/token (1 cudaGraphLaunch and 2 cudaLaunchKernel per token, so
// 158 kernels per token come from the graph) and 470.836 / 470.893 / 470.655
// kernel-us/token (the profiler: 472.672); 35 and 29 kernel names with equal per-token
// counts in both recorders.
#include <cmath>
#include <string>

#include "../label_engine.h"
#include "perfgate/gtest.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/metrics/catalogue.h"

namespace {

using perfgate::testing::EngineSpec;
using perfgate::testing::SuiteConfig;

constexpr int64_t kTokens = 64;

EngineSpec TracedEngine(const std::string& mode) {
  // Decode runs inside the NVTX range "decode_step"; one process recorded (python3).
  EngineSpec e = perfgate_suites::LabelEngine(mode, "decode_step");
  e.options.all_processes = true;
  e.record_backend = perfgate::suite::RecordBackend::kCuda;
  e.record_command = {"python3", std::string(PERFGATE_REPO_DIR) + "/tools/recordings/cuda_decode_target.py",
                      "--mode", mode, "--tokens", "{tokens}"};
  e.record_tokens = kTokens;
  return e;
}

SuiteConfig CudaDecodeSuite() {
  SuiteConfig c;
  c.suite = PERFGATE_SUITE_NAME;
  c.recordings_dir = PERFGATE_RECORDINGS_DIR;
  c.golden_dir = PERFGATE_GOLDEN_DIR;
  c.engines = {TracedEngine("graphs"), TracedEngine("eager")};
  c.baseline = "eager";
  c.record_trials = 3;
  return c;
}

class CudaDecodeH200 : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return CudaDecodeSuite(); }

  double Extra(const std::string& mode, const std::string& name) {
    auto m = perfgate::metrics::FindMetric(engine(mode), "extras/" + name);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? m->value.median : -1;
  }
};

TEST_F(CudaDecodeH200, DispatchesPerTokenBudgets) {
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_EXACTLY(engine("eager"), 423);
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_EXACTLY(engine("graphs"), 160);
}

TEST_F(CudaDecodeH200, GraphsCutGpuTimePerToken) {
  // 470.8 / 821.5 = 0.573 kernel-us per token.
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("graphs"), engine("eager"), 0.60);
}

TEST_F(CudaDecodeH200, GraphLaunchesExpandToTheirKernels) {
  // One cudaGraphLaunch per decode step, and the graph's kernels recorded one by one.
  PERFGATE_EXPECT_GRAPH_LAUNCHES_PER_TOKEN_AT_MOST(engine("graphs"), 1);
  EXPECT_EQ(Extra("graphs", "graph_launches"), kTokens);
  EXPECT_EQ(Extra("graphs", "graph_kernels"), 158 * kTokens);
  EXPECT_EQ(Extra("graphs", "kernel_launches"), 2 * kTokens);
  EXPECT_EQ(Extra("eager", "graph_kernels"), 0);
  EXPECT_EQ(Extra("eager", "kernel_launches"), 423 * kTokens);
}

TEST_F(CudaDecodeH200, BucketAndFamilyDeltasVsEager) {
  for (const char* bucket : {"xs_<2us", "sm_2_8us", "md_8_32us", "lg_32_80us", "xl_>=80us"}) {
    PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine("graphs"), engine("eager"), bucket, 1.0);
  }
  PERFGATE_EXPECT_FAMILY_DELTA_AT_MOST_PERCENT(engine("graphs"), engine("eager"), "gemm", 5);
  PERFGATE_EXPECT_KERNEL_FAMILY_PRESENT(engine("graphs"), "triton_pointwise");
  PERFGATE_EXPECT_KERNEL_FAMILY_ABSENT(engine("eager"), "triton_pointwise");
}

// The tracer against the PyTorch profiler on the same decode (issue 16's proof):
// per mode and tracer trial, kernels per decode token exactly equal, kernel-us per
// token within 2 %, and every kernel name the same number of times.
class TracerAgreesWithPyTorchProfiler : public ::testing::TestWithParam<std::string> {
 protected:
  static perfgate::attribution::AttributionOptions Options() {
    perfgate::attribution::AttributionOptions o = perfgate_suites::LabelEngine("x", "decode_step").options;
    o.all_processes = true;
    return o;
  }
  static std::string Trace(const std::string& dir, const std::string& mode, int trial) {
    return dir + "/" + mode + "/trial-" + std::to_string(trial) + "/trace.json.gz";
  }
};

TEST_P(TracerAgreesWithPyTorchProfiler, OnEveryTrial) {
  const std::string mode = GetParam();
  perfgate::attribution::WorkExtras ref_kernels;
  auto ref = perfgate::json_trace::SummarizeJsonTrialFile(Trace(PERFGATE_KINETO_RECORDINGS_DIR, mode, 1), Options(),
                                                          &ref_kernels);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref_kernels.label_source, "gpu_user_annotation");  // record_function, projected
  for (int trial = 1; trial <= 3; ++trial) {
    SCOPED_TRACE(mode + " trial-" + std::to_string(trial));
    perfgate::attribution::WorkExtras kernels;
    auto traced =
        perfgate::json_trace::SummarizeJsonTrialFile(Trace(PERFGATE_RECORDINGS_DIR, mode, trial), Options(), &kernels);
    ASSERT_TRUE(traced.ok()) << traced.status().ToString();
    EXPECT_EQ(kernels.label_source, "user_annotation");  // the NVTX ranges
    EXPECT_EQ(traced->tokens, kTokens);
    EXPECT_EQ(traced->items_per_token, ref->items_per_token);
    const double relative = std::abs(static_cast<double>(traced->total_sum_ns - ref->total_sum_ns)) / ref->total_sum_ns;
    EXPECT_LT(relative, 0.02) << traced->total_sum_ns << " vs " << ref->total_sum_ns << " ns";
    ASSERT_EQ(kernels.per_kernel.size(), ref_kernels.per_kernel.size());
    for (const auto& [name, stats] : ref_kernels.per_kernel) {
      auto it = kernels.per_kernel.find(name);
      ASSERT_NE(it, kernels.per_kernel.end()) << name;
      EXPECT_EQ(it->second.count, stats.count) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CudaDecodeH200, TracerAgreesWithPyTorchProfiler, ::testing::Values("eager", "graphs"));

TEST_F(CudaDecodeH200, GraphsGolden) { PERFGATE_EXPECT_MATCHES_GOLDEN("graphs"); }

TEST_F(CudaDecodeH200, EagerGolden) { PERFGATE_EXPECT_MATCHES_GOLDEN("eager"); }

}  // namespace
