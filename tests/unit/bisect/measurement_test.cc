// Reading what a record command wrote: traces, per-kernel reports and llama-bench
// reports, each figure's samples over every recording. Every expected figure is
// counted by hand in the comments.
#include "perfgate/bisect/measurement.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "unit/bisect/test_dir.h"
#include "unit/json_trace/kineto_gen.h"
#include "unit/kernel_report/report_fixture.h"

namespace perfgate::bisect {
namespace {

namespace fs = std::filesystem;
using json_trace::gen::KinetoWriter;
using kernel_report::test::KernelJson;
using kernel_report::test::ReportJson;

constexpr int64_t kUs = 1'000;

class MeasurementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("bisect_measurement");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A recording directory holding `files` (name, text).
  std::string Recording(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
    const fs::path d = dir_ / name;
    for (const auto& [file, text] : files) {
      fs::create_directories((d / file).parent_path());
      std::ofstream(d / file, std::ios::binary) << text;
    }
    fs::create_directories(d);
    return d.string();
  }

  // One trial: `n` kernels "gemm_a" of `us` µs each, one launch per kernel.
  static std::string Trace(int n, int64_t us) {
    KinetoWriter w;
    w.ProcessName(7, "python3");
    for (int i = 0; i < n; ++i) {
      const int64_t t = (i + 1) * 100 * kUs;
      w.Runtime("cudaLaunchKernel", 7, 7, t, 2 * kUs, i + 1);
      w.Kernel("gemm_a", 0, 7, t + 10 * kUs, us * kUs, i + 1);
    }
    return w.Finish();
  }

  static ReadOptions TwoTokens() {
    ReadOptions o;
    o.attribution.tokens = 2;
    return o;
  }

  fs::path dir_;
};

// llama-bench -o json with samples_ns: tok/s = n_gen / seconds.
constexpr const char* kBench =
    R"([{"model_filename": "m.gguf", "n_prompt": 0, "n_gen": 128, "n_depth": 0, "avg_ts": 96,
         "stddev_ts": 1, "samples_ns": [1000000000, 2000000000, 1000000000]}])";

TEST_F(MeasurementTest, TrialDirectoriesGiveOneSamplePerTrial) {
  // Trial 1: 4 kernels of 10 µs over 2 tokens = 20 µs/token; trial 2: 4 of 15 µs = 30.
  const std::string rec = Recording("trace", {{"trial-1/trace.json", Trace(4, 10)}, {"trial-2/trace.json", Trace(4, 15)}});
  auto m = ReadRecording(rec, TwoTokens());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->kind, RecordingKind::kTrace);
  EXPECT_EQ(*DefaultMetric(*m), "gpu_us_per_token");
  auto s = SamplesOf(*m, "gpu_us_per_token");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->samples, (std::vector<double>{20, 30}));
  EXPECT_EQ(s->policy.dir, gates::Direction::kLowerIsBetter);
  ASSERT_TRUE(m->side.has_value());
  EXPECT_EQ(m->side->total_us_per_token, (std::vector<double>{20, 30}));
}

TEST_F(MeasurementTest, PerfgateRecordsLayoutIsReadUnderTheEngineName) {
  // perfgate record --engine hf2q --out OUT writes OUT/hf2q/trial-N.
  ReadOptions options = TwoTokens();
  options.engine = "hf2q";
  auto m = ReadRecording(Recording("rec", {{"hf2q/trial-1/trace.json", Trace(4, 10)}}), options);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(SamplesOf(*m, "gpu_us_per_token")->samples, (std::vector<double>{20}));
}

TEST_F(MeasurementTest, LaterRecordingsAddTheirTrials) {
  auto m = ReadRecording(Recording("r1", {{"trial-1/trace.json", Trace(4, 10)}}), TwoTokens());
  auto more = ReadRecording(Recording("r2", {{"trial-1/trace.json", Trace(2, 10)}, {"trial-2/trace.json", Trace(6, 10)}}),
                            TwoTokens());
  ASSERT_TRUE(m.ok() && more.ok());
  ASSERT_TRUE(Merge(&*m, *more).ok());
  // 20, then 10 (2 × 10 / 2) and 30 (6 × 10 / 2): median 20.
  EXPECT_EQ(SamplesOf(*m, "gpu_us_per_token")->samples, (std::vector<double>{20, 10, 30}));
  EXPECT_EQ(m->figures.values.at("gpu_us_per_token").value, 20);
  EXPECT_EQ(m->recordings, 2);
  EXPECT_EQ(m->side->trials, 3u);
  // The kernel level keeps one value per trial of every recording.
  const diff::LevelItems& kernels = m->side->levels.back();
  ASSERT_EQ(kernels.level, diff::Level::kKernel);
  EXPECT_EQ(kernels.items.front().us_per_token, (std::vector<double>{20, 10, 30}));
}

TEST_F(MeasurementTest, AKernelReportIsOneSampleOfItsTotal) {
  // 120 + 50 + 20 µs per token.
  const std::string report = ReportJson("candle", KernelJson("kernel_mul_mv_q4_0_f32", 10, 12, 120) + ", " +
                                                      KernelJson("gemm_nt_f16", 0.5, 100, 50) + ", " +
                                                      KernelJson("kernel_rms_norm", 20, 1, 20));
  auto m = ReadRecording(Recording("k", {{"kernels.json", report}}), ReadOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->kind, RecordingKind::kKernelReport);
  EXPECT_EQ(*DefaultMetric(*m), "us_per_token");
  EXPECT_EQ(SamplesOf(*m, "us_per_token")->samples, (std::vector<double>{190}));
  auto again = ReadRecording(Recording("k2", {{"kernels.json", report}}), ReadOptions{});
  ASSERT_TRUE(Merge(&*m, *again).ok());
  EXPECT_EQ(SamplesOf(*m, "us_per_token")->samples, (std::vector<double>{190, 190}));
}

TEST_F(MeasurementTest, ALlamaBenchReportGivesTokensPerSecondPerRepetition) {
  auto m = ReadRecording(Recording("b", {{"bench.json", kBench}}), ReadOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->kind, RecordingKind::kBenchReport);
  EXPECT_FALSE(m->side.has_value());
  EXPECT_EQ(*DefaultMetric(*m), "toks/tg128/engine_ts");
  auto s = SamplesOf(*m, "toks/tg128/engine_ts");
  ASSERT_TRUE(s.ok());
  // 128 tokens in 1 s, 2 s and 1 s.
  EXPECT_EQ(s->samples, (std::vector<double>{128, 64, 128}));
  EXPECT_EQ(s->policy.dir, gates::Direction::kHigherIsBetter);
}

TEST_F(MeasurementTest, LlamaBenchsDefaultMarkdownGivesItsMeanPerRecording) {
  // llama.cpp's README example (fixtures/toks/llama-bench): tg128 at 120.60 ± 0.59, and
  // tg128 @ d512 beside it; the table has means only, one sample per recording.
  std::ifstream in(std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/llama-bench/llama_cpp_readme_depth.md");
  const std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto m = ReadRecording(Recording("md", {{"bench.md", table}}), ReadOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*DefaultMetric(*m), "toks/tg128/engine_ts");
  EXPECT_EQ(SamplesOf(*m, "toks/tg128/engine_ts")->samples, (std::vector<double>{120.60}));
  EXPECT_EQ(SamplesOf(*m, "toks/tg128 @ d512/engine_ts")->samples, (std::vector<double>{116.71}));
}

TEST_F(MeasurementTest, WhatAReaderCountedIsANote) {
  // A field llama-bench's readers do not know is read as text and counted.
  const std::string odd = R"([{"n_prompt": 0, "n_gen": 128, "avg_ts": 50, "samples_ts": [50], "new_field": 1}])";
  auto m = ReadRecording(Recording("odd", {{"bench.json", odd}}), ReadOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0].rfind("toks.unknown_field x 1", 0), 0u) << m->notes[0];
}

TEST_F(MeasurementTest, ATestOfTwoModelsIsKeptForEach) {
  // tg128 of two models in one report: neither may hide the other.
  const std::string two = R"([{"model_filename": "a.gguf", "n_prompt": 0, "n_gen": 128, "avg_ts": 50, "samples_ts": [50]},
                              {"model_filename": "b.gguf", "n_prompt": 0, "n_gen": 128, "avg_ts": 70, "samples_ts": [70]}])";
  auto m = ReadRecording(Recording("two", {{"bench.json", two}}), ReadOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(SamplesOf(*m, "toks/tg128 (a.gguf)/engine_ts")->samples, (std::vector<double>{50}));
  EXPECT_EQ(SamplesOf(*m, "toks/tg128 (b.gguf)/engine_ts")->samples, (std::vector<double>{70}));
  EXPECT_FALSE(SamplesOf(*m, "toks/tg128/engine_ts").ok());
}

TEST_F(MeasurementTest, AnUnknownMetricListsTheKnownOnes) {
  auto m = ReadRecording(Recording("b", {{"bench.json", kBench}}), ReadOptions{});
  ASSERT_TRUE(m.ok());
  auto s = SamplesOf(*m, "toks/tg256/engine_ts");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "bisect.unknown_metric");
  EXPECT_NE(s.status().message().find("known: toks/tg128/engine_ts"), std::string::npos) << s.status().message();
}

TEST_F(MeasurementTest, RecordingsOfTwoKindsDoNotMix) {
  auto bench = ReadRecording(Recording("b", {{"bench.json", kBench}}), ReadOptions{});
  auto trace = ReadRecording(Recording("t", {{"trial-1/trace.json", Trace(4, 10)}}), TwoTokens());
  ASSERT_TRUE(bench.ok() && trace.ok());
  const Status merged = Merge(&*bench, *trace);
  EXPECT_EQ(merged.code(), "bisect.mixed_recordings");
  EXPECT_EQ(SamplesOf(*bench, "toks/tg128/engine_ts")->samples.size(), 3u);
}

TEST_F(MeasurementTest, NothingWrittenOrAnUnreadableFileIsAnError) {
  auto empty = ReadRecording(Recording("empty", {}), ReadOptions{});
  EXPECT_EQ(empty.status().code(), "bisect.empty_recording");
  auto text = ReadRecording(Recording("text", {{"notes.txt", "not a recording\n"}}), ReadOptions{});
  EXPECT_EQ(text.status().code(), "bisect.unknown_recording");
  EXPECT_NE(text.status().ToString().find("notes.txt"), std::string::npos) << text.status().ToString();
}

TEST_F(MeasurementTest, FilesBesideTheTrialsAreNamedNotDropped) {
  auto m = ReadRecording(Recording("t", {{"trial-1/trace.json", Trace(4, 10)}, {"record.log", "done\n"}}), TwoTokens());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_FALSE(m->notes.empty());
  EXPECT_NE(m->notes[0].find("record.log is no trial: not read"), std::string::npos) << m->notes[0];
}

}  // namespace
}  // namespace perfgate::bisect
