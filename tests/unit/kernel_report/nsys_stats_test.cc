// `nsys stats` output read as per-kernel reports. The real files
// (fixtures/nsys-stats/README.md says where each comes from) are checked against
// figures counted with awk over their kernel tables (the README gives the command):
// the sums of Total Time and Instances, and the number of kernels. The built files
// (CSV, nsys 2021's gpukernsum) are checked against the values written in them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "perfgate/gtest/kernel_report.h"
#include "perfgate/kernel_report/compare.h"
#include "perfgate/kernel_report/report.h"
#include "support/run_command.h"
#include "unit/kernel_report/report_fixture.h"

namespace perfgate::kernel_report {
namespace {

const std::string kDir = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/nsys-stats/";

KernelReport Read(const std::string& file, std::optional<int64_t> tokens = std::nullopt) {
  ReadOptions options;
  options.tokens = tokens;
  auto r = ReadKernelReport(kDir + file, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : KernelReport{};
}

// `text` written as a file named `name` and read as any report is.
KernelReport ReadText(const std::string& name, const std::string& text) {
  auto r = ReadKernelReport(test::WriteFile(name, text), ReadOptions{});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : KernelReport{};
}

double Sum(const KernelReport& r, const std::string& key) {
  double s = 0;
  for (const Kernel& k : r.kernels) s += k.figure(key);
  return s;
}

// The error code of reading `text` as a file named `name`, and where it points.
std::string ErrorOf(const std::string& name, const std::string& text, std::optional<int64_t> tokens = {},
                    int* line = nullptr) {
  ReadOptions options;
  options.tokens = tokens;
  auto r = ReadKernelReport(test::WriteFile(name, text), options);
  if (r.ok()) return "ok";
  if (line != nullptr) *line = r.status().location().line;
  return r.status().code();
}

TEST(NsysStats, RealConsoleCaptureReadsItsKernelSummary) {
  const KernelReport loop = Read("nanomoe_loop.txt", 200);
  ASSERT_EQ(loop.kernels.size(), 17u);                 // awk: 17 rows
  EXPECT_DOUBLE_EQ(Sum(loop, "total_ns"), 362818668);  // awk: sum of Total Time (ns)
  EXPECT_DOUBLE_EQ(Sum(loop, "total_calls"), 253800);  // awk; = cudaLaunchKernel's Num Calls
  EXPECT_DOUBLE_EQ(Sum(loop, "us_per_token_median"), 362818668 / 1e3 / 200);
  EXPECT_DOUBLE_EQ(Sum(loop, "calls_per_token_median"), 253800 / 200.0);
  // The first row, by hand: Med (ns) 1472.0 is us_per_call_median 1.472.
  EXPECT_DOUBLE_EQ(loop.kernels[0].figure("us_per_call_median"), 1.472);
  EXPECT_DOUBLE_EQ(loop.kernels[0].figure("stddev_ns"), 17.4);
  EXPECT_TRUE(std::isnan(loop.kernels[0].figure("us_per_call_p95")));  // never invented
  EXPECT_EQ(loop.metadata.at("report"), "cuda_gpu_kern_sum");
  EXPECT_EQ(loop.metadata.at("per_instance_statistics"), "mean, median, min, max, stddev");
  EXPECT_EQ(loop.diagnostics.Count("nsys_stats.other_report"), 2);    // cuda_api_sum, nvtx_sum
  EXPECT_EQ(loop.diagnostics.Count("nsys_stats.truncated_name"), 16);  // every name but ampere_sgemm_…
  EXPECT_FALSE(loop.diagnostics.Has("kernel_report.per_run"));

  const KernelReport bmm = Read("nanomoe_bmm.txt", 200);
  EXPECT_EQ(bmm.kernels.size(), 15u);
  EXPECT_DOUBLE_EQ(Sum(bmm, "total_ns"), 285073418);
  EXPECT_DOUBLE_EQ(Sum(bmm, "total_calls"), 189000);
}

TEST(NsysStats, ThousandsSeparatorsAndEveryReportOfStatsTrue) {
  const KernelReport r = Read("vector_add_a100.txt");
  ASSERT_EQ(r.kernels.size(), 1u);
  const Kernel& k = r.kernels[0];
  EXPECT_EQ(k.name, "vectorAdd(const float *, const float *, float *, int)");
  EXPECT_DOUBLE_EQ(k.figure("total_ns"), 1830493);  // "1,830,493"
  EXPECT_DOUBLE_EQ(k.figure("total_calls"), 1010);  // "1,010"
  EXPECT_DOUBLE_EQ(k.figure("median_ns"), 1824);
  // Without a token count the per-token figures are the run's, and say so.
  EXPECT_DOUBLE_EQ(k.figure("us_per_token_median"), 1830.493);
  EXPECT_EQ(r.metadata.at("per"), "run");
  EXPECT_EQ(r.diagnostics.Count("kernel_report.per_run"), 1);
  // nvtx_sum, osrt_sum, cuda_api_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.
  EXPECT_EQ(r.diagnostics.Count("nsys_stats.other_report"), 5);
}

TEST(NsysStats, CsvKeepsNamesWithCommasWhole) {
  const KernelReport r = Read("kern_sum_format.csv", 128);
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.metadata.at("format"), "csv");
  EXPECT_NE(r.kernels[0].name.find("Flash_kernel_traits<128, 64, 64, 4, cutlass::half_t>>, false, true"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(r.kernels[1].figure("total_calls"), 3584);
  EXPECT_DOUBLE_EQ(r.kernels[1].figure("calls_per_token_median"), 28);  // 3584 / 128
  EXPECT_DOUBLE_EQ(Sum(r, "total_ns"), 7683456 + 3772928 + 1036800);
  EXPECT_FALSE(r.diagnostics.Has("nsys_stats.truncated_name"));
}

TEST(NsysStats, Nsys2021TableWithoutMedianHasNoPerCallMedian) {
  const KernelReport r = Read("gpukernsum_2021.txt");
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(r.kernels[0].figure("mean_ns"), 35210);
  EXPECT_EQ(r.kernels[0].figures.count("us_per_call_median"), 0u);
  EXPECT_EQ(r.metadata.at("per_instance_statistics"), "mean, min, max");
  EXPECT_EQ(r.diagnostics.Count("kernel_report.statistics"), 1);
}

TEST(NsysStats, TimeUnitsOfTheHeaderAreConverted) {
  const KernelReport r = ReadText(
      "units.csv",
      "\"Time (%)\",\"Total Time (us)\",\"Instances\",\"Med (ms)\",\"Name\"\n\"100.0\",\"2.5\",\"2\",\"0.001\",\"k\"\n");
  EXPECT_DOUBLE_EQ(r.kernels[0].figure("total_ns"), 2500);
  EXPECT_DOUBLE_EQ(r.kernels[0].figure("us_per_call_median"), 1);
}

TEST(NsysStats, NamesCutAlikeStayApart) {
  const std::string header = " Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  ----\n";
  const KernelReport r = ReadText("cut.txt", header + "     60.0              600          2  void k<…\n" +
                                                           "     40.0              400          2  void k<…\n");
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[1].name, "void k<… [2]");
  EXPECT_EQ(r.diagnostics.Count("nsys_stats.repeated_name"), 1);
  EXPECT_DOUBLE_EQ(Sum(r, "total_ns"), 1000);  // nothing summed away
}

TEST(NsysStats, BadInputIsALocatedError) {
  const std::string csv = "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n";
  int line = 0;
  EXPECT_EQ(ErrorOf("fields.csv", csv + "\"1\",\"2\",\"k\"\n", {}, &line), "nsys_stats.bad_row");
  EXPECT_EQ(line, 2);
  EXPECT_EQ(ErrorOf("quote.csv", csv + "\"1\",\"2\",\"3\",\"k\n"), "nsys_stats.bad_row");
  EXPECT_EQ(ErrorOf("value.csv", csv + "\"1\",\"2\",\"many\",\"k\"\n"), "nsys_stats.bad_value");
  EXPECT_EQ(ErrorOf("negative.csv", csv + "\"1\",\"-2\",\"3\",\"k\"\n"), "nsys_stats.bad_value");
  EXPECT_EQ(ErrorOf("noname.csv", csv + "\"1\",\"2\",\"3\",\"\"\n"), "nsys_stats.bad_row");
  EXPECT_EQ(ErrorOf("rows.csv", csv), "nsys_stats.no_rows");
  EXPECT_EQ(ErrorOf("header.csv", "\"Time (%)\",\"Total Time (ns)\",\"Name\"\n\"1\",\"2\",\"k\"\n"),
            "nsys_stats.bad_header");
  EXPECT_EQ(ErrorOf("unit.csv", "\"Total Time (weeks)\",\"Instances\",\"Name\"\n\"1\",\"2\",\"k\"\n"),
            "nsys_stats.bad_header");
  EXPECT_EQ(ErrorOf("prose.txt", "no CUDA kernel data were collected\n"), "nsys_stats.no_table");
  EXPECT_EQ(ErrorOf("utf8.csv", csv + "\"1\",\"2\",\"3\",\"k\xff\"\n"), "nsys_stats.bad_utf8");
  EXPECT_EQ(ErrorOf("two.csv", csv + "\"1\",\"2\",\"3\",\"k\"\n\n" + csv + "\"1\",\"2\",\"3\",\"k\"\n"),
            "nsys_stats.several_reports");
  const std::string table = " Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  ----\n";
  EXPECT_EQ(ErrorOf("short.txt", table + "     60.0              600\n", {}, &line), "nsys_stats.bad_row");
  EXPECT_EQ(line, 3);
  // A JSON report holds its own per-token figures.
  EXPECT_EQ(ErrorOf("tokens.json", test::ReportJson("s", test::KernelJson("k", 1, 2, 2)), 128),
            "kernel_report.tokens_given");
}

TEST(NsysStats, SniffedAsAPerKernelReport) {
  EXPECT_TRUE(LooksLikeKernelReport(kDir + "nanomoe_loop.txt"));
  EXPECT_TRUE(LooksLikeKernelReport(kDir + "kern_sum_format.csv"));
  EXPECT_FALSE(LooksLikeKernelReport(kDir + "README.md"));
}

// The assertions take a stats report like any other; the failing case fails.
TEST(NsysStats, AssertionsPassAndFailOnStatsReports) {
  const KernelReport loop = Read("nanomoe_loop.txt", 200);
  const KernelReport bmm = Read("nanomoe_bmm.txt", 200);
  // By hand: ampere_sgemm_64x32_sliced1x4_tn 957732 ns vs 835040 ns over 200 tokens: +0.61 µs/token.
  EXPECT_TRUE(testing::KernelDeltaAtMostUs(bmm, loop, "ampere_sgemm_64x32_sliced1x4_tn", 0.62));
  EXPECT_FALSE(testing::KernelDeltaAtMostUs(bmm, loop, "ampere_sgemm_64x32_sliced1x4_tn", 0.6));
  EXPECT_TRUE(testing::KernelFamilyDeltaAtMostUs(bmm, loop, "elementwise", 0));
}

// A failure message names kernels as error messages do: a terminal escape in a name
// prints as "\x1b", never raw.
TEST(NsysStats, FailureMessagesEscapeNames) {
  const std::string head = "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n";
  const KernelReport before = ReadText("before.csv", head + "\"100\",\"1000\",\"10\",\"k\x1b[2J\"\n");
  const KernelReport after = ReadText("after.csv", head + "\"100\",\"5000\",\"10\",\"k\x1b[2J\"\n");
  // As the PERFGATE_EXPECT_* macros hand it to GoogleTest.
  const ::testing::AssertionResult r =
      testing::internal::Explained("", testing::KernelDeltaAtMostUs(after, before, "k\x1b[2J", 1));
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  EXPECT_NE(m.find("k\\x1b[2J"), std::string::npos) << m;
}

// `perfgate diff` and `kernel-report` take the text files; --tokens divides their totals.
TEST(NsysStats, CliDiffGatesOnStatsReports) {
  const std::string loop = kDir + "nanomoe_loop.txt", bmm = kDir + "nanomoe_bmm.txt";
  auto r = testing_support::RunPerfgate("diff " + loop + " " + bmm + " --tokens 200 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // awk's sums over 200 tokens: 362818668 ns -> 1814.09334 µs/token, 285073418 -> 1425.36709.
  EXPECT_NE(r.out.find("1814.09334"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("1425.36709"), std::string::npos);
  EXPECT_EQ(testing_support::RunPerfgate("diff " + loop + " " + bmm + " --tokens 200 --fail-on 5").exit_code, 0);
  EXPECT_EQ(testing_support::RunPerfgate("diff " + bmm + " " + loop + " --tokens 200 --fail-on 5").exit_code, 1);
  r = testing_support::RunPerfgate("kernel-report " + bmm + " --baseline " + loop + " --tokens 200");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Totals of one run (nsys stats)"), std::string::npos) << r.out;
  const std::string json = test::WriteFile("cli.json", test::ReportJson("s", test::KernelJson("k", 1, 2, 2)));
  r = testing_support::RunPerfgate("kernel-report " + json + " --tokens 200");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[kernel_report.tokens_given]"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perfgate::kernel_report
