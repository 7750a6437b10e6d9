// Interchange: Bencher BMF and Otava CSV exports of a small store, checked against text
// computed by hand; imports of hf2q's counter history (the corpus), of an attribute JSON
// report the CLI writes, of goldens and of kernel-report and tok/s-ratio JSON; a
// second import adds nothing; files of no importable kind are history.bad_import.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "history/sqlite_store.h"
#include "perfgate/history/interchange.h"
#include "support/corpus.h"
#include "support/run_command.h"

namespace perfgate::history {
namespace {

namespace fs = std::filesystem;

const std::string kInterchangeCrlf = "\r\n";

class InterchangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfgate-interchange-" + NewRunKey());
    fs::create_directories(dir_);
    auto store = OpenSqliteStore((dir_ / "history.sqlite").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string WriteInterchangeFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Two runs of dec/t: hf2q in both, "llama, cpp" (a name with a comma) in the first only.
  void AppendTwoInterchangeRuns() {
    history::Run first;
    first.key = "interchange-1";
    first.context = {"2026-12-01T10:00:00Z", "abc,\"1\"", "main", "dec", "t", "m", "", "0.2.0", {}};
    first.figures = {{"hf2q", "gpu_us_per_token", 100, {99.5, 100, 101.25}, Worse::kUp},
                     {"llama, cpp", "gpu_us_per_token", 200, {200}, Worse::kUp},
                     {"hf2q", "counters/median_tok_per_sec", 24.17, {}, Worse::kDown}};
    history::Run second;
    second.key = "interchange-2";
    second.context = {"2026-12-02T10:00:00Z", "def", "feat\"x", "dec", "t", "m", "", "0.2.0", {}};
    second.figures = {{"hf2q", "gpu_us_per_token", 90.5, {90, 90.5, 91}, Worse::kUp},
                      {"hf2q", "counters/median_tok_per_sec", 36.78, {}, Worse::kDown}};
    ASSERT_EQ(*store_->Append(first), 1);
    ASSERT_EQ(*store_->Append(second), 2);
  }

  std::string Bmf(const SeriesFilter& selection, int64_t run) {
    std::ostringstream out;
    const Status s = ExportBmf(*store_, selection, run, out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out.str();
  }

  fs::path dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(InterchangeTest, BmfOfTheNewestRunByHand) {
  AppendTwoInterchangeRuns();
  // history::Run 2: hf2q's two figures; value = median, bounds = min and max of the samples, and
  // a figure without samples has its value only.
  const std::string expected =
      "{\n"
      "  \"dec/t/hf2q\": {\n"
      "    \"counters/median_tok_per_sec\": {\n"
      "      \"value\": 36.78\n"
      "    },\n"
      "    \"gpu_us_per_token\": {\n"
      "      \"lower_value\": 90.0,\n"
      "      \"upper_value\": 91.0,\n"
      "      \"value\": 90.5\n"
      "    }\n"
      "  }\n"
      "}\n";
  const std::string text = Bmf({}, kNewestRun);
  EXPECT_EQ(text, expected);
  const auto doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc.size(), 1u);
  const auto& hf2q = doc.at("dec/t/hf2q");
  EXPECT_EQ(hf2q.at("gpu_us_per_token").at("value").get<double>(), 90.5);
  EXPECT_EQ(hf2q.at("gpu_us_per_token").at("lower_value").get<double>(), 90.0);
  EXPECT_EQ(hf2q.at("gpu_us_per_token").at("upper_value").get<double>(), 91.0);
  EXPECT_EQ(hf2q.at("counters/median_tok_per_sec").at("value").get<double>(), 36.78);
  EXPECT_FALSE(hf2q.at("counters/median_tok_per_sec").contains("lower_value"));
}

TEST_F(InterchangeTest, BmfOfAChosenRunAndSelection) {
  AppendTwoInterchangeRuns();
  const auto first = nlohmann::json::parse(Bmf({}, 1));
  ASSERT_EQ(first.size(), 2u);  // hf2q and "llama, cpp"
  EXPECT_EQ(first.at("dec/t/hf2q").at("gpu_us_per_token").at("value").get<double>(), 100.0);
  EXPECT_EQ(first.at("dec/t/hf2q").at("gpu_us_per_token").at("lower_value").get<double>(), 99.5);
  EXPECT_EQ(first.at("dec/t/hf2q").at("gpu_us_per_token").at("upper_value").get<double>(), 101.25);
  EXPECT_EQ(first.at("dec/t/llama, cpp").at("gpu_us_per_token").at("value").get<double>(), 200.0);
  // The newest run holding llama's figure is run 1: run 2 lacks it.
  SeriesFilter llama;
  llama.engine = "llama, cpp";
  const auto newest = nlohmann::json::parse(Bmf(llama, kNewestRun));
  ASSERT_EQ(newest.size(), 1u);
  EXPECT_EQ(newest.at("dec/t/llama, cpp").at("gpu_us_per_token").at("upper_value").get<double>(), 200.0);
  SeriesFilter one_metric;
  one_metric.metrics = {"counters/median_tok_per_sec"};
  const auto metric = nlohmann::json::parse(Bmf(one_metric, 1));
  EXPECT_EQ(metric.at("dec/t/hf2q").size(), 1u);
  EXPECT_EQ(metric.at("dec/t/hf2q").at("counters/median_tok_per_sec").at("value").get<double>(), 24.17);
}

TEST_F(InterchangeTest, BmfMovesAMetricBencherWouldRefuseIntoTheBenchmark) {
  const std::string kernel(70, 'k');  // "kernels/<70 characters>/us_per_token_median": 97 > 64
  history::Run run;
  run.key = "interchange-long";
  run.context.time = "2026-12-01T10:00:00Z";
  run.context.suite = "s";
  run.context.test = "t";
  run.figures = {{"e", "kernels/" + kernel + "/us_per_token_median", 12.5, {}, Worse::kUp}};
  ASSERT_TRUE(store_->Append(run).ok());
  const auto doc = nlohmann::json::parse(Bmf({}, kNewestRun));
  EXPECT_EQ(doc.at("s/t/e/kernels/" + kernel).at("us_per_token_median").at("value").get<double>(), 12.5);
}

TEST_F(InterchangeTest, BmfFailsForAnUnknownRunOrSelection) {
  AppendTwoInterchangeRuns();
  std::ostringstream out;
  EXPECT_EQ(ExportBmf(*store_, {}, 99, out).code(), "history.unknown_run");
  SeriesFilter nobody;
  nobody.engine = "nobody";
  const Status none = ExportBmf(*store_, nobody, kNewestRun, out);
  EXPECT_EQ(none.code(), "history.unknown_series");
  EXPECT_NE(none.message().find("dec/t hf2q gpu_us_per_token"), std::string::npos) << none.message();
  // history::Run 2 holds no figure of llama's.
  SeriesFilter llama;
  llama.engine = "llama, cpp";
  EXPECT_EQ(ExportBmf(*store_, llama, 2, out).code(), "history.unknown_series");
  EXPECT_TRUE(out.str().empty());
}

TEST_F(InterchangeTest, OtavaCsvRowsAndQuotingByHand) {
  AppendTwoInterchangeRuns();
  // Columns by engine, then metric; "llama, cpp" and the commit `abc,"1"` and branch
  // `feat"x` are quoted with their quotes doubled; run 2 lacks llama's figure: empty.
  const std::string expected =
      "time,commit,branch,hf2q.counters/median_tok_per_sec,hf2q.gpu_us_per_token,\"llama, cpp.gpu_us_per_token\"" +
      kInterchangeCrlf + "2026-12-01T10:00:00Z,\"abc,\"\"1\"\"\",main,24.17,100.0,200.0" + kInterchangeCrlf +
      "2026-12-02T10:00:00Z,def,\"feat\"\"x\",36.78,90.5," + kInterchangeCrlf;
  std::ostringstream out;
  ASSERT_TRUE(ExportOtavaCsv(*store_, {}, out).ok());
  EXPECT_EQ(out.str(), expected);
}

TEST_F(InterchangeTest, OtavaCsvQualifiesColumnsOfSeveralTests) {
  AppendTwoInterchangeRuns();
  history::Run other;
  other.key = "interchange-3";
  other.context = {"2026-12-03T10:00:00Z", "fed", "main", "prefill", "p", "m", "", "0.2.0", {}};
  other.figures = {{"hf2q", "gpu_us_per_token", 7, {}, Worse::kUp}};
  ASSERT_TRUE(store_->Append(other).ok());
  SeriesFilter hf2q_gpu;
  hf2q_gpu.engine = "hf2q";
  hf2q_gpu.metrics = {"gpu_us_per_token"};
  std::ostringstream out;
  ASSERT_TRUE(ExportOtavaCsv(*store_, hf2q_gpu, out).ok());
  EXPECT_EQ(out.str(), "time,commit,branch,dec/t/hf2q.gpu_us_per_token,prefill/p/hf2q.gpu_us_per_token" +
                           kInterchangeCrlf + "2026-12-01T10:00:00Z,\"abc,\"\"1\"\"\",main,100.0," +
                           kInterchangeCrlf + "2026-12-02T10:00:00Z,def,\"feat\"\"x\",90.5," + kInterchangeCrlf +
                           "2026-12-03T10:00:00Z,fed,main,,7.0" + kInterchangeCrlf);
  SeriesFilter nobody;
  nobody.suite = "nobody";
  EXPECT_EQ(ExportOtavaCsv(*store_, nobody, out).code(), "history.unknown_series");
}

TEST_F(InterchangeTest, OtavaConfigNamesTheFullColumnsWithTheirDirections) {
  AppendTwoInterchangeRuns();
  // tok/s gets worse down (Otava's direction 1, higher is better), µs/token up (-1);
  // llama's column has an empty cell, which Otava's float() refuses: left out.
  const std::string expected =
      "# Apache Otava's test of perfgate's history export (CSV): otava analyze <test>\n"
      "tests:\n"
      "  \"decode\":\n"
      "    type: csv\n"
      "    file: \"out/history.csv\"\n"
      "    time_column: time\n"
      "    attributes: [commit, branch]\n"
      "    metrics:\n"
      "      \"hf2q.counters/median_tok_per_sec\":\n"
      "        column: \"hf2q.counters/median_tok_per_sec\"\n"
      "        direction: 1\n"
      "      \"hf2q.gpu_us_per_token\":\n"
      "        column: \"hf2q.gpu_us_per_token\"\n"
      "        direction: -1\n"
      "# left out, some runs lack it (Otava reads an empty cell as an error): \"llama, cpp.gpu_us_per_token\"\n";
  std::ostringstream out;
  ASSERT_TRUE(ExportOtavaConfig(*store_, {}, {"decode", "out/history.csv"}, out).ok());
  EXPECT_EQ(out.str(), expected);
}

// hf2q's metrics_baseline.txt, counted by hand: `grep -c '^median_tok_per_sec:'` gives
// 9 reports, and `grep -c '^[a-z_0-9]*: '` 171 values = 9 x 19, of which `model` and
// `hardware` are text: 17 numeric counters per report. The values below are the lines
// `grep -n '^median_tok_per_sec:\|^dispatches_per_token:'` prints; the dates those of
// `grep -n Captured`: the first report has none (its neighbour's, 2026-04-10), the
// eighth was captured 2026-04-11.
TEST_F(InterchangeTest, ImportsHf2qCounterHistory) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/metrics_baseline.txt");
  auto file = ReadImportFile(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->kind, ImportKind::kCounterHistory);
  ASSERT_EQ(file->runs.size(), 9u);
  const double tok_per_sec[] = {24.17, 36.78, 37.03, 37.06, 44.55, 48.71, 58.51, 58.27, 85.10};
  const double dispatches[] = {7513.02, 5653.02, 5652.52, 5652.52, 2432.52, 2192.52, 2194.52, 2194.52, 2104.52};
  for (size_t i = 0; i < 9; ++i) {
    const history::Run& run = file->runs[i];
    ASSERT_EQ(run.figures.size(), 17u) << i;
    EXPECT_EQ(run.context.suite, "counters");
    EXPECT_EQ(run.context.test, "metrics_baseline");
    EXPECT_EQ(run.context.device, "Apple M5 Max, 128 GB");
    EXPECT_EQ(run.context.meta.at("counters.model"), "gemma-4-26B-A4B-it-ara-abliterated-dwq.gguf");
    for (const Figure& f : run.figures) {
      EXPECT_EQ(f.engine, "hf2q");
      if (f.metric == "counters/median_tok_per_sec") {
        EXPECT_EQ(f.median, tok_per_sec[i]) << i;
        EXPECT_EQ(f.worse, Worse::kDown);  // a rate: higher is better
      }
      if (f.metric == "counters/dispatches_per_token") {
        EXPECT_EQ(f.median, dispatches[i]) << i;
        EXPECT_EQ(f.worse, Worse::kBoth);  // a count: any change is a finding
      }
    }
  }
  EXPECT_EQ(file->runs[0].context.meta.at("title"), "ADR-005 Phase 1b 1bNEW.0 — dispatch counter report");
  EXPECT_EQ(file->runs[0].context.time, "2026-04-10T00:00:00Z");
  EXPECT_EQ(file->runs[7].context.time, "2026-04-11T00:00:00Z");
  EXPECT_EQ(file->runs[8].context.time, "2026-04-10T00:00:00Z");

  auto first = ImportFile(*store_, path);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->added, 9);
  EXPECT_EQ(first->run_ids, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  auto again = ImportFile(*store_, path);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->added, 0);
  EXPECT_EQ(again->run_ids, first->run_ids);
  EXPECT_EQ(*store_->RunCount(), 9);
  EXPECT_EQ(store_->ListSeries()->size(), 17u);

  // Exported for Otava: a header and the 9 reports, tok/s as the reports write it.
  SeriesFilter toks;
  toks.metrics = {"counters/median_tok_per_sec"};
  std::ostringstream csv;
  ASSERT_TRUE(ExportOtavaCsv(*store_, toks, csv).ok());
  EXPECT_EQ(csv.str().substr(0, csv.str().find("2026-04-10T00:00:00Z,,,37.03")),
            "time,commit,branch,hf2q.counters/median_tok_per_sec" + kInterchangeCrlf +
                "2026-04-10T00:00:00Z,,,24.17" + kInterchangeCrlf + "2026-04-10T00:00:00Z,,,36.78" + kInterchangeCrlf);
  EXPECT_NE(csv.str().find("2026-04-10T00:00:00Z,,,85.1" + kInterchangeCrlf), std::string::npos) << csv.str();
}

TEST_F(InterchangeTest, ReimportAfterAReportWasAppendedAddsOnlyThatReport) {
  const std::string two =
      "# first report\nmedian_tok_per_sec: 10.5\ndispatches_per_token: 100\n\n"
      "# ====\n# second report\n# Captured 2026-05-02\n# ====\nmedian_tok_per_sec: 11\ndispatches_per_token: 90\n";
  const std::string path = WriteInterchangeFile("metrics.txt", two);
  ImportOptions options;
  options.engine = "mine";
  options.time = "2026-05-01T12:00:00Z";
  auto first = ImportFile(*store_, path, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->added, 2);
  WriteInterchangeFile("metrics.txt", two + "\n# third report\nmedian_tok_per_sec: 12\ndispatches_per_token: 80\n");
  auto second = ImportFile(*store_, path, options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->added, 1);
  ASSERT_EQ(second->run_ids.size(), 3u);
  EXPECT_EQ(second->run_ids[0], first->run_ids[0]);
  EXPECT_EQ(second->run_ids[1], first->run_ids[1]);
  auto points = store_->Points({"counters", "metrics", "mine", "counters/median_tok_per_sec"});
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[2].median, 12);
  // The undated reports take their dated neighbour's day; none is dated after it.
  EXPECT_EQ((*points)[0].time, "2026-05-02T00:00:00Z");
  EXPECT_EQ((*points)[2].time, "2026-05-02T00:00:00Z");
  // Another engine's import of the same file is other runs.
  options.engine = "theirs";
  EXPECT_EQ(ImportFile(*store_, path, options)->added, 3);
}

// The golden of the same recordings and options (suites/hf2q_decode) holds every figure
// the gate records, each to 6 significant digits: the report's figures, rebuilt from its
// JSON, must be those.
TEST_F(InterchangeTest, ImportsAnAttributeReportTheCliWrites) {
  const std::string report = (dir_ / "report.json").string();
  const std::string rec = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
  const auto r = testing_support::RunCommand(
      std::string(PERFGATE_CLI_PATH) + " attribute --trace hf2q=" + rec + "/hf2q --trace llama=" + rec +
      "/llama --baseline llama --tokens hf2q=auto:output_head.fused_norm_lm_argmax"
      " --window hf2q=label:output_head.fused_norm_lm_argmax --tokens llama=64 --window llama=skip:6"
      " --format json --output " + report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto file = ReadImportFile(report);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->kind, ImportKind::kAttributeReport);
  ASSERT_EQ(file->runs.size(), 1u);
  const history::Run& run = file->runs[0];
  EXPECT_EQ(run.context.suite, "attribute");
  EXPECT_EQ(run.context.test, "report");
  for (const std::string engine : {"hf2q", "llama"}) {
    const std::string golden = engine == "hf2q" ? "Hf2qGolden" : "LlamaGolden";
    std::ifstream in(std::string(PERFGATE_SOURCE_DIR) + "/golden/hf2q_decode/" + golden + ".json");
    const auto values = nlohmann::json::parse(in).at("values");
    size_t seen = 0;
    for (const Figure& f : run.figures) {
      if (f.engine != engine) continue;
      ++seen;
      ASSERT_TRUE(values.contains(f.metric)) << engine << " " << f.metric;
      const auto& want = values.at(f.metric);
      const double tolerance = 5e-6 * std::fabs(want.at("value").get<double>()) + 1e-12;
      EXPECT_NEAR(f.median, want.at("value").get<double>(), tolerance) << engine << " " << f.metric;
      if (want.contains("samples") && !f.samples.empty()) {
        const auto samples = want.at("samples").get<std::vector<double>>();
        ASSERT_EQ(f.samples.size(), samples.size()) << f.metric;
        for (size_t i = 0; i < samples.size(); ++i) {
          EXPECT_NEAR(f.samples[i], samples[i], 5e-6 * std::fabs(samples[i]) + 1e-12) << f.metric << " " << i;
        }
      }
    }
    EXPECT_EQ(seen, values.size()) << engine;
  }
  // Level tables for the movers: every bucket, family and phase of both engines.
  bool hf2q_phase = false;
  for (const LevelRow& row : run.levels) hf2q_phase |= row.engine == "hf2q" && row.level == "phases";
  EXPECT_TRUE(hf2q_phase);

  auto first = ImportFile(*store_, report);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->added, 1);
  auto again = ImportFile(*store_, report);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->added, 0);
  EXPECT_EQ(again->run_ids, first->run_ids);
  EXPECT_EQ(store_->ReadRun(first->run_ids[0])->levels.size(), run.levels.size());
}

TEST_F(InterchangeTest, ImportsAGoldenAsItsSuiteAndTest) {
  const std::string path = std::string(PERFGATE_SOURCE_DIR) + "/golden/hf2q_decode/LlamaGolden.json";
  std::ifstream in(path);
  const auto golden = nlohmann::json::parse(in);
  auto result = ImportFile(*store_, path);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->kind, ImportKind::kGolden);
  ASSERT_EQ(result->run_ids.size(), 1u);
  auto run = store_->ReadRun(result->run_ids[0]);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->context.suite, "hf2q_decode");
  EXPECT_EQ(run->context.test, "LlamaGolden");
  EXPECT_EQ(run->context.meta.at("recordings"), "decode_q4_0");
  ASSERT_EQ(run->figures.size(), golden.at("values").size());
  for (const Figure& f : run->figures) {
    EXPECT_EQ(f.engine, "llama");  // the golden's context names it
    EXPECT_EQ(f.median, golden.at("values").at(f.metric).at("value").get<double>()) << f.metric;
    if (f.metric == "gpu_us_per_token") EXPECT_EQ(f.worse, Worse::kUp);
  }
  EXPECT_EQ(ImportFile(*store_, path)->added, 0);
}

TEST_F(InterchangeTest, ImportsKernelReportAndToksRatioJson) {
  const std::string kernels = WriteInterchangeFile(
      "candle.json",
      "{\"stack\": \"hf2q+candle\", \"device\": \"M5 Max\", \"commit\": \"abc1234\", \"n_tokens\": 128,"
      " \"wall_clock_tok_per_sec_median\": 100.5, \"kernels\": ["
      "{\"name\": \"kernel_mul_mv_q4_0_f32\", \"calls_per_token_median\": 10, \"us_per_call_median\": 12,"
      " \"us_per_call_p95\": 13, \"us_per_token_median\": 120},"
      "{\"name\": \"kernel_rms_norm\", \"calls_per_token_median\": 20, \"us_per_call_median\": 1,"
      " \"us_per_call_p95\": 2, \"us_per_token_median\": 20}]}\n");
  const std::string kernel_json = (dir_ / "kernels.json").string();
  const auto kernel_cli = testing_support::RunCommand(std::string(PERFGATE_CLI_PATH) + " kernel-report " + kernels +
                                                      " --format json --output " + kernel_json);
  ASSERT_EQ(kernel_cli.exit_code, 0) << kernel_cli.err;
  auto file = ReadImportFile(kernel_json);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->kind, ImportKind::kKernelReport);
  const history::Run& run = file->runs.at(0);
  EXPECT_EQ(run.context.commit, "abc1234");
  EXPECT_EQ(run.context.device, "M5 Max");
  std::map<std::string, Figure> by_metric;
  for (const Figure& f : run.figures) by_metric[f.metric] = f;
  EXPECT_EQ(by_metric.at("us_per_token").median, 140);  // 120 + 20
  EXPECT_EQ(by_metric.at("us_per_token").worse, Worse::kUp);
  EXPECT_EQ(by_metric.at("wall_clock_tok_per_sec_median").worse, Worse::kDown);
  EXPECT_EQ(by_metric.at("kernels/kernel_rms_norm/calls_per_token_median").worse, Worse::kBoth);
  EXPECT_EQ(by_metric.at("kernels/kernel_rms_norm/us_per_call_p95").median, 2);
  EXPECT_EQ(by_metric.at("families/dense_q4_0_mv/us_per_token").median, 120);
  bool rms_row = false;
  for (const LevelRow& row : run.levels) {
    if (row.level == "kernels" && row.name == "kernel_rms_norm") {
      rms_row = true;
      EXPECT_EQ(row.engine, "hf2q+candle");
      EXPECT_EQ(row.calls_per_token, 20);
      EXPECT_EQ(row.us_per_token, 20);
    }
  }
  EXPECT_TRUE(rms_row);

  // tok/s per repetition = 100 tokens over 1.0, 0.9 and 0.8 s (engine) and 1.0, 1.0 and
  // 1.25 s (baseline): 100, 111.1 and 125 against a median of 100, so ratios 1.0,
  // 1.1111 and 1.25.
  const std::string test = "{\"tests\": [{\"n_prompt\": 0, \"n_gen\": 100, \"samples_ns\": ";
  const std::string engine = WriteInterchangeFile("e.json", test + "[1000000000, 900000000, 800000000]}]}");
  const std::string baseline = WriteInterchangeFile("b.json", test + "[1000000000, 1000000000, 1250000000]}]}");
  const std::string ratio_json = (dir_ / "ratio.json").string();
  const auto toks_cli =
      testing_support::RunCommand(std::string(PERFGATE_CLI_PATH) + " toks-ratio --engine " + engine + " --baseline " +
                                  baseline + " --floor 1.0 --tolerance-pp 1 --format json --output " + ratio_json);
  ASSERT_EQ(toks_cli.exit_code, 0) << toks_cli.err;
  ImportOptions options;
  options.engine = "hf2q";
  auto toks = ReadImportFile(ratio_json, options);
  ASSERT_TRUE(toks.ok()) << toks.status().ToString();
  EXPECT_EQ(toks->kind, ImportKind::kToksRatio);
  std::map<std::string, Figure> cells;
  for (const Figure& f : toks->runs.at(0).figures) cells[f.metric] = f;
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_NEAR(cells.at("toks/tg100/ratio").median, 1.0 / 0.9, 1e-12);
  ASSERT_EQ(cells.at("toks/tg100/ratio").samples.size(), 3u);
  EXPECT_NEAR(cells.at("toks/tg100/ratio").samples[2], 1.25, 1e-12);
  EXPECT_EQ(cells.at("toks/tg100/ratio").worse, Worse::kDown);
  EXPECT_NEAR(cells.at("toks/tg100/engine_ts").median, 100 / 0.9, 1e-9);
  EXPECT_EQ(cells.at("toks/tg100/baseline_ts").worse, Worse::kBoth);
  EXPECT_EQ(toks->runs.at(0).context.meta.at("toks/tg100/test"), "tg100");
}

TEST_F(InterchangeTest, FilesOfNoImportableKindAreBadImport) {
  auto error_of = [&](const std::string& name, const std::string& text) {
    auto file = ReadImportFile(WriteInterchangeFile(name, text));
    EXPECT_FALSE(file.ok()) << name;
    return file.ok() ? Status() : file.status();
  };
  const Status prose = error_of("notes.txt", "# notes\nmedian_tok_per_sec: 1\nthis line is prose\n");
  EXPECT_EQ(prose.code(), "history.bad_import");
  EXPECT_EQ(prose.location().line, 3);
  EXPECT_NE(prose.message().find("counters.bad_line"), std::string::npos) << prose.message();

  const Status unknown = error_of("other.json", "{\n  \"benchmarks\": []\n}\n");
  EXPECT_EQ(unknown.code(), "history.bad_import");
  EXPECT_EQ(unknown.location().line, 1);

  EXPECT_EQ(error_of("array.json", "[{\"avg_ts\": 1}]").code(), "history.bad_import");
  EXPECT_EQ(error_of("empty.txt", "").code(), "history.bad_import");

  const Status truncated = error_of("cut.json", "{\n  \"schema_version\": 6,\n  \"engines\": {\n");
  EXPECT_EQ(truncated.code(), "history.bad_import");
  EXPECT_GT(truncated.location().line, 0);

  const Status old = error_of("old.json", "{\n  \"engines\": {},\n  \"schema_version\": 5\n}\n");
  EXPECT_EQ(old.code(), "history.bad_import");
  EXPECT_EQ(old.location().line, 3);
  EXPECT_EQ(old.location().column, 3);

  // An engine without its GPU time: located at the engine that lacks it.
  const Status missing = error_of("missing.json",
                                  "{\"schema_version\": 6, \"engines\": {\n \"hf2q\": {\"trials\": [],"
                                  " \"median_items_per_token\": 1}\n}}\n");
  EXPECT_EQ(missing.code(), "history.bad_import");
  EXPECT_EQ(missing.location().line, 2);
  EXPECT_NE(missing.message().find("/engines/hf2q/median_gpu_us_per_token"), std::string::npos) << missing.message();

  const Status golden = error_of("bad_golden.json", "{\"schema_version\": 1, \"values\": {\"x\": {\"value\": 1}}}");
  EXPECT_EQ(golden.code(), "history.bad_import");
  EXPECT_NE(golden.message().find("golden.bad_schema"), std::string::npos) << golden.message();

  ImportOptions bad_time;
  bad_time.time = "yesterday";
  auto usage = ReadImportFile(WriteInterchangeFile("ok.txt", "# r\nx: 1\n"), bad_time);
  EXPECT_EQ(usage.status().code(), "history.bad_import");
  EXPECT_EQ(usage.status().kind(), ErrorKind::kUsage);
  EXPECT_EQ(ReadImportFile((dir_ / "absent.txt").string()).status().code(), "io.not_found");
  EXPECT_EQ(*store_->RunCount(), 0);
}

}  // namespace
}  // namespace perfgate::history
