// Failure messages in the source's words: kernels, kernel families and annotation
// phases for trace-event JSON (fixtures/recordings/torch_decode_h200); submissions,
// encoder families and command-buffer phases for Metal (fixtures/recordings/
// decode_q4_0). A PyTorch failure once said "graphs submissions/token" and "absent
// from graphs's shader registry".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "perfgate/golden/golden.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "support/run_command.h"
#include "unit/suite/decode_suite.h"
#include "unit/suite/torch_suite.h"

namespace perfgate::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Message(const ::testing::AssertionResult& r) { return r.message(); }

class TorchWords : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return suite::test::TorchSuite(suite::test::TorchFirstTrials()); }
};

class MetalWords : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return suite::test::ReadmeSuite(); }
};

TEST_F(TorchWords, BudgetsCountKernels) {
  const auto budget = SubmissionsPerTokenAtMost(engine("graphs"), 100);
  ASSERT_FALSE(budget);
  EXPECT_THAT(Message(budget), HasSubstr("graphs kernels/token budget 100\n"));
  EXPECT_THAT(Message(budget), HasSubstr("graphs.kernels_per_token"));
  EXPECT_THAT(Message(budget), Not(HasSubstr("submission")));
  const auto exactly = SubmissionsPerTokenExactly(engine("eager"), 400);
  ASSERT_FALSE(exactly);
  EXPECT_THAT(Message(exactly), HasSubstr("eager kernels/token exactly 400"));
  EXPECT_THAT(Message(exactly), Not(HasSubstr("submission")));
}

TEST_F(TorchWords, RegistryFamiliesAndPhasesAreTheTraceJsonWords) {
  const auto present = KernelFamilyPresent(engine("eager"), "triton_pointwise");
  ASSERT_FALSE(present);
  EXPECT_THAT(Message(present), HasSubstr("is absent from eager's kernel list (kernel families: "));
  EXPECT_THAT(Message(present), Not(HasSubstr("shader registry")));
  const auto family = FamilyDeltaAtMostPercent(engine("graphs"), engine("eager"), "gemmm", 5);
  ASSERT_FALSE(family);
  EXPECT_THAT(Message(family), HasSubstr("no kernel family 'gemmm' in graphs or eager (kernel families: "));
  const auto phase = PhaseGpuUsPerTokenAtMost(engine("graphs"), "no_such_phase", 1);
  ASSERT_FALSE(phase);
  EXPECT_THAT(Message(phase), HasSubstr("graphs has no annotation phase 'no_such_phase' (annotation phases: "));
  EXPECT_THAT(Message(phase), Not(HasSubstr("command-buffer")));
}

TEST_F(MetalWords, BudgetsCountSubmissionsInCommandBufferPhases) {
  const auto budget = SubmissionsPerTokenAtMost(engine("hf2q"), 40);
  ASSERT_FALSE(budget);
  EXPECT_THAT(Message(budget), HasSubstr("hf2q submissions/token budget 40\n"));
  EXPECT_THAT(Message(budget), HasSubstr("hf2q.submissions_per_token"));
  EXPECT_THAT(Message(budget), Not(HasSubstr("kernels/token")));
  const auto present = KernelFamilyPresent(engine("hf2q"), "dense_q4_0_mm");
  ASSERT_FALSE(present);
  EXPECT_THAT(Message(present), HasSubstr("is absent from hf2q's shader registry"));
  const auto family = FamilyDeltaAtMostPercent(engine("hf2q"), engine("llama"), "compte", 5);
  ASSERT_FALSE(family);
  EXPECT_THAT(Message(family), HasSubstr("no encoder family 'compte' in hf2q or llama (encoder families: "));
  const auto phase = PhaseGpuUsPerTokenAtMost(engine("hf2q"), "layer.atn", 1e9);
  ASSERT_FALSE(phase);
  EXPECT_THAT(Message(phase), HasSubstr("hf2q has no command-buffer phase 'layer.atn' (command-buffer phases: "));
}

// Host launch calls per token have an assertion of their own; the figures come from
// the trace-event source's extras (attribution/summary.h).
TEST_F(TorchWords, LaunchesPerTokenHaveTheirOwnBudget) {
  const double graphs = engine("graphs").extras.at("launches_per_token").median;
  const double eager = engine("eager").extras.at("launches_per_token").median;
  EXPECT_TRUE(LaunchesPerTokenAtMost(engine("graphs"), graphs));
  EXPECT_TRUE(LaunchesPerTokenAtMost(engine("eager"), eager));
  const auto over = LaunchesPerTokenAtMost(engine("eager"), eager - 1);
  ASSERT_FALSE(over);
  EXPECT_THAT(Message(over), HasSubstr("eager host launch calls/token budget"));
  EXPECT_THAT(Message(over), ::testing::ContainsRegex("eager\\.launches_per_token +[0-9.]+ +[0-9.]+ .* regressed"));
  EXPECT_THAT(Message(over), HasSubstr("budget = the most the median may be"));
  EXPECT_TRUE(GraphLaunchesPerTokenAtMost(engine("graphs"), 1));
  EXPECT_TRUE(GraphLaunchesPerTokenAtMost(engine("eager"), 0));  // eager launches no graph
  EXPECT_FALSE(GraphLaunchesPerTokenAtMost(engine("graphs"), 0.5));
}

TEST_F(MetalWords, ASourceWithoutLaunchFiguresFailsSayingSo) {
  for (const auto& result : {LaunchesPerTokenAtMost(engine("hf2q"), 1e9), GraphLaunchesPerTokenAtMost(engine("hf2q"), 1e9)}) {
    ASSERT_FALSE(result);
    EXPECT_THAT(Message(result), HasSubstr("its trials count submissions and record no host launch calls"));
    EXPECT_THAT(Message(result), HasSubstr("figures of hf2q: submissions_per_token, gpu_us_per_token"));
  }
  EXPECT_THAT(Message(LaunchesPerTokenAtMost(engine("hf2q"), 1)),
              HasSubstr("hf2q has no host launch calls/token (extras/launches_per_token)"));
}

// ---- Goldens: the accept command is the README's; under CI the actual is written --------

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string TempGoldenDir() {
  static const std::string dir = suite::test::ScratchDir("perfgate-words");
  return dir;
}

// Goldens of the Metal recordings (fast to load); TorchGoldenWords for trace JSON.
class GoldenWords : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override {
    SuiteConfig c = suite::test::ReadmeSuite();
    c.golden_dir = TempGoldenDir();
    return c;
  }
  std::string TestName() const {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::string(info->test_suite_name()) + "." + info->name();
  }
};

// README.md, "Goldens", gives the command as
// `PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R '<TestSuite>.<Test>'`: without
// --no-tests=error the command, pasted outside the build tree, finds no test and exits 0.
TEST_F(GoldenWords, TheAcceptCommandIsTheReadmes) {
  const std::string readme = ReadText(std::string(PERFGATE_SOURCE_DIR) + "/README.md");
  const std::string documented = "PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R '<TestSuite>.<Test>'";
  ASSERT_THAT(readme, HasSubstr("accept with: `" + documented + "`"));
  std::string expected = documented;
  expected.replace(expected.find("<TestSuite>.<Test>"), std::string("<TestSuite>.<Test>").size(), TestName());
  EXPECT_EQ(GoldenAcceptCommand(TestName()), expected);

  std::filesystem::remove(GoldenPathFor("hf2q"));
  const auto missing = MatchesGolden("hf2q");
  ASSERT_FALSE(missing);
  EXPECT_THAT(Message(missing), HasSubstr("create it with: " + expected + "\n"));

  golden::GoldenFile changed = GoldenOf(engine("hf2q"));
  changed.values.at("submissions_per_token").value += 10;
  changed.values.erase("phases/layer.attn_moe_ffn/gpu_us_per_token");
  changed.values.erase("phases/layer.attn_moe_ffn/cbs_per_token");
  ASSERT_TRUE(golden::WriteGoldenAtomic(GoldenPathFor("llama"), changed).ok());
  const auto mismatch = MatchesGolden("llama");
  ASSERT_FALSE(mismatch);
  EXPECT_THAT(Message(mismatch), HasSubstr("accept with: " + expected + " (or move "));
  EXPECT_THAT(Message(mismatch), HasSubstr("submissions_per_token: "));
  EXPECT_THAT(Message(mismatch), Not(HasSubstr("/values/")));
}

// The accept command pasted where there is no test of that name (another directory
// than the suite's build tree) fails: plain `ctest -R` finds nothing and exits 0, which
// reads as accepted while the golden is unchanged.
TEST(GoldenAcceptCommand, PastedOutsideTheBuildTreeItFails) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "perfgate-accept-elsewhere";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto run_there = [&](std::string command) {
    const std::string ctest = "ctest ";
    const size_t at = command.find(ctest);
    EXPECT_NE(at, std::string::npos) << command;
    if (at != std::string::npos) command.replace(at, ctest.size() - 1, "'" PERFGATE_CTEST_COMMAND "'");
    return testing_support::RunCommand("cd '" + dir.string() + "' && " + command);
  };
  const auto accepted = run_there(GoldenAcceptCommand("Hf2qDecode.Hf2qGolden"));
  EXPECT_NE(accepted.exit_code, 0) << accepted.out << accepted.err;
  EXPECT_THAT(accepted.out + accepted.err, HasSubstr("No tests were found"));
  // The command as it was: the same paste exits 0.
  const auto old = run_there("PERFGATE_UPDATE_GOLDEN=all ctest -R 'Hf2qDecode.Hf2qGolden'");
  EXPECT_EQ(old.exit_code, 0) << old.out << old.err;
  std::filesystem::remove_all(dir);
}

class TorchGoldenWords : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override {
    SuiteConfig c = suite::test::TorchSuite(suite::test::TorchFirstTrials());
    c.golden_dir = TempGoldenDir();
    return c;
  }
};

TEST_F(TorchGoldenWords, RootCausesUseTheSourcesWords) {
  golden::GoldenFile golden = GoldenOf(engine("graphs"));
  golden.values["phases/ghost_step/gpu_us_per_token"] = golden.values.at("gpu_us_per_token");
  golden.values["phases/ghost_step/cbs_per_token"] = golden.values.at("submissions_per_token");
  golden.values.at("submissions_per_token").value += 3;
  ASSERT_TRUE(golden::WriteGoldenAtomic(GoldenPathFor("graphs"), golden).ok());
  const auto r = MatchesGolden("graphs");
  ASSERT_FALSE(r);
  const std::string message = Message(r);
  const size_t cause = message.find("cause: annotation phase 'ghost_step' is gone (2 values of the golden missing)\n");
  ASSERT_NE(cause, std::string::npos) << message;
  EXPECT_LT(cause, message.find("  FAIL ")) << message;
  EXPECT_THAT(message, Not(HasSubstr("command-buffer")));
}

// Clears the CI variables perfgate reads (core/environment.h) for one test, restoring
// them after: this test runs under CI too.
class NoCiEnvironment {
 public:
  NoCiEnvironment() {
    for (const char* var : kVars) {
      if (const char* v = std::getenv(var)) saved_.emplace_back(var, v);
      ::unsetenv(var);
    }
  }
  ~NoCiEnvironment() {
    for (const char* var : kVars) ::unsetenv(var);
    for (const auto& [var, value] : saved_) ::setenv(var.c_str(), value.c_str(), 1);
  }

 private:
  static constexpr const char* kVars[] = {"CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE"};
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(GoldenWords, UnderCiEveryCheckWritesTheActualFile) {
  NoCiEnvironment no_ci;
  ASSERT_TRUE(golden::WriteGoldenAtomic(GoldenPathFor("hf2q"), GoldenOf(engine("hf2q"))).ok());
  const std::string actual = golden::ActualPathFor(GoldenPathFor("hf2q"));
  std::filesystem::remove(actual);
  EXPECT_TRUE(testing::MatchesGolden(GoldenPathFor("hf2q"), GoldenOf(engine("hf2q")), "accept"));
  EXPECT_FALSE(std::filesystem::exists(actual)) << "outside CI a pass writes no actual file";
  ::setenv("CI", "true", 1);
  EXPECT_TRUE(testing::MatchesGolden(GoldenPathFor("hf2q"), GoldenOf(engine("hf2q")), "accept"));
  EXPECT_TRUE(std::filesystem::exists(actual)) << "under CI a pass writes the actual file too";
  const auto read = golden::ReadGolden(actual);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(golden::ValuesOf(*read), golden::ValuesOf(*golden::ReadGolden(GoldenPathFor("hf2q"))));
}

}  // namespace
}  // namespace perfgate::testing
