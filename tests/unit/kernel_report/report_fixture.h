// Small per-kernel reports written to the test's temporary directory.
#ifndef PERFGATE_TESTS_UNIT_KERNEL_REPORT_REPORT_FIXTURE_H_
#define PERFGATE_TESTS_UNIT_KERNEL_REPORT_REPORT_FIXTURE_H_

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "perfgate/kernel_report/report.h"
#include "support/corpus.h"

namespace perfgate::kernel_report::test {

// One kernel entry: name, calls/token, µs/call, µs/token (p95 = µs/call + 1).
inline std::string KernelJson(const std::string& name, double calls, double us_call, double us_tok,
                              const std::string& extra = "") {
  return "{\"name\": \"" + name + "\", \"calls_per_token_median\": " + std::to_string(calls) +
         ", \"us_per_call_median\": " + std::to_string(us_call) + ", \"us_per_call_p95\": " +
         std::to_string(us_call + 1) + ", \"us_per_token_median\": " + std::to_string(us_tok) +
         ", \"dispatch_shapes_seen\": []" + extra + "}";
}

inline std::string ReportJson(const std::string& stack, const std::string& kernels, const std::string& extra = "") {
  return "{\"stack\": \"" + stack + "\", \"device\": \"M5 Max\", \"n_tokens\": 128, \"n_runs\": 5, " +
         "\"wall_clock_tok_per_sec_median\": 100.5" + extra + ", \"kernels\": [" + kernels + "]}\n";
}

// The file is the test process's own: ctest -j runs each test in a process of its own,
// and two of them writing one path would read each other's reports.
inline std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/kernel_report_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline KernelReport MustRead(const std::string& name, const std::string& text) {
  auto r = ReadKernelReport(WriteFile(name, text));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : KernelReport{};
}

// The engine: candle-like names; the baseline: llama.cpp-like ones.
inline KernelReport Engine() {
  return MustRead("engine.json",
                  ReportJson("engine", KernelJson("kernel_mul_mv_q4_0_f32", 10, 12, 120) + ", " +
                                           KernelJson("gemm_nt_f16_f16_32_32_16_2_2", 0.5, 100, 50) + ", " +
                                           KernelJson("kernel_rms_norm", 20, 1, 20)));
}
inline KernelReport Baseline() {
  return MustRead("baseline.json",
                  ReportJson("baseline", KernelJson("kernel_mul_mv_q4_0_f32_nsg=2", 10, 10, 100) + ", " +
                                             KernelJson("kernel_rms_norm_mul_f32_4", 20, 2, 40) + ", " +
                                             KernelJson("kernel_bin_fuse_f32_op=2_nf=1", 5, 1, 5) + ", " +
                                             KernelJson("kernel_bin_fuse_f32_op=3_nf=1", 5, 1, 6)));
}

}  // namespace perfgate::kernel_report::test

#endif  // PERFGATE_TESTS_UNIT_KERNEL_REPORT_REPORT_FIXTURE_H_
