// `perfgate history --store`, `perfgate history check` and the report subcommands'
// --history, end to end through the CLI, on SQLite stores the tests fill.
#include <filesystem>
#include <map>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "history/sqlite_store.h"
#include "perfgate/history/analysis.h"
#include "perfgate/history/store.h"
#include "support/run_command.h"

namespace perfgate::history {
namespace {

namespace fs = std::filesystem;
using testing_support::RunPerfgate;

// No CI variable, or CI=1: whether a short history may pass depends on it.
constexpr const char* kOutsideCi = "env -u CI -u GITHUB_ACTIONS -u GITLAB_CI -u JENKINS_URL -u TF_BUILD -u BUILDKITE ";
constexpr const char* kUnderCi = "env -u PERFGATE_ALLOW_SKIP CI=1 ";

class HistoryCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfgate-history-cli-" + NewRunKey());
    fs::create_directories(dir_);
    store_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `runs` runs of decode's hf2q gpu_us_per_token (lower is better) around 10,000 µs
  // with 0.2 % noise, stepped by `step` (a fraction) from run `step_at` on, each with
  // its kernel table (kernel_b takes the step).
  void FillStore(int runs, int step_at, double step) {
    auto store = OpenSqliteStore(store_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0, 0.002);
    for (int i = 0; i < runs; ++i) {
      const double extra = i >= step_at ? 10000 * step : 0;
      const double value = 10000 * (1 + noise(rng)) + extra;
      history::Run run;
      run.key = NewRunKey();
      run.context.suite = "decode";
      run.context.test = "Budgets";
      run.context.commit = "commit" + std::to_string(i);
      run.figures.push_back({"hf2q", "gpu_us_per_token", value, {value}, Worse::kUp});
      run.figures.push_back({"hf2q", "items_per_token", 48, {48, 48}, Worse::kBoth});
      run.levels.push_back({"hf2q", "kernels", "kernel_a", 24, 6000});
      run.levels.push_back({"hf2q", "kernels", "kernel_b", 24, 4000 + extra});
      ASSERT_TRUE((*store)->Append(run).ok());
    }
  }

  std::string Store() const { return " --store " + store_; }

  fs::path dir_;
  std::string store_;
};

TEST_F(HistoryCliTest, AStepShowsAsAChangePointWithItsCommitsAndMovers) {
  FillStore(40, 25, 0.05);
  const auto r = RunPerfgate("history" + Store() + " --metric gpu_us_per_token --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "perfgate.results_history/1");
  ASSERT_EQ(j["series"].size(), 1u);
  const auto& series = j["series"][0];
  EXPECT_EQ(series["points"].size(), 40u);
  ASSERT_EQ(series["change_points"].size(), 1u);
  const auto& cp = series["change_points"][0];
  EXPECT_EQ(cp["index"], 25);
  EXPECT_EQ(cp["commit_before"], "commit24");
  EXPECT_EQ(cp["commit_after"], "commit25");
  EXPECT_TRUE(cp["worse"].get<bool>());
  EXPECT_NEAR(cp["magnitude"].get<double>(), 0.05, 0.005);
  ASSERT_FALSE(cp["movers"].empty());
  EXPECT_EQ(cp["movers"][0]["name"], "kernel_b");
  EXPECT_EQ(cp["movers"][0]["us_after"].get<double>() - cp["movers"][0]["us_before"].get<double>(), 500);
}

TEST_F(HistoryCliTest, TextNamesTheChangePoint) {
  FillStore(40, 25, 0.05);
  const auto r = RunPerfgate("history" + Store() + " --engine hf2q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("commit24..commit25"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel_b"), std::string::npos) << r.out;
}

TEST_F(HistoryCliTest, TheSvgMarksTheChangePointOnItsChart) {
  FillStore(40, 25, 0.05);
  const auto r = RunPerfgate("history" + Store() + " --metric gpu_us_per_token --format svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t mark = r.out.find("class=\"mark\"");
  ASSERT_NE(mark, std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("stroke=\"#d62728\"", mark), std::string::npos);
  EXPECT_NE(r.out.find("worse</text>", mark), std::string::npos);
  // One change point, one mark.
  EXPECT_EQ(r.out.find("class=\"mark\"", mark + 1), std::string::npos);
}

TEST_F(HistoryCliTest, CheckFailsOnADriftOpenedByTheNewestRuns) {
  FillStore(40, 36, 0.03);
  const auto r = RunPerfgate(std::string("history check") + Store() + " --recent 6");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu_us_per_token"), std::string::npos);
  EXPECT_NE(r.out.find("commit35..commit36"), std::string::npos) << r.out;
  // kernel_b's 4000 µs gains the 3 % step of 10,000 µs.
  EXPECT_NE(r.out.find("kernels 4000 -> 4300 µs/token (+300), 24 -> 24 calls/token: kernel_b"), std::string::npos)
      << r.out;
  // ... and says how to find the commit inside the range.
  EXPECT_NE(r.out.find("find the commit: perfgate bisect --good commit35 --bad commit36 --engine hf2q --metric "
                       "gpu_us_per_token --record"),
            std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(RunPerfgate(std::string("history check") + Store() + " --recent 6 --format json").out);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["bisect_command"].get<std::string>().rfind("perfgate bisect --good commit35 --bad commit36", 0), 0u);
}

TEST_F(HistoryCliTest, CheckPassesAnImprovementAndAStableHistory) {
  FillStore(40, 36, -0.03);
  const auto better = RunPerfgate(std::string("history check") + Store() + " --recent 6 --format json");
  EXPECT_EQ(better.exit_code, 0) << better.out << better.err;
  const auto j = nlohmann::json::parse(better.out);
  EXPECT_TRUE(j["pass"].get<bool>());
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_FALSE(j["findings"][0]["fails"].get<bool>());
  // An improvement has no culprit to look for.
  EXPECT_TRUE(j["findings"][0]["bisect_command"].is_null());
}

TEST_F(HistoryCliTest, ASmallDriftBelowTheMinimumChangePasses) {
  FillStore(40, 36, 0.03);
  const auto r = RunPerfgate(std::string("history check") + Store() + " --recent 6 --min-change 0.05");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(HistoryCliTest, AShortHistoryIsNoSilentPassUnderCi) {
  FillStore(3, 100, 0);
  const auto outside = testing_support::RunCommand(std::string(kOutsideCi) + PERFGATE_CLI_PATH + " history check" + Store());
  EXPECT_EQ(outside.exit_code, 0) << outside.err;
  EXPECT_NE(outside.out.find("too short"), std::string::npos) << outside.out;
  EXPECT_NE(outside.out.find("NOT JUDGED"), std::string::npos) << outside.out;
  const auto under_ci = testing_support::RunCommand(std::string(kUnderCi) + PERFGATE_CLI_PATH + " history check" + Store());
  EXPECT_EQ(under_ci.exit_code, 1) << under_ci.out << under_ci.err;
  EXPECT_NE(under_ci.err.find("history.too_short"), std::string::npos) << under_ci.err;
  const auto allowed = testing_support::RunCommand(std::string(kUnderCi) + PERFGATE_CLI_PATH + " history check" +
                                                   Store() + " --allow-short");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
}

TEST_F(HistoryCliTest, AnUnknownMetricIsAnErrorListingTheSeries) {
  FillStore(3, 100, 0);
  const auto r = RunPerfgate("history" + Store() + " --metric gpu_us_per_tokn");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("history.unknown_series"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("decode/Budgets hf2q gpu_us_per_token"), std::string::npos) << r.err;
}

TEST_F(HistoryCliTest, FileAndStoreExcludeEachOtherAndOneIsNeeded) {
  const auto both = RunPerfgate("history metrics_baseline.txt" + Store());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("exclude each other"), std::string::npos) << both.err;
  const auto neither = testing_support::RunCommand(std::string("env -u PERFGATE_HISTORY ") + PERFGATE_CLI_PATH + " history");
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("give FILE"), std::string::npos) << neither.err;
}

// The figures attribute appends are the figures its JSON report holds.
TEST_F(HistoryCliTest, AttributeAppendsItsFiguresWhenAsked) {
  const std::string traces = std::string(" --trace hf2q=") + PERFGATE_SOURCE_DIR +
                             "/fixtures/recordings/decode_q4_0/hf2q --tokens 64 --format json";
  const auto r = RunPerfgate("attribute" + traces + " --history " + store_ + " --history-test decode");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("history: appended run 1"), std::string::npos) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  auto store = OpenSqliteStore(store_);
  ASSERT_TRUE(store.ok());
  auto points = (*store)->Points({"attribute", "decode", "hf2q", "gpu_us_per_token"});
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ(points->front().median, report["engines"]["hf2q"]["median_gpu_us_per_token"].get<double>());
  auto run = (*store)->ReadRun(1);
  ASSERT_TRUE(run.ok());
  EXPECT_FALSE(run->levels.empty());
  EXPECT_EQ(run->context.suite, "attribute");
}

TEST_F(HistoryCliTest, AStoreThatCannotBeWrittenFailsTheRunOnlyUnderCi) {
  const std::string bad = " --history /proc/no-such-dir/history.sqlite";
  const std::string args = std::string(" attribute --trace hf2q=") + PERFGATE_SOURCE_DIR +
                           "/fixtures/recordings/decode_q4_0/hf2q --tokens 64" + bad;
  const auto outside = testing_support::RunCommand(std::string(kOutsideCi) + PERFGATE_CLI_PATH + args);
  EXPECT_EQ(outside.exit_code, 0) << outside.err;
  EXPECT_NE(outside.err.find("warning: the run was not recorded"), std::string::npos) << outside.err;
  const auto under_ci = testing_support::RunCommand(std::string(kUnderCi) + PERFGATE_CLI_PATH + args);
  EXPECT_EQ(under_ci.exit_code, 3) << under_ci.err;
  EXPECT_NE(under_ci.err.find("error[history."), std::string::npos) << under_ci.err;
}

// The bisect command a failing check prints is one the shell reads back word for word.
TEST(BisectCommand, QuotesWhatTheShellWouldSplit) {
  history::Change change;
  change.last_before.commit = "a1";
  change.first_after.commit = "b2";
  const std::string command = history::BisectCommand({"decode", "t", "it's", "phases/(unknown)/gpu_us_per_token"}, change);
  EXPECT_EQ(command.rfind("perfgate bisect --good a1 --bad b2 --engine 'it'\\''s' --metric "
                          "'phases/(unknown)/gpu_us_per_token' --record '", 0),
            0u)
      << command;
  // Nothing to find, or nothing a recording of the engine measures:
  EXPECT_EQ(history::BisectCommand({"decode", "t", "e", "toks/decode/ratio"}, change), "");
  EXPECT_EQ(history::BisectCommand({"decode", "t", "e", "toks/decode/baseline_ts"}, change), "");
  EXPECT_NE(history::BisectCommand({"decode", "t", "e", "toks/decode/engine_ts"}, change), "");
  change.first_after.commit = "a1";
  EXPECT_EQ(history::BisectCommand({"decode", "t", "e", "m"}, change), "");
  change.first_after.commit.clear();
  EXPECT_EQ(history::BisectCommand({"decode", "t", "e", "m"}, change), "");
}

// The rule the CLI's check and PERFGATE_EXPECT_HISTORY_STABLE share.
TEST(HistoryShortFails, OnlyUnderCiAndOnlyUnlessAllowed) {
  CheckResult result;
  const auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
      const auto found = vars.find(name);
      return found == vars.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
  };
  EXPECT_FALSE(ShortFails(result, false, env_of({{"CI", "true"}})));  // nothing too short
  result.too_short.push_back({{"decode", "Budgets", "hf2q", "gpu_us_per_token"}, Worse::kUp, 3});
  EXPECT_TRUE(ShortFails(result, false, env_of({{"CI", "true"}})));
  EXPECT_FALSE(ShortFails(result, true, env_of({{"CI", "true"}})));
  EXPECT_FALSE(ShortFails(result, false, env_of({{"CI", "true"}, {"PERFGATE_ALLOW_SKIP", "1"}})));
  EXPECT_FALSE(ShortFails(result, false, env_of({})));
}

}  // namespace
}  // namespace perfgate::history
