// The diff on four real comparisons, each figure checked against one computed without
// perfgate's attribution:
//  - the bundled regressed Metal recording against the normal one: the generator's own
//    figures in each trial's meta.json ("expected.label_window.figures", written as it
//    built the trial, fixtures/recordings/README.md);
//  - HTA's TraceDiff pair (shared/corpus/kineto/hta/trace_diff_{control_control,
//    test_test}.json.gz, A100 against V100): every kernel event summed by exact name,
//    with each name's median call, by tests/corpus/kernel_sums.py (stdlib gzip + json,
//    run by the test), whole trace, 1 token;
//  - hf2q's per-kernel reports (shared/corpus/hf2q/phase0-{ggml,candle}-perkernel.json):
//    the files' own numbers, read here with nlohmann::json;
//  - the H200 eager and graphs recordings of perfgate's CUPTI tracer
//    (fixtures/recordings/cuda_decode_h200): the figures
//    tests/recordings/cuda_tracer_agreement.py prints (423 and 160 kernels per token,
//    fixtures/recordings/cuda_decode_h200/README.md) and the kernels summed here.
// And the movers a failing per-kernel-report assertion appends (candle against
// llama.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "perfgate/attribution/options.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gtest/kernel_report.h"
#include "perfgate/kernel_report/report.h"
#include "support/corpus.h"
#include "support/run_command.h"

namespace perfgate::diff {
namespace {

using attribution::AttributionOptions;

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";
constexpr const char* kOutputHead = "output_head.fused_norm_lm_argmax";

Side Attributed(const std::string& name, const std::string& path, const AttributionOptions& o,
                const std::string& process = "") {
  auto recording = bundle::DiscoverTrials(path);
  EXPECT_TRUE(recording.ok()) << recording.status().ToString();
  if (!recording.ok()) return {};
  auto e = bundle::AttributeTrials(process.empty() ? name : process, recording->trials, o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  if (!e.ok()) return {};
  e->name = name;
  return SideOf(*e);
}

const Change* Named(const Diff& d, Level level, const std::string& name) {
  const LevelDiff* l = d.Find(level);
  if (l == nullptr) return nullptr;
  for (const Change& c : l->changes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void ExpectSharesAddUp(const Diff& d) {
  for (const LevelDiff& level : d.levels) {
    double shares = 0;
    for (const Change& c : level.changes) shares += c.share.value_or(0);
    EXPECT_NEAR(shares, 1, 1e-9) << LevelName(level.level);
  }
}

// The median of three.
double Median3(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.at(1);
}

// The generator's label-window figure `key` of each trial of a bundled recording.
std::vector<double> GeneratorFigures(const std::string& engine_dir, const std::string& key) {
  std::vector<double> out;
  for (int k = 1; k <= 3; ++k) {
    std::ifstream in(engine_dir + "/trial-" + std::to_string(k) + "/meta.json");
    const nlohmann::json meta = nlohmann::json::parse(in);
    out.push_back(meta["expected"]["label_window"]["figures"][key].get<double>());
  }
  return out;
}

TEST(DiffRecordings, MetalRegressionNamesTheMdBucketTheNewPhaseAndTheExtraSubmissions) {
  AttributionOptions o;
  o.process_prefix = "hf2q";
  o.window = *attribution::ParseWindow(std::string("label:") + kOutputHead);
  o.token_label = kOutputHead;
  const std::string normal = kFixtures + "/decode_q4_0/hf2q", regressed = kFixtures + "/decode_q4_0_regressed/hf2q";
  const Diff d = Compute(Attributed("hf2q", normal, o), Attributed("hf2q-regressed", regressed, o, "hf2q"));
  // Totals and submissions per token: medians of the generator's figures (meta.json
  // rounds them to 3 and 4 decimals).
  EXPECT_NEAR(d.before_total, Median3(GeneratorFigures(normal, "gpu_us_per_token")), 2e-3);
  EXPECT_NEAR(d.after_total, Median3(GeneratorFigures(regressed, "gpu_us_per_token")), 2e-3);
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_EQ(d.figures[0].name, "submissions_per_token");
  EXPECT_NEAR(d.figures[0].delta(),
              Median3(GeneratorFigures(regressed, "submissions_per_token")) -
                  Median3(GeneratorFigures(normal, "submissions_per_token")),
              2e-4);
  // The md bucket gains the two moe_gather submissions per token (124 in 62 tokens).
  const Change* md = Named(d, Level::kBucket, "md_8_32us");
  ASSERT_NE(md, nullptr);
  EXPECT_DOUBLE_EQ(md->delta_calls(), 2);
  EXPECT_GT(md->delta_us(), 35);
  // The cause: a phase only the regressed recording has, 2 submissions per token, ~97 %
  // of the md bucket's change.
  const Change* gather = Named(d, Level::kPhase, "layer.moe_gather");
  ASSERT_NE(gather, nullptr);
  const Change& top = *gather;
  EXPECT_EQ(top.presence, Presence::kAdded);
  EXPECT_DOUBLE_EQ(top.after_calls, 2);
  EXPECT_NEAR(top.after_us, 35.369, 0.5);  // the generator: 35.369 µs/token over the 63 decode steps
  EXPECT_NEAR(top.delta_us() / md->delta_us(), 0.97, 0.01);
  ExpectSharesAddUp(d);
}

// Kernel events summed by exact name, count, µs and median call, as
// tests/corpus/kernel_sums.py computes them (stdlib gzip + json).
struct KernelSums {
  std::map<std::string, std::pair<int64_t, double>> by_name;
  std::map<std::string, double> median_us;
  double total_us = 0;
};

KernelSums CountKernels(const std::string& gz_path) {
  const auto r = testing_support::RunCommand("python3 -S " + std::string(PERFGATE_SOURCE_DIR) +
                                             "/tests/corpus/kernel_sums.py '" + gz_path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  KernelSums sums;
  if (r.exit_code != 0) return sums;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  sums.total_us = doc.at("total_us").get<double>();
  for (const auto& [name, f] : doc.at("kernels").items()) {
    sums.by_name[name] = {f.at(0).get<int64_t>(), f.at(1).get<double>()};
    sums.median_us[name] = f.at(2).get<double>();
  }
  return sums;
}

// Σ of `names`' figures in `sums`.
std::pair<int64_t, double> SumOf(const KernelSums& sums, const std::vector<std::string>& names) {
  std::pair<int64_t, double> out{0, 0};
  for (const std::string& n : names) {
    auto it = sums.by_name.find(n);
    EXPECT_NE(it, sums.by_name.end()) << n;
    if (it == sums.by_name.end()) continue;
    out.first += it->second.first;
    out.second += it->second.second;
  }
  return out;
}

TEST(DiffRecordings, HtaTraceDiffPairKernelByKernel) {
  PERFGATE_CORPUS_FILE_OR_SKIP(control, "kineto/hta/trace_diff_control_control.json.gz");
  PERFGATE_CORPUS_FILE_OR_SKIP(test, "kineto/hta/trace_diff_test_test.json.gz");
  AttributionOptions o;
  o.tokens = 1;
  const Diff d = Compute(Attributed("control", control, o), Attributed("test", test, o));
  const KernelSums a = CountKernels(control), b = CountKernels(test);
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_NE(kernels, nullptr);
  // Every matched name's figures are the sums of its exact names' kernels.
  double before_us = 0, after_us = 0;
  size_t added = 0, removed = 0;
  for (const Change& c : kernels->changes) {
    if (c.rest) continue;
    const auto [bc, bus] = SumOf(a, c.before_names);
    const auto [ac, aus] = SumOf(b, c.after_names);
    EXPECT_DOUBLE_EQ(c.before_calls, static_cast<double>(bc)) << c.name;
    EXPECT_DOUBLE_EQ(c.after_calls, static_cast<double>(ac)) << c.name;
    EXPECT_NEAR(c.before_us, bus, 1e-6 * (1 + bus)) << c.name;
    EXPECT_NEAR(c.after_us, aus, 1e-6 * (1 + aus)) << c.name;
    // One trial a side: a kernel of one original name has that name's median call.
    if (c.before_names.size() == 1) {
      ASSERT_TRUE(c.before_us_per_call_median) << c.name;
      EXPECT_NEAR(*c.before_us_per_call_median, a.median_us.at(c.before_names[0]), 1e-6) << c.name;
    }
    if (c.after_names.size() == 1) {
      ASSERT_TRUE(c.after_us_per_call_median) << c.name;
      EXPECT_NEAR(*c.after_us_per_call_median, b.median_us.at(c.after_names[0]), 1e-6) << c.name;
    }
    before_us += c.before_us;
    after_us += c.after_us;
    added += c.presence == Presence::kAdded;
    removed += c.presence == Presence::kRemoved;
  }
  EXPECT_NEAR(before_us, a.total_us, 1e-3);
  EXPECT_NEAR(after_us, b.total_us, 1e-3);
  // Names only one GPU ran: V100's volta_sgemm kernels are added, A100's
  // ampere_sgemm and cutlass 80 kernels removed.
  EXPECT_EQ(added, 21u);
  EXPECT_EQ(removed, 59u);
  EXPECT_EQ(Named(d, Level::kKernel, "volta_sgemm_128x32_nt")->presence, Presence::kAdded);
  EXPECT_EQ(Named(d, Level::kKernel, "ampere_sgemm_128x128_tn")->presence, Presence::kRemoved);
  // The largest mover: the all-reduce, 18 -> 21 calls, 32880 -> 92082 µs.
  const Change& top = kernels->changes[0].rest ? kernels->changes[1] : kernels->changes[0];
  EXPECT_EQ(top.name, "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(SumOf(a, top.before_names).first, 18);
  EXPECT_EQ(SumOf(b, top.after_names).first, 21);
  ExpectSharesAddUp(d);
}

// hf2q's two per-kernel reports, read (a missing corpus skips, or fails under CI).
#define READ_REPORTS(ggml, candle, ggml_path, candle_path)                      \
  PERFGATE_CORPUS_FILE_OR_SKIP(ggml_path, "hf2q/phase0-ggml-perkernel.json");     \
  PERFGATE_CORPUS_FILE_OR_SKIP(candle_path, "hf2q/phase0-candle-perkernel.json"); \
  auto ggml = kernel_report::ReadKernelReport(ggml_path);                         \
  auto candle = kernel_report::ReadKernelReport(candle_path);                     \
  ASSERT_TRUE(ggml.ok() && candle.ok())

TEST(DiffRecordings, CandleAgainstLlamaCppPerKernelReports) {
  READ_REPORTS(ggml, candle, ggml_path, candle_path);
  const Diff d = Compute(SideOf(*ggml), SideOf(*candle));
  // The files' own sums.
  auto sum = [](const std::string& path) {
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    double us = 0;
    for (const auto& k : doc.at("kernels")) us += k.at("us_per_token_median").get<double>();
    return us;
  };
  EXPECT_NEAR(d.before_total, sum(ggml_path), 1e-9);
  EXPECT_NEAR(d.after_total, sum(candle_path), 1e-9);
  ASSERT_EQ(d.notes.size(), 1u);  // candle's timer dropped samples: its per-token figures undercount
  EXPECT_NE(d.notes[0].find("103702 dispatches were not timed"), std::string::npos) << d.notes[0];
  // The Q4_0 mat-vec under two spellings (llama.cpp's specialisation suffix, candle's
  // plain name) matched on one row, both originals kept.
  const Change* q4 = Named(d, Level::kKernel, "kernel_mul_mv_q4_0_f32");
  ASSERT_NE(q4, nullptr);
  EXPECT_EQ(q4->presence, Presence::kBoth);
  EXPECT_EQ(q4->before_names, std::vector<std::string>{"kernel_mul_mv_q4_0_f32_nsg=2"});
  EXPECT_EQ(q4->after_names, std::vector<std::string>{"kernel_mul_mv_q4_0_f32"});
  // Kernels only one stack has: llama.cpp's fused rms_norm_mul, candle's own.
  EXPECT_EQ(Named(d, Level::kKernel, "kernel_rms_norm_mul_f32_4")->presence, Presence::kRemoved);
  EXPECT_EQ(Named(d, Level::kFamily, "rms_norm")->presence, Presence::kRemoved);
  // Per call (undercounting leaves it whole): candle's MoE Q4_0 mat-vec is slower.
  const Change* moe = Named(d, Level::kKernel, "kernel_mul_mv_id_q4_0_f32");
  ASSERT_NE(moe, nullptr);
  ASSERT_TRUE(moe->delta_us_per_call());
  EXPECT_GT(*moe->delta_us_per_call(), 5);
  ExpectSharesAddUp(d);
}

TEST(Movers, APerKernelReportFailureListsTheKernelsThatMoved) {
  READ_REPORTS(ggml, candle, ggml_path, candle_path);
  // candle's MoE Q4_0 mat-vec is 7.2 µs per call slower than llama.cpp's.
  const ::testing::AssertionResult r =
      perfgate::testing::KernelPerCallDeltaAtMostPercent(*candle, *ggml, "kernel_mul_mv_id_q4_0_f32", 10);
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_NE(m.find("what changed: " + candle->name + " against " + ggml->name + ": 1 vs 1 trials"), std::string::npos) << m;
  EXPECT_NE(m.find("caution: " + candle->name + ": 103702 dispatches were not timed"), std::string::npos) << m;
  EXPECT_NE(m.find(" top 5 by kernel: 73 (37 added, 27 removed)"), std::string::npos) << m;
  EXPECT_NE(m.find("  kernel_mul_mv_f16_f32_4        removed"), std::string::npos) << m;
  // A per-call median adds up over no level's items: no headline claims a share of it.
  EXPECT_EQ(m.find(" % from "), std::string::npos) << m;
}

TEST(DiffRecordings, TwoPerKernelReportsTakeNoAttributionFlags) {
  READ_REPORTS(ggml, candle, ggml_path, candle_path);
  auto r = testing_support::RunPerfgate("diff " + ggml_path + " " + candle_path + " --window skip:1 --all-processes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("per-kernel timing reports hold figures, not traces: --window, --all-processes would change "
                       "nothing"),
            std::string::npos)
      << r.err;
  // --tokens is an nsys stats report's token count; a JSON report has its own.
  r = testing_support::RunPerfgate("diff " + ggml_path + " " + candle_path + " --tokens 64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[kernel_report.tokens_given]"), std::string::npos) << r.err;
  EXPECT_EQ(testing_support::RunPerfgate("diff " + ggml_path + " " + candle_path).exit_code, 0);
}

TEST(DiffRecordings, H200GraphsAgainstEagerLaunchesCollapseElementwiseVanishesTritonAppears) {
  AttributionOptions o;
  o.window = attribution::DecodeWindow::Label("decode_step");
  o.token_label = "decode_step";
  o.all_processes = true;
  const std::string dir = kFixtures + "/cuda_decode_h200";
  const Diff d = Compute(Attributed("eager", dir + "/eager", o), Attributed("graphs", dir + "/graphs", o));
  std::map<std::string, const FigureChange*> figures;
  for (const FigureChange& f : d.figures) figures[f.name] = &f;
  // tests/recordings/cuda_tracer_agreement.py: 423 and 160 kernels per token.
  ASSERT_TRUE(figures.count("kernels_per_token") && figures.count("launches_per_token"));
  EXPECT_DOUBLE_EQ(figures["kernels_per_token"]->before, 423);
  EXPECT_DOUBLE_EQ(figures["kernels_per_token"]->after, 160);
  // One cudaGraphLaunch per token (and two more launches outside the graph) for 423.
  EXPECT_DOUBLE_EQ(figures["launches_per_token"]->before, 423);
  EXPECT_DOUBLE_EQ(figures["launches_per_token"]->after, 3);
  EXPECT_DOUBLE_EQ(figures["graph_launches_per_token"]->after, 1);
  // Elementwise kernels vanish into Triton's fused ones.
  const Change* elementwise = Named(d, Level::kFamily, "elementwise");
  ASSERT_NE(elementwise, nullptr);
  EXPECT_EQ(d.Find(Level::kFamily)->changes[0].name, "elementwise");
  EXPECT_DOUBLE_EQ(elementwise->before_calls, 284);
  EXPECT_DOUBLE_EQ(elementwise->after_calls, 2);
  EXPECT_EQ(Named(d, Level::kFamily, "triton_pointwise")->presence, Presence::kAdded);
  EXPECT_EQ(Named(d, Level::kFamily, "triton_reduction")->presence, Presence::kAdded);
  EXPECT_EQ(Named(d, Level::kKernel, "elementwise_kernel")->presence, Presence::kRemoved);
  EXPECT_LT(d.delta_total(), -340);  // 822.6 -> 471.9 µs/token
  ExpectSharesAddUp(d);
}

}  // namespace
}  // namespace perfgate::diff
