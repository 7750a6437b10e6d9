// The CLI on paths that are no regular file, and on a kernel-family table whose JSON
// nlohmann cannot represent: exit 2 with a named error, never an abort.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "support/run_command.h"

namespace {

using perfgate::testing_support::RunCommand;

class CliBadFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "perfgate-cli-bad-" + std::to_string(::getpid());
    ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
  }
  void TearDown() override { RunCommand("rm -rf '" + dir_ + "'"); }
  std::string Cli(const std::string& args) { return std::string(PERFGATE_CLI_PATH) + " " + args; }
  std::string dir_;
};

TEST_F(CliBadFiles, ADirectoryGivenAsAnExportIsAnErrorNotAnAbort) {
  for (const char* cmd : {"table", "toc", "info"}) {
    auto r = RunCommand(Cli(std::string(cmd) + " '" + dir_ + "'"));
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find(dir_ + ": error[io.not_a_file]: expected a regular file, found a directory"),
              std::string::npos)
        << cmd << ": " << r.err;
  }
}

TEST_F(CliBadFiles, KernelFamiliesThatAreADirectoryOrHoldAnUnrepresentableNumber) {
  const std::string trace = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0/llama";
  const std::string base = Cli("attribute --trace llama=" + trace + " --tokens 64 --format json --kernel-families ");
  auto as_dir = RunCommand(base + "'" + dir_ + "'");
  EXPECT_EQ(as_dir.exit_code, 2) << as_dir.err;
  EXPECT_NE(as_dir.err.find("error[io.not_a_file]"), std::string::npos) << as_dir.err;
  const std::string huge = dir_ + "/families.json";
  std::ofstream(huge) << R"({"rules": [{"prefix": "mul_mv", "family": "mv"}], "x": 1e999})";
  auto r = RunCommand(base + "'" + huge + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error[families.bad_json]"), std::string::npos) << r.err;
}

TEST_F(CliBadFiles, TheInputLimitVariableAppliesAndTheOptionOverridesIt) {
  const std::string toc = dir_ + "/toc.xml";
  std::ofstream(toc) << "<?xml version=\"1.0\"?>\n<trace-toc>" << std::string(2000, ' ') << "</trace-toc>\n";
  auto limited = RunCommand("PERFGATE_MAX_INPUT_BYTES=1K " + Cli("toc '" + toc + "'"));
  EXPECT_EQ(limited.exit_code, 2) << limited.err;
  EXPECT_NE(limited.err.find(toc + ": error[io.too_large]"), std::string::npos) << limited.err;
  auto raised = RunCommand("PERFGATE_MAX_INPUT_BYTES=1K " + Cli("toc --max-input-bytes 1M '" + toc + "'"));
  EXPECT_EQ(raised.err.find("io.too_large"), std::string::npos) << raised.err;
  auto bad = RunCommand("PERFGATE_MAX_INPUT_BYTES=huge " + Cli("toc '" + toc + "'"));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("perfgate: error[input.bad_limit]: PERFGATE_MAX_INPUT_BYTES 'huge'"), std::string::npos)
      << bad.err;
}

TEST_F(CliBadFiles, AnUnclaimedJsonTrialGetsNoXmlReaderError) {
  const std::string json = dir_ + "/trial.json";
  // JSON, but no "traceEvents" or "ph" key anywhere: no source claims it.
  std::ofstream(json) << "{\"pad\": \"" << std::string(70000, 'x') << "\", \"samples\": []}";
  auto r = RunCommand(Cli("attribute --tokens 1 --trace e='" + json + "'"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(json + ": error[source.unknown_format]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("expected '<'"), std::string::npos) << r.err;
  // traceEvents past the first 64 KiB is still trace JSON: the JSON reader answers.
  std::ofstream(json) << "{\"pad\": \"" << std::string(70000, 'x') << "\", \"traceEvents\": []}";
  auto late = RunCommand(Cli("attribute --tokens 1 --trace e='" + json + "'"));
  EXPECT_NE(late.err.find(json + ":1:1: error[json.no_events]"), std::string::npos) << late.err;
}

}  // namespace
