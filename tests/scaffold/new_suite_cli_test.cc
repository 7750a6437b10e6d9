// `perfgate new-suite` on the command line: what it writes and prints, and every way it
// fails closed (exit 2, `error[code]: message`, nothing written).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "perfgate/golden/golden.h"
#include "support/run_command.h"

namespace {

namespace fs = std::filesystem;
using perfgate::testing_support::RunCommand;
using perfgate::testing_support::SlurpFile;

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";
const std::string kHf2q = kFixtures + "/decode_q4_0/hf2q";
const std::string kLlama = kFixtures + "/decode_q4_0/llama";
const std::string kOptions =
    " --tokens hf2q=auto:output_head.fused_norm_lm_argmax --window hf2q=label:output_head.fused_norm_lm_argmax"
    " --tokens llama=64 --window llama=skip:6";

// A fresh working directory per test; new-suite runs inside it.
std::string WorkDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(SCAFFOLD_WORK_DIR) / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

perfgate::testing_support::CommandResult NewSuite(const std::string& dir, const std::string& args) {
  return RunCommand("cd '" + dir + "' && " + PERFGATE_CLI_PATH + " new-suite " + args);
}

// Exit 2, the error's code and message on stderr, and no suite or golden folder.
void ExpectRefused(const std::string& dir, const perfgate::testing_support::CommandResult& r,
                   const std::string& error) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir + "/golden")) << "a refused run wrote goldens";
}

TEST(NewSuiteCli, WritesTheSuiteAndGoldensAndPrintsTwoCommands) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama + kOptions);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // From a build tree there is no install prefix to give CMake; the note says so.
  EXPECT_EQ(r.out,
            "cmake -S suites/my_decode -B build/my_decode && cmake --build build/my_decode\n"
            "ctest --test-dir build/my_decode -L perf --no-tests=error --output-on-failure\n");
  EXPECT_NE(r.err.find("note: this perfgate is not an installed one"), std::string::npos) << r.err;
  for (const char* file : {"suites/my_decode/my_decode_perf.cc", "suites/my_decode/CMakeLists.txt",
                           "golden/my_decode/Golden.json", "golden/my_decode/Golden.llama.json"}) {
    EXPECT_TRUE(fs::is_regular_file(dir + "/" + file)) << file;
    EXPECT_NE(r.err.find("wrote: " + dir + "/" + file), std::string::npos) << r.err;
  }
  const std::string cmake = SlurpFile(dir + "/suites/my_decode/CMakeLists.txt");
  EXPECT_NE(cmake.find("GOLDEN_DIR \"${CMAKE_CURRENT_SOURCE_DIR}/../../golden/my_decode\""), std::string::npos)
      << cmake;
  // COMPONENTS, not OPTIONAL_COMPONENTS: a package without gtest fails with its reason.
  EXPECT_NE(cmake.find("\n  find_package(PerfGate 0.2 CONFIG REQUIRED COMPONENTS gtest)\n"), std::string::npos)
      << cmake;
  // Each golden loads as written, names its engine, and holds its figures with policies.
  for (const auto& [file, engine, submissions] :
       {std::tuple<const char*, const char*, double>{"Golden.json", "hf2q", 45.5968},
        {"Golden.llama.json", "llama", 3.20312}}) {
    auto g = perfgate::golden::ReadGolden(dir + "/golden/my_decode/" + file);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(g->context.at("engine"), engine);
    EXPECT_EQ(g->values.at("submissions_per_token").value, submissions);  // as golden/hf2q_decode holds it
    EXPECT_EQ(g->values.at("submissions_per_token").policy.abs, 0.5);
  }
}

// An empty --dir is used; goldens go to golden/NAME only when the suite is in suites/.
TEST(NewSuiteCli, AnEmptyDirIsUsedAndItsGoldensGoInsideItAwayFromSuites) {
  const std::string dir = WorkDir();
  fs::create_directories(dir + "/perf/my_decode");
  auto r = NewSuite(dir, "my_decode --dir perf/my_decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama +
                             kOptions);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir + "/perf/my_decode/golden/Golden.json"));
  EXPECT_NE(SlurpFile(dir + "/perf/my_decode/CMakeLists.txt").find("GOLDEN_DIR \"${CMAKE_CURRENT_SOURCE_DIR}/golden\""),
            std::string::npos);
}

TEST(NewSuiteCli, AnExistingNonEmptyDirIsRefused) {
  const std::string dir = WorkDir();
  fs::create_directories(dir + "/suites/my_decode");
  { std::ofstream(dir + "/suites/my_decode/mine.cc") << "// the user's\n"; }
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama + kOptions);
  ExpectRefused(dir, r,
                dir + "/suites/my_decode: error[scaffold.dir_not_empty]: the suite folder exists and is not empty");
  EXPECT_EQ(SlurpFile(dir + "/suites/my_decode/mine.cc"), "// the user's\n");
}

TEST(NewSuiteCli, AnExistingNonEmptyGoldenDirIsRefused) {
  const std::string dir = WorkDir();
  fs::create_directories(dir + "/golden/my_decode");
  { std::ofstream(dir + "/golden/my_decode/Golden.json") << "{}\n"; }
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama + kOptions);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error[scaffold.dir_not_empty]: the golden folder exists and is not empty"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/suites"));
}

// A golden folder that cannot be created (below a file) fails before anything is
// written, and the same command runs once the path is fixed: no half-written suite.
TEST(NewSuiteCli, AGoldenDirThatCannotBeCreatedWritesNothing) {
  const std::string dir = WorkDir();
  { std::ofstream(dir + "/afile") << "the user's\n"; }
  const std::string args = "my_decode --golden-dir afile/g --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama +
                           kOptions;
  auto r = NewSuite(dir, args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(dir + "/afile/g: error[io.write_failed]: cannot create the golden folder"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("wrote: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir + "/suites")) << "a failed run left the suite folder";
  EXPECT_EQ(SlurpFile(dir + "/afile"), "the user's\n");
  fs::remove(dir + "/afile");
  r = NewSuite(dir, args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir + "/afile/g/Golden.json"));
  EXPECT_TRUE(fs::is_regular_file(dir + "/suites/my_decode/my_decode_perf.cc"));
}

TEST(NewSuiteCli, AnUnknownRecordingIsRefused) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kFixtures + "/nowhere/hf2q --baseline llama=" + kLlama);
  ExpectRefused(dir, r, kFixtures + "/nowhere/hf2q: error[io.not_found]: no such trial file or directory");
  EXPECT_FALSE(fs::exists(dir + "/suites"));
}

TEST(NewSuiteCli, AnUnreadableRecordingIsRefusedAtItsLine) {
  const std::string dir = WorkDir();
  fs::create_directories(dir + "/rec/hf2q/trial-3");
  for (const char* t : {"trial-1", "trial-2"}) fs::create_directory_symlink(kHf2q + "/" + t, dir + "/rec/hf2q/" + t);
  {  // cut off inside its first <node>
    std::ofstream(dir + "/rec/hf2q/trial-3/metal-gpu-execution-points.xml")
        << "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node";
  }
  fs::create_directory_symlink(kLlama, dir + "/rec/llama");
  auto r = NewSuite(dir, "my_decode --engine hf2q=rec/hf2q --baseline llama=rec/llama --tokens 64");
  ExpectRefused(dir, r, "rec/hf2q/trial-3/metal-gpu-execution-points.xml:3:1: error[xctrace.truncated]");
}

TEST(NewSuiteCli, ABadNameIsRefused) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my-decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama + kOptions);
  ExpectRefused(dir, r,
                "perfgate: error[scaffold.bad_name]: suite name 'my-decode' holds a character other than a letter, a "
                "digit or '_'");
  EXPECT_FALSE(fs::exists(dir + "/suites"));
}

TEST(NewSuiteCli, FewerTrialsThanTheSuiteMinimumAreRefused) {
  const std::string dir = WorkDir();
  fs::create_directories(dir + "/rec/hf2q");
  for (const char* t : {"trial-1", "trial-2"}) fs::create_directory_symlink(kHf2q + "/" + t, dir + "/rec/hf2q/" + t);
  fs::create_directory_symlink(kLlama, dir + "/rec/llama");
  auto r = NewSuite(dir, "my_decode --engine hf2q=rec/hf2q --baseline llama=rec/llama" + kOptions);
  ExpectRefused(dir, r,
                "/rec/hf2q: error[bundle.too_few_trials]: 2 trials (trial-1, trial-2), fewer than the 3 required");
  // --min-trials lowers the suite's minimum, and the suite is written with it.
  auto lowered = NewSuite(dir, "my_decode --min-trials 2 --engine hf2q=rec/hf2q --baseline llama=rec/llama" + kOptions);
  ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_NE(SlurpFile(dir + "/suites/my_decode/my_decode_perf.cc").find("    c.min_trials = 2;\n"), std::string::npos);
}

TEST(NewSuiteCli, AMissingBaselineIsRefused) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kHf2q + kOptions);
  ExpectRefused(dir, r, "perfgate: error[usage.missing_required]: --baseline is required");
}

TEST(NewSuiteCli, RecordingsThatDoNotLieSideBySideAreRefused) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kFixtures + "/decode_q4_0_regressed/hf2q --baseline llama=" +
                             kLlama + kOptions);
  ExpectRefused(dir, r, kLlama + ": error[scaffold.recordings_layout]: a suite reads every engine from "
                               "<recordings>/<engine>/, so engine 'llama' must be a directory named llama in " +
                               kFixtures + "/decode_q4_0_regressed");
  auto renamed = NewSuite(dir, "my_decode --engine fast=" + kHf2q + " --baseline llama=" + kLlama);
  ExpectRefused(dir, renamed,
                "error[scaffold.recordings_layout]: a suite reads every engine from <recordings>/<engine>/, so "
                "engine 'fast' must be a directory named fast");
}

TEST(NewSuiteCli, PerEngineOptionsNameGivenEngines) {
  const std::string dir = WorkDir();
  auto r = NewSuite(dir, "my_decode --engine hf2q=" + kHf2q + " --baseline llama=" + kLlama + kOptions +
                             " --window lama=skip:6");
  ExpectRefused(dir, r,
                "perfgate: error[cli.usage]: --window lama=...: no engine 'lama' was given with --engine or "
                "--baseline (engines: hf2q, llama)");
  auto twice = NewSuite(dir, "my_decode --engine llama=" + kLlama + " --baseline llama=" + kLlama);
  ExpectRefused(dir, twice, "error[cli.usage]: engine 'llama' is given twice");
}

}  // namespace
