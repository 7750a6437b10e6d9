// End-to-end: `perfgate attribute` over the bundled recordings, checked against the
// figures the generator put into each trial (meta.json "expected"), and the seed mode
// against the seed's formulas computed here from the raw execution points.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "perfgate/attribution/attribute.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using testing_support::RunPerfgate;
namespace fs = std::filesystem;

const std::string kRecordings = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
const std::string kHead = "output_head.fused_norm_lm_argmax";

std::string StandardArgs() {
  return "attribute --trace hf2q=" + kRecordings + "/hf2q --trace llama=" + kRecordings +
         "/llama --baseline llama --tokens hf2q=auto:" + kHead + " --window hf2q=label:" + kHead +
         " --tokens llama=64 --window llama=skip:6";
}

nlohmann::json Meta(const std::string& engine, int trial) {
  std::ifstream in(kRecordings + "/" + engine + "/trial-" + std::to_string(trial) + "/meta.json");
  return nlohmann::json::parse(in);
}

TEST(AttributeCli, JsonMatchesTheGeneratedTruthPerTrial) {
  auto r = RunPerfgate(StandardArgs() + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 6);
  ASSERT_TRUE(j["engines"].contains("hf2q"));
  ASSERT_TRUE(j["engines"].contains("llama"));
  for (int t = 1; t <= 3; ++t) {
    SCOPED_TRACE(t);
    const auto& hf2q = j["engines"]["hf2q"]["trials"][t - 1];
    const auto truth = Meta("hf2q", t)["expected"]["label_window"];
    EXPECT_EQ(hf2q["tokens"], truth["tokens"]);
    EXPECT_NEAR(hf2q["gpu_us_per_token"].get<double>(), truth["figures"]["gpu_us_per_token"].get<double>(), 0.01);
    EXPECT_NEAR(hf2q["items_per_token"].get<double>(), truth["figures"]["submissions_per_token"].get<double>(),
                1e-3);
    EXPECT_EQ(hf2q["excluded"]["unnamed_owner"], 3);
    const auto& llama = j["engines"]["llama"]["trials"][t - 1];
    const auto decode = Meta("llama", t)["expected"]["decode"];
    EXPECT_NEAR(llama["gpu_us_per_token"].get<double>(), decode["gpu_us_per_token"].get<double>(), 0.01);
    EXPECT_EQ(llama["items"], decode["submissions"]);
  }
  const auto& hf2q = j["engines"]["hf2q"];
  EXPECT_EQ(hf2q["n_trials"], 3);
  EXPECT_NEAR(hf2q["median_gpu_us_per_token"].get<double>(), 9752.1, 0.05);
  EXPECT_NEAR(hf2q["phases"]["layer.attn_moe_ffn"]["median_calls_per_token"].get<double>(), 39.35, 0.01);
  EXPECT_NEAR(hf2q["label_coverage"].get<double>(), 0.928, 0.001);
  const auto& c = j["comparison"];
  EXPECT_EQ(c["engine"], "hf2q");
  EXPECT_EQ(c["baseline"], "llama");
  EXPECT_NEAR(c["total"]["delta_us_per_token"].get<double>(), 813.1, 0.05);
  EXPECT_EQ(c["attack_target"], "xl_>=80us");
}

TEST(AttributeCli, TextReportShowsTheSideBySideTables) {
  auto r = RunPerfgate(StandardArgs());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nAttack target xl_>=80us: Δ +"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nSide-by-side bucketed attribution (medians across trials)\n"), std::string::npos);
  EXPECT_NE(r.out.find("layer.attn_moe_ffn"), std::string::npos);
  EXPECT_NE(r.err.find("ok: hf2q"), std::string::npos);
}

TEST(AttributeCli, FormatAllWritesFourReports) {
  fs::path dir = fs::temp_directory_path() / "perfgate-attribute-all";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto r = RunPerfgate(StandardArgs() + " --format all --output " + (dir / "report").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* ext : {".txt", ".md", ".json", ".svg"}) {
    EXPECT_GT(fs::file_size(dir / (std::string("report") + ext)), 500u) << ext;
  }
  fs::remove_all(dir);
}

// The case: one trial of what `perfgate record --keep-trace` wrote, its exports
// beside its trial-1.trace bundle. The figures are those of the trial read without
// the bundle (meta.json "expected": the generator's count of the window's submissions, 2827).
TEST(AttributeCli, OneRecordedTrialBesideItsTraceBundleIsRead) {
  const fs::path trial = fs::path(::testing::TempDir()) / "perfgate-own-bundle" / "trial-1";
  fs::remove_all(trial.parent_path());
  fs::create_directories(trial.parent_path());
  fs::copy(kRecordings + "/hf2q/trial-1", trial, fs::copy_options::recursive);
  fs::create_directories(trial / "trial-1.trace/Trace1.run");
  auto r = RunPerfgate("attribute --trace hf2q=" + trial.string() + " --tokens auto:" + kHead + " --window label:" +
                       kHead + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: not a trial, ignored: " + (trial / "trial-1.trace").string()), std::string::npos)
      << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engines"]["hf2q"]["trials"].size(), 1u);
  EXPECT_EQ(j["engines"]["hf2q"]["trials"][0]["items"], Meta("hf2q", 1)["expected"]["label_window"]["figures"]["submissions"]) << r.out;
  fs::remove_all(trial.parent_path());
}

TEST(AttributeCli, EngineOnlyReport) {
  auto r = RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q --tokens auto:" + kHead +
                       " --window label:" + kHead + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["comparison"].is_null());
  EXPECT_EQ(j["engines"].size(), 1u);
}

// The seed's formulas, computed here from the raw tables: every pair of every process,
// a start overwriting an open one, divided by a fixed 64 tokens.
TEST(AttributeCli, SeedCompatReproducesTheSeedsFormulas) {
  auto r = RunPerfgate("attribute --seed-compat --trace hf2q=" + kRecordings + "/hf2q --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (int t = 1; t <= 3; ++t) {
    auto tables = attribution::LoadTrial(kRecordings + "/hf2q/trial-" + std::to_string(t));
    ASSERT_TRUE(tables.ok()) << tables.status().ToString();
    std::map<uint64_t, int64_t> open;
    int64_t sum = 0, paired = 0;
    for (const auto& p : tables->execution_points) {
      if (p.function == 1) {
        open[p.submission.value] = p.timestamp_ns;
      } else if (p.function == 2 && open.count(p.submission.value)) {
        sum += p.timestamp_ns - open[p.submission.value];
        open.erase(p.submission.value);
        ++paired;
      }
    }
    const auto& trial = j["engines"]["hf2q"]["trials"][t - 1];
    EXPECT_EQ(trial["tokens"], 64);
    EXPECT_EQ(trial["items_read"], paired);
    // The JSON is lossless; the tolerance allows only for summing in another order.
    const double gpu = sum / 1000.0 / 64;
    EXPECT_NEAR(trial["gpu_us_per_token"].get<double>(), gpu, gpu * 5e-6);
    EXPECT_NEAR(trial["items_per_token"].get<double>(), paired / 64.0, paired / 64.0 * 5e-6);
    // Every process counts in the seed's figures: far above the corrected 9,597-9,805.
    EXPECT_GT(gpu, 10000);
  }
  EXPECT_EQ(j["seed_compat"], true);
}

TEST(AttributeCli, BadInvocationsExitTwo) {
  EXPECT_EQ(RunPerfgate("attribute").exit_code, 2);
  auto no_tokens = RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q");
  EXPECT_EQ(no_tokens.exit_code, 2);
  EXPECT_NE(no_tokens.err.find("error[attr.no_tokens]: no token count: pass --tokens N or --tokens auto:LABEL"),
            std::string::npos)
      << no_tokens.err;
  auto bad_pair = RunPerfgate("attribute --trace " + kRecordings + "/hf2q --tokens 64");
  EXPECT_EQ(bad_pair.exit_code, 2);
  EXPECT_NE(bad_pair.err.find("expected ENGINE=PATH"), std::string::npos);
  auto missing = RunPerfgate("attribute --trace hf2q=/nonexistent/dir --tokens 64");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/dir: error[io.not_found]"), std::string::npos);
  auto baseline = RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q --tokens 64 --baseline llama");
  EXPECT_EQ(baseline.exit_code, 2);
  EXPECT_NE(RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q --tokens 0").err.find("positive count"),
            std::string::npos);
  EXPECT_EQ(RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q --tokens 64 --window nope").exit_code, 2);
  // The wrong process prefix: no target rows, named.
  auto wrong = RunPerfgate("attribute --trace hf2q=" + kRecordings + "/hf2q --tokens 64 --process llama");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("error[attr.no_target_rows]"), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace perfgate

namespace perfgate {
namespace {

// Trace-event JSON trials (the H200 recordings) go through the same command and flags.
TEST(AttributeCli, TraceJsonTrialsUseTheSameFlags) {
  const std::string rec = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/torch_decode_h200";
  auto r = testing_support::RunPerfgate("attribute --trace graphs=" + rec + "/graphs --trace eager=" + rec +
                                        "/eager --baseline eager --tokens auto:decode_step --window label:decode_step "
                                        "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engines"]["graphs"]["n_trials"], 3);
  EXPECT_EQ(j["engines"]["graphs"]["trials"][0]["tokens"], 64);
  EXPECT_DOUBLE_EQ(j["engines"]["graphs"]["median_items_per_token"].get<double>(), 160.0);
  EXPECT_DOUBLE_EQ(j["engines"]["eager"]["median_items_per_token"].get<double>(), 423.0);
  EXPECT_LT(j["comparison"]["total"]["delta_pct"].get<double>(), -30.0);
  EXPECT_TRUE(j["comparison"]["attack_target"].is_null());  // no bucket regressed
}

}  // namespace
}  // namespace perfgate
