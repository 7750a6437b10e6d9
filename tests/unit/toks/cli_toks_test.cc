// `perfgate toks-ratio`: the per-cell table, its formats and exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/corpus.h"
#include "support/run_command.h"

namespace {

using perfgate::testing_support::RunPerfgate;
using perfgate::testing_support::WriteTempFile;

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/hf2q";
const std::string kCell = kFixtures + "/qwen3.6-35b-a3b-dwq46";

TEST(ToksCli, PolicyFormPrintsEveryCell) {
  PERFGATE_CORPUS_FILE_OR_SKIP(policy, "hf2q/perf_baseline.json");
  auto r = RunPerfgate("toks-ratio --policy " + policy + " --reports " + kFixtures + " --test tg256");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("qwen3.6-35b-a3b-dwq46  tg256        114.10          120.07  0.9503   0.94     1.0 pp  pass"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("5 vs 5"), std::string::npos);
  auto json = RunPerfgate("toks-ratio --policy " + policy + " --reports " + kFixtures + " --test tg256 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["cells"].size(), 6u);
  EXPECT_TRUE(j["pass"].get<bool>());
  auto md = RunPerfgate("toks-ratio --policy " + policy + " --reports " + kFixtures + " --test tg256 --format markdown");
  EXPECT_NE(md.out.find("| gemma-26B-dwq | tg256 |"), std::string::npos) << md.out;
}

// The real policy runs as is, without --test: each cell's one tg test is gated and said.
TEST(ToksCli, RealPolicyRunsWithoutTest) {
  PERFGATE_CORPUS_FILE_OR_SKIP(policy, "hf2q/perf_baseline.json");
  auto r = RunPerfgate("toks-ratio --policy " + policy + " --reports " + kFixtures);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("qwen3.6-35b-a3b-dwq46  tg256        114.10          120.07  0.9503"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note qwen3.6-35b-a3b-dwq46: toks.auto_test x1 (info): neither --test nor the policy names a "
                       "test: gated tg256"),
            std::string::npos)
      << r.out;
  auto floor = RunPerfgate("toks-ratio --engine " + kCell + "/engine.json --baseline " + kCell +
                           "/llama-bench.json --floor 0.95 --tolerance-pp 1");
  EXPECT_EQ(floor.exit_code, 0) << floor.out << floor.err;
  EXPECT_NE(floor.out.find("note tg256: toks.auto_test"), std::string::npos) << floor.out;
}

// llama-bench's default Markdown output as the baseline: a real run's log, device lines
// and all. Its tg128 is 24.18 ± 0.03 (the table's cell); the engine's five samples of
// 128 tokens in 4.0 s are 32 tok/s, so the ratio is 32 / 24.18 = 1.3234. Markdown holds
// no samples, so the verdict says there is no rank test, and why.
TEST(ToksCli, AMarkdownBaselineIsReadAndSaysItHasNoSamples) {
  const std::string engine =
      WriteTempFile(R"({"tests": [{"n_prompt": 0, "n_gen": 128, "samples_ns": [4e9, 4e9, 4e9, 4e9, 4e9]}]})", ".json");
  const std::string md = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/llama-bench/strix_halo_glm45_vulkan_radv.log";
  auto r = RunPerfgate("toks-ratio --engine " + engine + " --baseline " + md + " --test tg128 --floor 1.3 --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& cell = j["cells"][0];
  EXPECT_EQ(cell["baseline_ts"].get<double>(), 24.18);
  EXPECT_NEAR(cell["ratio"].get<double>(), 32.0 / 24.18, 1e-12);
  EXPECT_FALSE(cell["has_samples"].get<bool>());
  auto text = RunPerfgate("toks-ratio --engine " + engine + " --baseline " + md + " --test tg128 --floor 1.3");
  EXPECT_NE(text.out.find("the baseline has no per-repetition samples"), std::string::npos) << text.out;
}

// Two llama-bench runs appended to one Markdown log (builds 9033 and 9187, the same
// tg128): refused with the list, then read with --build.
TEST(ToksCli, AppendedRunsAreChosenWithBuild) {
  const std::string engine =
      WriteTempFile(R"({"tests": [{"n_prompt": 0, "n_gen": 128, "samples_ns": [4e9, 4e9, 4e9]}]})", ".json");
  const std::string head = "| model | backend | test | t/s |\n| --- | --- | ---: | ---: |\n";
  const std::string md = WriteTempFile(head + "| m | CPU | tg128 | 18.46 \xC2\xB1 0.17 |\n\nbuild: 70a830911 (9033)\n\n" +
                                           head + "| m | CPU | tg128 | 20.00 \xC2\xB1 0.10 |\n\nbuild: 0253fb21f (9187)\n",
                                       ".md");
  const std::string args = "toks-ratio --engine " + engine + " --baseline " + md + " --test tg128 --floor 1";
  auto both = RunPerfgate(args);
  EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("error[toks.several_runs]"), std::string::npos) << both.err;
  EXPECT_NE(both.err.find("builds 70a830911 (9033), 0253fb21f (9187)"), std::string::npos) << both.err;
  auto chosen = RunPerfgate(args + " --build 9187 --format json");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.out << chosen.err;
  EXPECT_EQ(nlohmann::json::parse(chosen.out)["cells"][0]["baseline_ts"].get<double>(), 20.00);
}

TEST(ToksCli, FloorFormExitsOneOnABreach) {
  const std::string args = "toks-ratio --engine " + kCell + "/engine.json --baseline " + kCell +
                           "/llama-bench.json --test tg256 --floor ";
  auto pass = RunPerfgate(args + "0.95 --tolerance-pp 1");
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  auto fail = RunPerfgate(args + "0.97 --tolerance-pp 1");
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("FAIL tg256: toks/tg256/ratio 0.950279 vs floor 0.97 (tolerance 0.01)"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("beyond the floor, regressed"), std::string::npos) << fail.out;
}

TEST(ToksCli, BadInputAndUsageExitTwo) {
  const std::string bad = WriteTempFile("[{\"n_prompt\": 0}]", ".json");
  auto r = RunPerfgate("toks-ratio --engine " + bad + " --baseline " + bad + " --floor 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(":1:2: error[toks.missing_field]: test has no n_gen"), std::string::npos) << r.err;
  // No test named and none in common: the error lists the tests and says how to choose.
  const std::string tg128 = WriteTempFile(R"([{"n_prompt": 0, "n_gen": 128, "avg_ts": 1}])", ".json");
  auto no_test = RunPerfgate("toks-ratio --engine " + kCell + "/engine.json --baseline " + tg128 + " --floor 1");
  EXPECT_EQ(no_test.exit_code, 2);
  EXPECT_NE(no_test.err.find("has no test 'tg128' (its tests: tg256); no test was named"), std::string::npos)
      << no_test.err;
  EXPECT_NE(no_test.err.find("choose one with --test ID or a \"test\" key in the policy"), std::string::npos)
      << no_test.err;
  auto usage = RunPerfgate("toks-ratio --engine " + bad);
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("give --policy FILE --reports DIR, or --engine FILE --baseline FILE --floor X"),
            std::string::npos)
      << usage.err;
}

}  // namespace

namespace {

// A report directory that names no cell of the policy is said, not silently skipped;
// a policy without _tolerance_pp says its tolerance is 0.
TEST(ToksCli, NotesWhatItDoesNotRead) {
  const std::string dir = ::testing::TempDir() + "toks_cli_notes_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/r/c");
  std::filesystem::create_directories(dir + "/r/stray");
  const std::string report = R"([{"n_prompt": 0, "n_gen": 128, "avg_ts": 100}])";
  for (const char* f : {"/r/c/engine.json", "/r/c/llama-bench.json"}) std::ofstream(dir + f) << report;
  std::ofstream(dir + "/p.json") << R"({"cells": {"c": {"ratio_floor": 1}}})";
  auto r = RunPerfgate("toks-ratio --policy " + dir + "/p.json --reports " + dir + "/r");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("r/stray names no cell of the policy; not read"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("note: the policy has no _tolerance_pp: tolerance 0 pp"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("no rank test: neither side has per-repetition samples"), std::string::npos) << r.out;
}

}  // namespace
