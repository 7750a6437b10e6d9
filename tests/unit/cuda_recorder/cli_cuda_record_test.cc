// End-to-end: `perfgate record --backend cuda` with the stand-in target and a stand-in
// tracer file, then `perfgate attribute` on what it wrote; the usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cuda_recorder_support.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using ::testing::HasSubstr;
using testing_support::RunCommand;
using testing_support::RunPerfgate;
namespace fs = std::filesystem;

class CudaRecordCli : public testing_support::CudaRecorderSandbox {
 protected:
  testing_support::CommandResult Record(const std::string& flags, const std::string& mode = "ok") {
    return RunCommand(std::string(PERFGATE_CLI_PATH) + " record --engine a --out " + out_ + " " + flags +
                      " --env FAKE_CUDA_LOG=" + log_ + " -- " + PERFGATE_FAKE_CUDA_TARGET + " " + mode + " {tokens}");
  }
};

TEST_F(CudaRecordCli, RecordsABundleThatAttributeReads) {
  auto r = Record("--backend cuda --tracer " + tracer_ + " --trials 2 --tokens 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, out_ + "/a\n");
  EXPECT_THAT(r.err, HasSubstr("CUDA tracer " + tracer_ + " (--tracer)"));
  EXPECT_THAT(r.err, HasSubstr("a trial 2/2: done in"));
  EXPECT_THAT(r.err, HasSubstr("2 trial(s) recorded, 0 kept"));
  EXPECT_EQ(Runs().size(), 2u);

  auto attributed = RunPerfgate("attribute --trace a=" + out_ + "/a --tokens 3 --format json");
  ASSERT_EQ(attributed.exit_code, 0) << attributed.err;
  auto report = nlohmann::json::parse(attributed.out);
  EXPECT_EQ(report["engines"]["a"]["n_trials"], 2);

  auto again = Record("--backend cuda --tracer " + tracer_ + " --trials 2 --tokens 3");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("0 trial(s) recorded, 2 kept"));
}

TEST_F(CudaRecordCli, TheTracerComesFromTheEnvironmentToo) {
  auto r = RunCommand("PERFGATE_CUPTI_TRACER=" + tracer_ + " " + PERFGATE_CLI_PATH +
                      " record --backend cuda --engine a --out " + out_ + " --trials 1 --tokens 2 -- " +
                      PERFGATE_FAKE_CUDA_TARGET + " ok {tokens}");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(PERFGATE_CUPTI_TRACER)"));
}

TEST_F(CudaRecordCli, AnUnknownBackendIsAUsageError) {
  auto r = Record("--backend metal --trials 1 --tokens 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--backend"));
  EXPECT_THAT(r.err, HasSubstr("xctrace,cuda"));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(CudaRecordCli, XctraceFlagsWithTheCudaBackendAreUsageErrors) {
  for (const std::string flag :
       {"--time-limit 5", "--tables metal-gpu-intervals", "--discard-trace", "--process llama", "--export-timeout 5"}) {
    auto r = Record("--backend cuda --tracer " + tracer_ + " --trials 1 --tokens 3 " + flag);
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("error[cli.usage]: " + flag.substr(0, flag.find(' ')) +
                                 " is an xctrace flag; --backend cuda does not take it"));
  }
  EXPECT_TRUE(Runs().empty());
}

TEST_F(CudaRecordCli, TheTracerFlagIsForTheCudaBackend) {
  auto r = Record("--tracer " + tracer_ + " --trials 1 --tokens 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--tracer is for --backend cuda"));
}

TEST_F(CudaRecordCli, WithoutATracerExits3) {
  // A build with CUDA has a tracer beside perfgate and in the build tree: a wrong
  // PERFGATE_CUPTI_TRACER is the error, with no fallback to either.
  auto r = RunCommand("PERFGATE_CUPTI_TRACER=" + out_ + "-no-tracer.so " + PERFGATE_CLI_PATH +
                      " record --engine a --out " + out_ + " --backend cuda --trials 1 --tokens 3 -- " +
                      PERFGATE_FAKE_CUDA_TARGET + " ok {tokens}");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("error[record.no_tracer]"));
  EXPECT_THAT(r.err, HasSubstr("-no-tracer.so is not a file; fix or unset it"));
  EXPECT_THAT(r.err, HasSubstr("built only where CUDA's CUPTI is found"));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(CudaRecordCli, ACrashedTargetExits3AndLeavesTheTrialIncomplete) {
  auto r = Record("--backend cuda --tracer " + tracer_ + " --trials 1 --tokens 3", "crash");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("error[process.signaled]"));
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("a", 1)) / "INCOMPLETE"));
}

}  // namespace
}  // namespace perfgate
