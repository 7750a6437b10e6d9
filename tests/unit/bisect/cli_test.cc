// `perfgate bisect` on small git repositories made here: each commit holds a
// llama-bench report (bench.json, tok/s per repetition) that the record command copies,
// and may hold BROKEN, which fails the build. Each test places the regression by hand,
// so the culprit is known; every run must leave no git bisect behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "unit/bisect/test_dir.h"

namespace perfgate {
namespace {

namespace fs = std::filesystem;
using testing_support::CommandResult;
using testing_support::RunCommand;

// tok/s of the good and the bad code (higher is better; the default policy's minimum
// effect is 5 %).
const std::vector<double> kFast = {100, 101, 99, 100.5, 99.5};
const std::vector<double> kSlow = {80, 81, 79, 80.5, 79.5};

struct Commit {
  std::vector<double> ts;
  bool broken = false;
  std::string test = "tg128";  // the llama-bench test its report holds
};

std::string BenchJson(const std::vector<double>& ts, const std::string& id = "tg128") {
  const bool prompt = id == "pp512";
  nlohmann::json test = {{"model_filename", "m.gguf"}, {"n_prompt", prompt ? 512 : 0}, {"n_gen", prompt ? 0 : 128},
                         {"n_depth", 0}, {"avg_ts", ts.front()}, {"stddev_ts", 0}, {"samples_ts", ts}};
  return nlohmann::json::array({test}).dump() + "\n";
}

// A per-kernel timing report of one kernel: 2 calls per token of `us` µs each.
std::string KernelsJson(double us) {
  nlohmann::json kernel = {{"name", "kernel_mul_mv_q4_0_f32"}, {"calls_per_token_median", 2},
                           {"us_per_call_median", us}, {"us_per_call_p95", us + 1},
                           {"us_per_token_median", 2 * us}, {"dispatch_shapes_seen", nlohmann::json::array()}};
  nlohmann::json report = {{"stack", "engine"}, {"device", "H200"}, {"n_tokens", 128}, {"n_runs", 5},
                           {"kernels", nlohmann::json::array({kernel})}};
  return report.dump() + "\n";
}

class BisectCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = bisect::test::FreshTestDir("bisect_cli");
    fs::create_directories(Repo());
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path Repo() const { return root_ / "repo"; }
  std::string Work() const { return (root_ / "work").string(); }

  CommandResult Git(const std::string& args) const {
    return RunCommand("git -C " + Repo().string() + " -c user.name=t -c user.email=t@example.com " + args);
  }

  // c0, c1, ... in a line on branch main, tagged good (c0) and bad (the last).
  void MakeRepo(const std::vector<Commit>& commits) {
    ASSERT_EQ(Git("init -q -b main").exit_code, 0);
    for (size_t i = 0; i < commits.size(); ++i) {
      std::ofstream(Repo() / "bench.json") << BenchJson(commits[i].ts, commits[i].test);
      std::ofstream(Repo() / "kernels.json") << KernelsJson(10000 / commits[i].ts.front());
      std::ofstream(Repo() / "fast.json") << BenchJson(kFast);  // what a test may record instead
      if (commits[i].broken) {
        std::ofstream(Repo() / "BROKEN") << "syntax error\n";
      } else {
        fs::remove(Repo() / "BROKEN");
      }
      ASSERT_EQ(Git("add -A").exit_code, 0);
      ASSERT_EQ(Git("commit -q --allow-empty -m c" + std::to_string(i)).exit_code, 0);
      shas_.push_back(Trim(Git("rev-parse HEAD").out));
    }
    ASSERT_EQ(Git("tag good " + shas_.front()).exit_code, 0);
    ASSERT_EQ(Git("tag bad " + shas_.back()).exit_code, 0);
  }

  // `n` commits, fast before `culprit`, slow from it.
  void MakeLine(size_t n, size_t culprit) {
    std::vector<Commit> commits;
    for (size_t i = 0; i < n; ++i) commits.push_back({i < culprit ? kFast : kSlow});
    MakeRepo(commits);
  }

  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  std::string Command(const std::string& extra, const std::string& record) const {
    return std::string(PERFGATE_CLI_PATH) + " bisect --repo " + Repo().string() + " --work " + Work() +
           " --good good --bad bad --build 'test ! -e BROKEN' --record '" + record + "' " + extra;
  }

  CommandResult Bisect(const std::string& extra = "--format json",
                       const std::string& record = "cp bench.json \"$PERFGATE_BISECT_OUT/\"") const {
    return RunCommand(Command(extra, record));
  }

  // No bisect is left, main is checked out again and nothing tracked changed.
  void ExpectCleanedUp() const {
    EXPECT_NE(Git("bisect log").exit_code, 0) << "a git bisect is still in progress";
    EXPECT_EQ(Trim(Git("symbolic-ref --short HEAD").out), "main");
    EXPECT_EQ(Git("status --porcelain --untracked-files=no").out, "");
  }

  fs::path root_;
  std::vector<std::string> shas_;
};

TEST_F(BisectCliTest, FindsTheCulpritWithItsFiguresAndCleansUp) {
  MakeLine(12, 7);
  const CommandResult r = Bisect();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "perfgate.bisect");
  EXPECT_EQ(j["outcome"], "culprit");
  EXPECT_TRUE(j["proven"].get<bool>());
  EXPECT_EQ(j["metric"], "toks/tg128/engine_ts");
  EXPECT_EQ(j["culprit"]["commit"], shas_[7]);
  EXPECT_EQ(j["culprit"]["parent"], shas_[6]);
  EXPECT_EQ(j["candidates"], nlohmann::json::array({shas_[7]}));
  // The figure before and after: medians 100 and 80 (the samples above).
  EXPECT_EQ(j["figures"][0]["metric"], "toks/tg128/engine_ts");
  EXPECT_EQ(j["figures"][0]["before"], 100.0);
  EXPECT_EQ(j["figures"][0]["after"], 80.0);
  EXPECT_EQ(j["figures"][0]["verdict"], "regressed");
  // A llama-bench report has no levels: no movers.
  EXPECT_TRUE(j["movers"].is_null());
  // 5 samples a recording. The sides start at 10 samples (2 recordings each), git
  // takes 3 or 4 steps over 11 commits (1 each), and the proof records the culprit and
  // its parent afresh to 10 samples (2 each): 11 or 12.
  EXPECT_GE(j["recordings"]["taken"].get<int>(), 11);
  EXPECT_LE(j["recordings"]["taken"].get<int>(), 12);
  EXPECT_EQ(j["recordings"]["reused"], 0);
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, OfTwoRegressionsTheFirstIsFoundAndTheSecondNamed) {
  // 100 tok/s, 90 from c3, 80 from c7.
  const std::vector<double> middle = {90, 91, 89, 90.5, 89.5};
  std::vector<Commit> commits;
  for (size_t i = 0; i < 10; ++i) commits.push_back({i < 3 ? kFast : i < 7 ? middle : kSlow});
  MakeRepo(commits);
  const CommandResult r = Bisect();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[3]);
  const std::string why = j["why"].dump();
  EXPECT_NE(why.find("a second regression follows it; bisect again with --good " + shas_[3].substr(0, 12) +
                     " --bad bad"),
            std::string::npos)
      << why;
  // From the first culprit on, the second is found.
  ASSERT_EQ(Git("tag -f good " + shas_[3]).exit_code, 0);
  const CommandResult second = Bisect();
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(nlohmann::json::parse(second.out)["culprit"]["commit"], shas_[7]);
}

TEST_F(BisectCliTest, TheTextReportNamesTheCulprit) {
  MakeLine(6, 3);
  const CommandResult r = Bisect("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("culprit: " + shas_[3].substr(0, 12) + " c3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Figures before and after (" + shas_[2].substr(0, 12) + " .. " + shas_[3].substr(0, 12) + ")"),
            std::string::npos)
      << r.out;
  const CommandResult md = Bisect("--format markdown");
  EXPECT_NE(md.out.find("# perfgate bisect"), std::string::npos) << md.out;
}

TEST_F(BisectCliTest, ABuildThatChangesTrackedFilesDoesNotStopIt) {
  // Like a build that updates its lock file: every checkout would refuse.
  MakeLine(8, 5);
  const CommandResult r = RunCommand(std::string(PERFGATE_CLI_PATH) + " bisect --repo " + Repo().string() +
                                     " --work " + Work() + " --good good --bad bad --build 'date >> bench.json.lock; "
                                     "echo rebuilt >> fast.json' --record 'cp bench.json \"$PERFGATE_BISECT_OUT/\"' "
                                     "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["culprit"]["commit"], shas_[5]);
  ExpectCleanedUp();
  EXPECT_EQ(testing_support::SlurpFile((Repo() / "fast.json").string()), BenchJson(kFast));
}

TEST_F(BisectCliTest, ASecondRunReusesTheKeptRecordings) {
  MakeLine(12, 7);
  ASSERT_EQ(Bisect().exit_code, 0);
  const CommandResult again = Bisect();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto j = nlohmann::json::parse(again.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[7]);
  EXPECT_EQ(j["recordings"]["taken"], 0);
  EXPECT_GE(j["recordings"]["reused"].get<int>(), 4);
}

TEST_F(BisectCliTest, CommitsThatDoNotBuildAreSkipped) {
  std::vector<Commit> commits;
  for (size_t i = 0; i < 16; ++i) commits.push_back({i < 11 ? kFast : kSlow, i >= 3 && i <= 8});
  MakeRepo(commits);
  const CommandResult r = Bisect();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[11]);
  bool skipped = false;
  for (const auto& c : j["commits"]) {
    if (c["mark"] == "skip") {
      skipped = true;
      EXPECT_NE(c["reason"].get<std::string>().find("the build exited with status 1"), std::string::npos) << c;
    }
  }
  EXPECT_TRUE(skipped) << j["commits"];
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, AnUnbuildableParentLeavesTheSmallestRangeWithWhy) {
  std::vector<Commit> commits;
  for (size_t i = 0; i < 10; ++i) commits.push_back({i < 6 ? kFast : kSlow, i == 5});
  MakeRepo(commits);
  const CommandResult r = Bisect();
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "range");
  EXPECT_FALSE(j["proven"].get<bool>());
  EXPECT_TRUE(j["culprit"].is_null());
  EXPECT_EQ(j["candidates"].size(), 2u);
  const std::string why = j["why"].dump();
  EXPECT_NE(why.find(shas_[5].substr(0, 12) + " c5: skip: the build exited with status 1"), std::string::npos) << why;
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, ACommitThatStaysUncertainIsReportedNotGuessed) {
  // c4's repetitions are spread from 60 to 140 tok/s: no number of them tells it apart.
  std::vector<Commit> commits;
  for (size_t i = 0; i < 9; ++i) commits.push_back({i < 5 ? kFast : kSlow});
  commits[4].ts = {60, 100, 140, 70, 130};
  MakeRepo(commits);
  const CommandResult r = Bisect("--format json --max-trials 10");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["outcome"], "culprit");
  bool uncertain = false;
  for (const auto& c : j["commits"]) {
    if (c["commit"] != shas_[4]) continue;
    uncertain = true;
    EXPECT_EQ(c["mark"], "uncertain");
    EXPECT_EQ(c["samples"].size(), 10u);  // recorded again up to --max-trials
  }
  EXPECT_TRUE(uncertain) << j["commits"];
  // The first bad commit is c4 or c5, and the report says which are possible.
  // c3 and c5, recorded afresh, prove the regression lies in c4..c5.
  EXPECT_EQ(j["outcome"], "range");
  EXPECT_EQ(j["candidates"], nlohmann::json::array({shas_[4], shas_[5]})) << j["candidates"];
  EXPECT_EQ(j["before"]["commit"], shas_[3]);
  EXPECT_EQ(j["after"]["commit"], shas_[5]);
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, AnAnswerFreshRecordingsDoNotBearOutIsUncertain) {
  MakeLine(8, 5);
  // The proof's recordings (under proof/) all read fast: the marks were a fluke.
  const std::string record =
      "case \"$PERFGATE_BISECT_OUT\" in */proof/*) cp fast.json \"$PERFGATE_BISECT_OUT/\";; "
      "*) cp bench.json \"$PERFGATE_BISECT_OUT/\";; esac";
  const CommandResult r = Bisect("--format json", record);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "uncertain");
  EXPECT_FALSE(j["proven"].get<bool>());
  EXPECT_EQ(j["culprit"]["commit"], shas_[5]);  // git's answer, named as such
  EXPECT_EQ(j["confirmation"]["verdict"], "same");
  // Nothing proven: every commit after the good side may be the first bad one.
  EXPECT_EQ(j["candidates"], nlohmann::json(std::vector<std::string>(shas_.begin() + 1, shas_.end())));
  EXPECT_NE(j["why"].dump().find("not proven on fresh recordings"), std::string::npos) << j["why"];
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, NoRegressionBetweenTheSidesIsSaid) {
  MakeLine(6, 6);  // fast throughout
  const CommandResult r = Bisect();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "no_regression");
  EXPECT_NE(j["why"][0].get<std::string>().find("not worse than the good side"), std::string::npos);
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, TheGoldensPolicyJudgesWhenGiven) {
  MakeLine(6, 3);
  // A reviewed policy that accepts 30 %: the 20 % drop is within it.
  const std::string golden = (root_ / "golden.json").string();
  std::ofstream(golden) << R"({"schema_version": 1, "values": {"toks/tg128/engine_ts": {"value": 100,
      "kind": "noisy", "dir": "higher_is_better", "tol": {"rel": 0.3}}}})";
  const CommandResult lenient = Bisect("--format json --metric toks/tg128/engine_ts --policy-from " + golden);
  EXPECT_EQ(lenient.exit_code, 1) << lenient.err;
  const auto j = nlohmann::json::parse(lenient.out);
  EXPECT_EQ(j["outcome"], "no_regression");
  EXPECT_EQ(j["policy"]["rel"], 0.3);
  // --tolerance replaces the golden's minimum effect: 10 % finds the culprit.
  const CommandResult strict =
      Bisect("--format json --metric toks/tg128/engine_ts --policy-from " + golden + " --tolerance 10");
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_EQ(nlohmann::json::parse(strict.out)["culprit"]["commit"], shas_[3]);
  const CommandResult missing = Bisect("--metric toks/pp512/engine_ts --policy-from " + golden);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("error[bisect.unknown_metric]: the golden holds no value 'toks/pp512/engine_ts' "
                             "(known: toks/tg128/engine_ts)"),
            std::string::npos)
      << missing.err;
}

TEST_F(BisectCliTest, TheLogReplaysToTheSameCulprit) {
  MakeLine(12, 7);
  const std::string log = (root_ / "bisect.log").string();
  ASSERT_EQ(Bisect("--format json --log " + log).exit_code, 0);
  ASSERT_EQ(Git("bisect replay " + log).exit_code, 0);
  const CommandResult bad = Git("rev-parse refs/bisect/bad");
  EXPECT_EQ(Trim(bad.out), shas_[7]);
  EXPECT_NE(testing_support::SlurpFile(log).find("# perfgate: " + shas_[7] + " bad"), std::string::npos);
  Git("bisect reset");
}

TEST_F(BisectCliTest, ARecordFailingOnASideIsAnErrorAndResets) {
  MakeLine(6, 3);
  const CommandResult r = Bisect("", "echo no GPU >&2; exit 3");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("error[bisect.endpoint_failed]: the good side good cannot be measured: the record command "
                       "exited with status 3"),
            std::string::npos)
      << r.err;
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, CtrlCResetsTheBisectAndKeepsTheRecordings) {
  MakeLine(8, 4);
  // The record command waits on the bad side the first time; the shell interrupts
  // perfgate there.
  const std::string mark = (root_ / "recording-bad").string();
  const std::string record = "if [ \"$PERFGATE_BISECT_COMMIT\" = " + shas_.back() + " ] && [ ! -e " + mark +
                             " ]; then touch " + mark + "; sleep 30; fi; cp bench.json \"$PERFGATE_BISECT_OUT/\"";
  // At most 30 s of waiting, should perfgate stop before the record command starts.
  const std::string script = Command("--format json", record) + " & pid=$!; n=0; while [ ! -e " + mark +
                             " ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done; kill -INT $pid; wait $pid";
  const CommandResult r = RunCommand("sh -c '" + [&] {
    std::string quoted;
    for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted;
  }() + "'");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted; git bisect was reset"), std::string::npos) << r.err;
  ExpectCleanedUp();
  // The same command again goes on: the good side's two recordings are reused.
  const CommandResult again = Bisect("--format json", record);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["recordings"]["reused"], 2);
}

TEST_F(BisectCliTest, RefusesWhatItCannotBisect) {
  MakeLine(6, 3);
  const CommandResult unknown = RunCommand(std::string(PERFGATE_CLI_PATH) + " bisect --repo " + Repo().string() +
                                           " --good nosuchtag --bad bad --record true");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("error[bisect.unknown_ref]: 'nosuchtag' names no commit"), std::string::npos)
      << unknown.err;
  const CommandResult backwards = RunCommand(std::string(PERFGATE_CLI_PATH) + " bisect --repo " + Repo().string() +
                                             " --good bad --bad good --record true");
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("error[bisect.not_an_ancestor]"), std::string::npos) << backwards.err;
  const CommandResult metric = Bisect("--metric toks/tg256/engine_ts");
  EXPECT_EQ(metric.exit_code, 2);
  EXPECT_NE(metric.err.find("error[bisect.unknown_metric]"), std::string::npos) << metric.err;
  EXPECT_NE(metric.err.find("known: toks/tg128/engine_ts"), std::string::npos) << metric.err;
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, AKernelReportIsRecordedAndItsCountsKeepTheirOwnTolerance) {
  // 2 calls of 100 µs per token on the good side, of 125 µs on the bad (10000 / tok/s).
  MakeLine(8, 4);
  const std::string record = "cp kernels.json \"$PERFGATE_BISECT_OUT/\"";
  const CommandResult r = Bisect("--format json", record);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["metric"], "us_per_token");
  EXPECT_EQ(j["recording_kind"], "kernel report");
  EXPECT_EQ(j["culprit"]["commit"], shas_[4]);
  EXPECT_EQ(j["figures"][0]["before"], 200.0);
  EXPECT_EQ(j["figures"][0]["after"], 250.0);
  ASSERT_FALSE(j["movers"].is_null());
  const CommandResult exact = Bisect("--metric calls_per_token --tolerance 5", record);
  EXPECT_EQ(exact.exit_code, 2);
  EXPECT_NE(exact.err.find("error[bisect.bad_tolerance]: calls_per_token is an exact count"), std::string::npos)
      << exact.err;
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, ACommitWhoseRecordingLacksTheMetricIsSkipped) {
  // c4 measures pp512 only: it holds no sample of toks/tg128/engine_ts.
  std::vector<Commit> commits;
  for (size_t i = 0; i < 9; ++i) commits.push_back({i < 6 ? kFast : kSlow});
  commits[4].test = "pp512";
  MakeRepo(commits);
  const CommandResult r = Bisect("--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[6]);
  for (const auto& c : j["commits"]) {
    if (c["commit"] != shas_[4]) continue;
    EXPECT_EQ(c["mark"], "skip");
    EXPECT_NE(c["reason"].get<std::string>().find("holds no sample of toks/tg128/engine_ts"), std::string::npos) << c;
  }
}

TEST_F(BisectCliTest, AnUnprovenRangeIsUncertainInEveryFormat) {
  // c5 does not build, so git leaves c5..c6; the proof's fresh recordings read fast.
  std::vector<Commit> commits;
  for (size_t i = 0; i < 10; ++i) commits.push_back({i < 6 ? kFast : kSlow, i == 5});
  MakeRepo(commits);
  const std::string record =
      "case \"$PERFGATE_BISECT_OUT\" in */proof/*) cp fast.json \"$PERFGATE_BISECT_OUT/\";; "
      "*) cp bench.json \"$PERFGATE_BISECT_OUT/\";; esac";
  const CommandResult text = Bisect("", record);
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("uncertain: the change across " + shas_[4].substr(0, 12) + ".." + shas_[6].substr(0, 12) +
                          " is not proven"),
            std::string::npos)
      << text.out;
  const auto j = nlohmann::json::parse(Bisect("--format json", record).out);
  EXPECT_EQ(j["outcome"], "uncertain");
  EXPECT_TRUE(j["culprit"].is_null());
  EXPECT_EQ(j["candidates"].size(), 9u);
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, RefusesTrialCountsThatCannotWork) {
  MakeLine(6, 3);
  const CommandResult fewer = Bisect("--trials 8 --max-trials 6");
  EXPECT_EQ(fewer.exit_code, 2);
  EXPECT_NE(fewer.err.find("--max-trials must be at least --trials"), std::string::npos) << fewer.err;
  // The proof looks at alpha 0.05 / 10: 5 samples a side can never reach it.
  const CommandResult small = Bisect("--trials 5 --max-trials 5");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_NE(small.err.find("error[bisect.bad_trials]: --max-trials 5 cannot prove a culprit"), std::string::npos)
      << small.err;
  const CommandResult golden = Bisect("--policy-from golden.json");
  EXPECT_EQ(golden.exit_code, 2);
  EXPECT_NE(golden.err.find("--policy-from needs --metric"), std::string::npos) << golden.err;
  const CommandResult nowhere = RunCommand(std::string(PERFGATE_CLI_PATH) + " bisect --repo " + root_.string() +
                                           " --good a --bad b --record true");
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_NE(nowhere.err.find("error[bisect.not_a_repository]"), std::string::npos) << nowhere.err;
  ExpectCleanedUp();
}

TEST_F(BisectCliTest, ARelativeWorkDirectoryAndASubdirectoryOfTheRepositoryWork) {
  MakeLine(6, 3);
  fs::create_directories(Repo() / "sub");
  std::ofstream(Repo() / "sub" / "keep") << "x\n";
  ASSERT_EQ(Git("add -A").exit_code, 0);
  ASSERT_EQ(Git("commit -q -m sub").exit_code, 0);
  ASSERT_EQ(Git("tag -f bad").exit_code, 0);
  // Run from root_, --repo a subdirectory that older commits lack, --work relative.
  const CommandResult r = RunCommand("cd " + root_.string() + " && " + PERFGATE_CLI_PATH +
                                     " bisect --repo repo/sub --work w --good good --bad bad --record 'cp bench.json "
                                     "\"$PERFGATE_BISECT_OUT/\"' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["culprit"]["commit"], shas_[3]);
  EXPECT_TRUE(fs::is_directory(root_ / "w"));
}

TEST_F(BisectCliTest, LeavesAChangedTreeAndAnotherBisectAlone) {
  MakeLine(6, 3);
  std::ofstream(Repo() / "bench.json") << "edited\n";
  const CommandResult dirty = Bisect();
  EXPECT_EQ(dirty.exit_code, 2);
  EXPECT_NE(dirty.err.find("error[bisect.dirty_tree]"), std::string::npos) << dirty.err;
  EXPECT_EQ(testing_support::SlurpFile((Repo() / "bench.json").string()), "edited\n");
  ASSERT_EQ(Git("checkout -q -- bench.json").exit_code, 0);

  ASSERT_EQ(Git("bisect start bad good").exit_code, 0);
  const CommandResult busy = Bisect();
  EXPECT_EQ(busy.exit_code, 2);
  EXPECT_NE(busy.err.find("error[bisect.in_progress]"), std::string::npos) << busy.err;
  EXPECT_EQ(Git("bisect log").exit_code, 0) << "the user's own bisect was ended";
  Git("bisect reset");
}

}  // namespace
}  // namespace perfgate
