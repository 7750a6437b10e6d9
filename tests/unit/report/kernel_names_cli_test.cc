// The per-kernel-name table end to end on the real H200 recordings
// (fixtures/recordings/torch_decode_h200): `perfgate attribute` in every format.
//
// Every figure asserted here was counted independently of perfgate, with a Python
// standard-library script over the trace JSON (the decode window is the first to the
// last decode_step gpu_user_annotation; µs text to ns exactly, half-up):
//
//   cd fixtures/recordings/torch_decode_h200
//   python3 ../../../tests/unit/report/kernel_names_count.py graphs/trial-{1,2,3}/trace.json.gz
//   python3 ../../../tests/unit/report/kernel_names_count.py eager/trial-1/trace.json.gz
//
// It finds 64 decode_step instances per trial, 10240 kernels in the graphs window
// (29 distinct names, all in every trial) and 27072 in the eager one (35 names; 9
// of them shared with graphs, 55 in the union).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/report_util.h"
#include "support/run_command.h"
#include "unit/report/attribute_all_formats.h"
#include "unit/report/report_tables.h"

namespace perfgate::report {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kRec = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/torch_decode_h200";
const std::string kWindow = " --tokens auto:decode_step --window label:decode_step";

// 452 characters, as the trace writes it.
const std::string kSplitK =
    "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false, float, "
    "__nv_bfloat16, __nv_bfloat16, true, false, false, false>(cublasLt::cublasSplitKParams<float>, float const*, "
    "__nv_bfloat16 const*, float*, __nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, "
    "__nv_bfloat16*, void*, long, float*, int*, float*, float*, float const*, float const*, float const*, float "
    "const*, float const*)";
const std::string kTopGemm = "nvjet_sm90_tst_8x64_64x16_2x1_v_bz_TNN";
const std::string kSdpa =
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x64_4x1x1_cga1x1x1_kernel0_0";
const std::string kTritonCopy = "triton_poi_fused_add_copy__18";

using Reports = testing_support::AllFormats;
using testing_support::Lines;
using testing_support::TableRows;

// One `attribute --format all` run over the decode window; its four reports.
Reports Attribute(const std::string& args, const std::string& name) {
  return testing_support::AttributeAllFormats(args + kWindow, "kernel-names-" + name);
}

// The script's figures of one name in one trial.
struct Counted {
  int64_t count, sum_ns, min_ns, max_ns;
};

void ExpectTrials(const json& k, const std::vector<Counted>& trials) {
  for (size_t i = 0; i < trials.size(); ++i) {
    SCOPED_TRACE("trial " + std::to_string(i + 1));
    EXPECT_EQ(k["per_trial"]["count"][i], trials[i].count);
    EXPECT_EQ(k["per_trial"]["gpu_sum_ns"][i], trials[i].sum_ns);
    EXPECT_EQ(k["per_trial"]["min_ns"][i], trials[i].min_ns);
    EXPECT_EQ(k["per_trial"]["max_ns"][i], trials[i].max_ns);
  }
}

// One run for the tests below (in one process): the three graphs trials, the ten names
// with the most GPU time. A failed run fails the test that asked (never a skip).
const Reports& Graphs() {
  static const Reports reports = Attribute("--trace graphs=" + kRec + "/graphs --kernel-names 10", "graphs");
  return reports;
}

TEST(GraphsKernelNames, JsonHoldsEveryNameWholeWithTheCountedFigures) {
  const json j = json::parse(Graphs().json);
  EXPECT_EQ(j["schema_version"], 6);
  const json& names = j["engines"]["graphs"]["kernels"];
  EXPECT_EQ(names.size(), 29u);
  int64_t kernels[3] = {0, 0, 0};
  for (const auto& [name, k] : names.items()) {
    EXPECT_EQ(k["trials_ran"], 3) << name;
    for (int t = 0; t < 3; ++t) kernels[t] += k["per_trial"]["count"][t].get<int64_t>();
  }
  EXPECT_EQ(std::vector<int64_t>(kernels, kernels + 3), (std::vector<int64_t>{10240, 10240, 10240}));

  ASSERT_TRUE(names.contains(kSplitK)) << "the 452-character name is a key, whole";
  const json& split = names[kSplitK];
  EXPECT_EQ(split["short_name"], "splitKreduce_kernel");
  EXPECT_EQ(split["family"], "gemm");
  ExpectTrials(split, {{512, 816915, 1535, 1697}, {512, 817533, 1535, 1697}, {512, 816858, 1535, 1697}});
  EXPECT_EQ(split["count"], 1536);
  EXPECT_EQ(split["gpu_sum_ns"], 816915 + 817533 + 816858);
  EXPECT_EQ(split["min_ns"], 1535);
  EXPECT_EQ(split["max_ns"], 1697);
  EXPECT_EQ(split["mean_us"].get<double>(), (816915.0 + 817533.0 + 816858.0) / 1536 / 1000);
  EXPECT_EQ(split["median_calls_per_token"].get<double>(), 8.0);  // 512 / 64
  EXPECT_EQ(split["median_gpu_us_per_token"].get<double>(), 816915 / 1000.0 / 64);  // the middle trial

  const json& gemm = names[kTopGemm];
  ExpectTrials(gemm, {{1024, 7148785, 5984, 8352}, {1024, 7158219, 5952, 8448}, {1024, 7152880, 5952, 8097}});
  EXPECT_EQ(gemm["median_gpu_us_per_token"].get<double>(), 7152880 / 1000.0 / 64);
  EXPECT_EQ(gemm["min_us"].get<double>(), 5.952);
  EXPECT_EQ(gemm["max_us"].get<double>(), 8.448);
  EXPECT_EQ(j["comparison"], nullptr);
}

// A table row with each run of spaces as one: its cells in order, whatever the widths.
std::string Squeezed(const std::string& row) {
  std::string out;
  for (char c : row) {
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  }
  return out;
}

TEST(GraphsKernelNames, TextShowsTheTopNamesShortenedWithinTheWidth) {
  const std::string& text = Graphs().text;
  ASSERT_THAT(text, HasSubstr("Per-kernel-name GPU time"));
  const std::vector<std::string> rows = TableRows(text, "kernel ");
  ASSERT_EQ(rows.size(), 10u) << text;
  // By median GPU µs/token: 7152880 ns / 64 tokens = 111.76 µs/tok first, the split-K
  // reduction (12.76) eighth, shortened, with its pooled mean 1.60 µs, min 1.53, max 1.70.
  EXPECT_THAT(rows[0], HasSubstr(kTopGemm));
  EXPECT_THAT(Squeezed(rows[0]), HasSubstr(" gemm 16.00 111.76 "));
  EXPECT_THAT(rows[7], ::testing::StartsWith("splitKreduce_kernel "));
  EXPECT_THAT(rows[7], HasSubstr("gemm"));
  EXPECT_THAT(Squeezed(rows[7]), HasSubstr(" 8.00 12.76 1.60 1.53 1.70 3/3"));
  EXPECT_THAT(text, Not(HasSubstr("cublasSplitKParams")));
  // Triton names that share a long prefix are cut in the middle: their ends differ.
  EXPECT_THAT(rows[5], ::testing::StartsWith("triton_poi_fused__scale…eze_view_where_6 "));
  EXPECT_THAT(Squeezed(rows[5]), HasSubstr("_view_where_6 triton_pointwise "));
  EXPECT_THAT(text, HasSubstr("\n… and 19 more kernel names ("));
  for (const std::string& line : Lines(text)) EXPECT_LE(util::DisplayWidth(line), 110u) << line;
}

TEST(GraphsKernelNames, MarkdownAndSvgShowTheTopNames) {
  const std::string& md = Graphs().markdown;
  ASSERT_THAT(md, HasSubstr("### Per-kernel-name GPU time\n"));
  EXPECT_THAT(md, HasSubstr("| kernel | family | calls/tok | µs/tok | mean µs | min µs | max µs | trials |\n"));
  EXPECT_THAT(md, HasSubstr("| `" + kTopGemm + "` | `gemm` | 16.00 | 111.76 | "));
  EXPECT_THAT(md, HasSubstr("| `splitKreduce_kernel` | `gemm` | 8.00 | 12.76 | 1.60 | 1.53 | 1.70 | 3/3 |\n"));
  EXPECT_THAT(md, HasSubstr("\n… and 19 more kernel names ("));
  EXPECT_THAT(md, Not(HasSubstr("cublasSplitKParams")));
  EXPECT_THAT(Graphs().svg, HasSubstr(">GPU µs/token by kernel name (top 10)</text>"));
  EXPECT_THAT(Graphs().svg, HasSubstr(">splitKreduce_kernel</text>"));
}

// One engine of a graphs trial and an eager trial: most names ran in one of the two.
// Counted: triton_poi_fused_add_copy__18 ran 512 times in graphs trial 1 (607001 ns,
// 1087..1952 ns) and never in eager trial 1; the cuDNN SDPA kernel ran in both
// (512 calls, 2462167 ns, 4704..4928; 512 calls, 2517640 ns, 4768..5408).
TEST(KernelNamesCli, ANameOneTrialLacksIsKeptAndSaysInHowManyTrials) {
  const Reports r = Attribute("--trace mixed=" + kRec + "/graphs/trial-1/trace.json.gz --trace mixed=" + kRec +
                                  "/eager/trial-1/trace.json.gz --kernel-names all",
                              "mixed");
  const json names = json::parse(r.json)["engines"]["mixed"]["kernels"];
  EXPECT_EQ(names.size(), 55u);
  const json& copy = names[kTritonCopy];
  EXPECT_EQ(copy["trials_ran"], 1);
  EXPECT_EQ(copy["per_trial"], json::parse(R"({"count": [512, 0], "gpu_sum_ns": [607001, 0],
                                               "min_ns": [1087, null], "max_ns": [1952, null]})"));
  EXPECT_EQ(copy["calls_per_token_per_trial"], json::parse("[8.0, 0.0]"));
  EXPECT_EQ(copy["median_calls_per_token"].get<double>(), 4.0);
  EXPECT_EQ(copy["median_gpu_us_per_token"].get<double>(), (607001 / 1000.0 / 64 + 0) / 2);
  EXPECT_EQ(copy["min_ns"], 1087);
  EXPECT_EQ(copy["max_ns"], 1952);
  const json& sdpa = names[kSdpa];
  EXPECT_EQ(sdpa["trials_ran"], 2);
  EXPECT_EQ(sdpa["count"], 1024);
  EXPECT_EQ(sdpa["min_ns"], 4704);
  EXPECT_EQ(sdpa["max_ns"], 5408);
  EXPECT_EQ(sdpa["mean_us"].get<double>(), (2462167.0 + 2517640.0) / 1024 / 1000);
  // The text row says 1/2: 4.00 calls/tok (8 and 0), 4.74 µs/tok (9.48 and 0).
  bool found = false;
  for (const std::string& row : TableRows(r.text, "kernel ")) {
    if (row.rfind(kTritonCopy + " ", 0) != 0) continue;
    found = true;
    EXPECT_THAT(Squeezed(row), HasSubstr(" 4.00 4.74 1.19 1.09 1.95 1/2")) << row;
  }
  EXPECT_TRUE(found) << r.text;
  EXPECT_THAT(r.text, Not(HasSubstr("more kernel names")));  // --kernel-names all
}

// graphs against eager, one trial each: Δ µs/token per name, largest first, the rows
// shown the 20 largest |Δ|. Counted: the SDPA kernel's Δ is (2462167 - 2517640) ns / 64.
TEST(KernelNamesCli, ComparisonByNameIsSortedByDelta) {
  const Reports r = Attribute("--trace graphs=" + kRec + "/graphs/trial-1/trace.json.gz --trace eager=" + kRec +
                                  "/eager/trial-1/trace.json.gz --baseline eager",
                              "compare");
  const json c = json::parse(r.json)["comparison"]["kernels"];
  ASSERT_EQ(c.size(), 55u);
  EXPECT_EQ(c[kSdpa]["delta_us_per_token"].get<double>(), 2462167 / 1000.0 / 64 - 2517640 / 1000.0 / 64);
  EXPECT_EQ(c[kTritonCopy]["baseline_us_per_token"].get<double>(), 0.0);
  EXPECT_EQ(c[kTritonCopy]["delta_pct"], nullptr);

  const std::vector<std::string> rows = TableRows(r.text, "kernel ");
  ASSERT_EQ(rows.size(), 20u) << r.text;
  // The Δ column (the third from the right) never rises, and no name left out has a
  // larger |Δ| than one shown.
  std::vector<double> shown;
  for (const std::string& row : rows) {
    std::vector<std::string> cells;
    for (size_t at = row.find_first_not_of(' '); at != std::string::npos; at = row.find_first_not_of(' ', at)) {
      const size_t end = row.find(' ', at);
      cells.push_back(row.substr(at, end - at));
      at = end;
    }
    ASSERT_GE(cells.size(), 4u) << row;
    shown.push_back(std::strtod(cells[cells.size() - 3].c_str(), nullptr));
  }
  EXPECT_TRUE(std::is_sorted(shown.rbegin(), shown.rend())) << r.text;
  std::vector<double> all;
  for (const auto& [name, d] : c.items()) all.push_back(std::fabs(d["delta_us_per_token"].get<double>()));
  std::sort(all.rbegin(), all.rend());
  double smallest_shown = INFINITY;
  for (double d : shown) smallest_shown = std::min(smallest_shown, std::fabs(d));
  EXPECT_NEAR(smallest_shown, all[19], 0.005);  // the 20th largest |Δ|; the text rounds to 0.01
  EXPECT_GT(all[19], all[20]);                   // and the cut falls between two distinct values
  EXPECT_THAT(r.text, HasSubstr("\n… and 35 more kernel names with smaller |Δ|"));
  EXPECT_THAT(r.markdown,
              HasSubstr("| kernel | graphs calls/tok | graphs µs/tok | eager calls/tok | eager µs/tok |"));
  EXPECT_THAT(r.svg, HasSubstr(">Δ GPU µs/token by kernel name (top 10 by |Δ|)</text>"));
}

// Metal System Trace exports name no kernel per submission: the reports say so in the
// source's words instead of an empty table, and the JSON keeps empty maps.
TEST(KernelNamesCli, MetalSaysWhyThereIsNoTable) {
  const std::string rec = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
  const std::string head = "output_head.fused_norm_lm_argmax";
  const Reports run = testing_support::AttributeAllFormats(
      "--trace hf2q=" + rec + "/hf2q --tokens hf2q=auto:" + head + " --window hf2q=label:" + head,
      "kernel-names-metal");
  ASSERT_EQ(run.exit_code, 0) << run.progress;
  const std::string &text = run.text, &md = run.markdown, &svg = run.svg;
  const json j = json::parse(run.json);
  const std::string why = "A submission names no kernel (no exported table joins a pipeline to GPU time)";
  EXPECT_THAT(text, HasSubstr("Per-kernel-name GPU time"));
  EXPECT_THAT(text, HasSubstr(why));
  EXPECT_TRUE(TableRows(text, "kernel ").empty()) << text;
  EXPECT_THAT(md, HasSubstr("### Per-kernel-name GPU time\n\n" + why));
  EXPECT_THAT(md, Not(HasSubstr("| kernel |")));
  EXPECT_THAT(svg, Not(HasSubstr("by kernel name")));
  EXPECT_EQ(j["engines"]["hf2q"]["kernels"], json::object());
  EXPECT_THAT(j["words"]["kernel_names"].get<std::string>(), HasSubstr(why));
}

TEST(KernelNamesCli, KernelNamesFlagTakesACountOrAll) {
  const auto r = testing_support::RunPerfgate("attribute --trace graphs=" + kRec +
                                              "/graphs/trial-1/trace.json.gz --kernel-names 0" + kWindow);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--kernel-names '0': expected a positive row count or 'all'"));
}

}  // namespace
}  // namespace perfgate::report
