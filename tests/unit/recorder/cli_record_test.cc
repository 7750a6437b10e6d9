// End-to-end: `perfgate record` with the xctrace stand-in (PERFGATE_XCTRACE), then
// `perfgate attribute` on what it wrote; exit codes of the failure paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "recorder_support.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using ::testing::HasSubstr;
using testing_support::ReadJson;
using testing_support::RunCommand;
using testing_support::RunPerfgate;
namespace fs = std::filesystem;

class RecordCli : public testing_support::RecorderSandbox {
 protected:
  // `perfgate record` of the hf2q stand-in engine with `flags`.
  testing_support::CommandResult Record(const std::string& flags, const std::string& env = "") {
    return RunCommand(env + " " + PERFGATE_CLI_PATH + " record --engine hf2q --out " + out_ + " " + flags + " -- " +
                      Bin("hf2q") + " --max-tokens {tokens} --prompt 'Hello, my name is'");
  }
};

TEST_F(RecordCli, RecordsABundleThatAttributeReads) {
  auto r = Record("--trials 2 --tokens 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, out_ + "/hf2q\n");
  EXPECT_THAT(r.err, HasSubstr("hf2q trial 1/2 (job 1/2): recording:"));
  EXPECT_THAT(r.err, HasSubstr("hf2q trial 2/2: done in"));
  EXPECT_THAT(r.err, HasSubstr("2 trial(s) recorded, 0 kept"));
  auto meta = ReadJson(fs::path(TrialDir("hf2q", 2)) / "meta.json");
  EXPECT_EQ(meta["command"], nlohmann::json({Bin("hf2q"), "--max-tokens", "4", "--prompt", "Hello, my name is"}));
  EXPECT_EQ(meta["tokens"], 4);

  auto attributed = RunPerfgate("attribute --trace hf2q=" + out_ + "/hf2q --tokens 4 --format json");
  ASSERT_EQ(attributed.exit_code, 0) << attributed.err;
  auto report = nlohmann::json::parse(attributed.out);
  EXPECT_EQ(report["engines"]["hf2q"]["n_trials"], 2);

  // Running it again keeps both trials.
  auto again = Record("--trials 2 --tokens 4");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("0 trial(s) recorded, 2 kept"));
}

TEST_F(RecordCli, WithoutXctraceExits3) {
  auto r = Record("--trials 1 --tokens 4", "unset PERFGATE_XCTRACE; PATH=" + (root_ / "bin").string());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("error[record.no_xctrace]: xctrace not found"));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(RecordCli, ToolFailuresExit3) {
  SetMode("hang_record");
  auto hang = Record("--trials 1 --tokens 4 --timeout 0.3");
  EXPECT_EQ(hang.exit_code, 3);
  EXPECT_THAT(hang.err,
              HasSubstr(TrialDir("hf2q", 1) + ": error[process.timeout]: hf2q trial 1/1: `xctrace record` timed out"));
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "INCOMPLETE"));

  SetMode("empty_export");
  auto empty = Record("--trials 1 --tokens 4");
  EXPECT_EQ(empty.exit_code, 3);
  EXPECT_THAT(empty.err, HasSubstr("error[record.empty_export]"));
  EXPECT_THAT(empty.err, HasSubstr("redoing an incomplete trial"));
}

TEST_F(RecordCli, UsageErrorsAndRefusalsExit2) {
  auto no_command = RunPerfgate("record --engine hf2q --trials 1 --tokens 4 --out " + out_);
  EXPECT_EQ(no_command.exit_code, 2);
  EXPECT_THAT(no_command.err, HasSubstr("no command to record"));

  auto no_engine = RunPerfgate("record --trials 1 --tokens 4 --out " + out_ + " -- " + Bin("hf2q"));
  EXPECT_EQ(no_engine.exit_code, 2);

  auto bad_env = Record("--trials 1 --tokens 4 --env NOEQUALS");
  EXPECT_EQ(bad_env.exit_code, 2);

  ASSERT_EQ(Record("--trials 1 --tokens 4").exit_code, 0);
  auto mismatch = Record("--trials 1 --tokens 8");
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_THAT(mismatch.err, HasSubstr("error[record.bundle_mismatch]"));
  auto forced = Record("--trials 1 --tokens 8 --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
}

TEST_F(RecordCli, PassesTablesTimeLimitAndEnvironment) {
  auto r = Record(
      "--trials 1 --tokens 4 --tables metal-gpu-intervals --time-limit 2 --env A=1 --discard-trace "
      "--cooldown 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto calls = Calls();
  ASSERT_GE(calls.size(), 2u);
  EXPECT_THAT(calls[1], ::testing::IsSupersetOf({"--time-limit", "2s", "--env", "A=1"}));
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "metal-gpu-intervals.xml"));
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "metal-application-encoders-list.xml"));
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "trial-1.trace"));
}

}  // namespace
}  // namespace perfgate
