// `perfgate kernel-report` on the two real reports and on bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report_fixture.h"
#include "support/run_command.h"

namespace perfgate::kernel_report {
namespace {

using testing_support::RunCommand;

std::string Cli() { return PERFGATE_CLI_PATH; }

TEST(KernelReportCli, ComparesCandleWithLlamaCpp) {
  PERFGATE_CORPUS_FILE_OR_SKIP(candle, "hf2q/phase0-candle-perkernel.json");
  PERFGATE_CORPUS_FILE_OR_SKIP(llama, "hf2q/phase0-ggml-perkernel.json");
  const auto r = RunCommand(Cli() + " kernel-report " + candle + " --baseline " + llama + " --top 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // candle's timer left 103702 dispatches untimed: TOTAL says it undercounts, and the
  // attack target is chosen per call (tests/corpus/perkernel_figures.py: moe_q4_0_mv,
  // +340.53 µs/token at llama.cpp's calls, most in kernel_mul_mv_id_q4_0_f32).
  EXPECT_NE(r.out.find("Attack target: moe_q4_0_mv — chosen per call (a report left 103702 dispatches untimed"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("+340.53 µs/tok more, most in kernel_mul_mv_id_q4_0_f32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TOTAL (undercounted)                1076.03     13217.22  -12141.19"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Undercounted: the engine's report left 103702 dispatches untimed"), std::string::npos);
  EXPECT_NE(r.out.find("... 68 more"), std::string::npos);  // 73 matched names, 5 shown
  EXPECT_NE(r.out.find("kernel_report.dropped_samples"), std::string::npos);
  const auto j = RunCommand(Cli() + " kernel-report " + candle + " --baseline " + llama + " --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["comparison"]["attack_target"], "moe_q4_0_mv");
  EXPECT_EQ(doc["comparison"]["attack_basis"], "per call");
  EXPECT_EQ(doc["comparison"]["untimed_dispatches"]["engine"], 103702);
  EXPECT_EQ(doc["comparison"]["untimed_dispatches"]["baseline"], 0);
  EXPECT_EQ(doc["comparison"]["kernels"].size(), 73u);
  EXPECT_EQ(doc["baseline"]["metadata"]["stack"], "llama.cpp+ggml-metal");
}

TEST(KernelReportCli, AFamilyTableFromAFile) {
  const std::string table =
      test::WriteFile("families.json", "{\"strip_prefix\": \"\", \"rules\": [{\"prefix\": \"gemm\", \"family\": \"mm\"}]}");
  const std::string report = test::WriteFile("cli.json", test::ReportJson("s", test::KernelJson("gemm_x", 1, 2, 2)));
  const auto r = RunCommand(Cli() + " kernel-report " + report + " --kernel-families " + table + " --format markdown");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| `mm` | 2.00 | 1.0000 |"), std::string::npos) << r.out;
}

TEST(KernelReportCli, BadInputExitsTwoInCompilerForm) {
  const std::string bad = test::WriteFile("cli_bad.json", "{\"kernels\": [\n{\"name\": 3}]}\n");
  const auto r = RunCommand(Cli() + " kernel-report " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ":2:2: error[kernel_report.bad_kernel]"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perfgate::kernel_report
