// The assertion macros in GoogleTest's idiom: a failure's message is the check's own,
// first word first (no "Value of: ... Actual: false (" before it), each
// PERFGATE_EXPECT_* continues the test and its PERFGATE_ASSERT_* twin ends it, and
// every macro has its twin.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "perfgate/gtest.h"

namespace perfgate::testing {
namespace {

struct Failure {
  bool fatal = false;
  std::string message;
};

// The failures `body` reports, intercepted, and whether it ran to its end.
std::vector<Failure> FailuresOf(const std::function<void()>& body, bool* finished) {
  ::testing::TestPartResultArray results;
  *finished = false;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    body();
  }
  std::vector<Failure> out;
  for (int i = 0; i < results.size(); ++i) {
    const auto& r = results.GetTestPartResult(i);
    out.push_back({r.fatally_failed(), r.message()});
  }
  return out;
}

// An engine of no trials: every budget on it fails, saying so.
attribution::EngineSummary NoTrials() {
  attribution::EngineSummary e;
  e.name = "hf2q";
  return e;
}

TEST(AssertionMacros, AFailureIsTheChecksMessageAlone) {
  const attribution::EngineSummary engine = NoTrials();
  const std::string expected = SubmissionsPerTokenAtMost(engine, 45).message();
  ASSERT_EQ(expected.rfind("engine 'hf2q' has no trials", 0), 0u) << expected;

  bool finished = false;
  const auto failures = FailuresOf(
      [&] {
        PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, 45);
        finished = true;
      },
      &finished);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_FALSE(failures[0].fatal);
  EXPECT_EQ(failures[0].message, expected);  // nothing of GoogleTest's before it
  EXPECT_EQ(failures[0].message.find("Value of:"), std::string::npos);
  EXPECT_TRUE(finished);  // EXPECT goes on
}

TEST(AssertionMacros, TheAssertTwinEndsTheTest) {
  const attribution::EngineSummary engine = NoTrials();
  bool finished = false;
  const auto failures = FailuresOf(
      [&] {
        PERFGATE_ASSERT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine, 45);
        finished = true;
      },
      &finished);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_TRUE(failures[0].fatal);
  EXPECT_EQ(failures[0].message, SubmissionsPerTokenAtMost(engine, 45).message());
  EXPECT_FALSE(finished);  // ASSERT returned
}

// The generic form takes any check and prints its message alone, as the named ones do.
TEST(AssertionMacros, TheGenericFormTakesAnyCheck) {
  const attribution::EngineSummary engine = NoTrials();
  bool finished = false;
  const auto failures = FailuresOf(
      [&] {
        PERFGATE_EXPECT(KernelFamilyPresent(engine, "moe_mv"));
        PERFGATE_ASSERT(SubmissionsPerTokenAtMost(engine, 45));
        finished = true;
      },
      &finished);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_FALSE(failures[0].fatal);
  EXPECT_EQ(failures[0].message, KernelFamilyPresent(engine, "moe_mv").message());
  EXPECT_TRUE(failures[1].fatal);
  EXPECT_FALSE(finished);
}

// A regression of 20 % over five trials a side, judged under the one Policy type: the
// verdict table is the message, its first line perfgate's metric.
TEST(AssertionMacros, NoRegressionTakesTheOnePolicyAndFailsOnARegression) {
  const std::vector<double> baseline{100, 100.5, 99.5, 100.2, 99.8};
  const std::vector<double> slower{120, 120.5, 119.5, 120.2, 119.8};
  const gates::Policy policy = gates::Policy::Noisy(0.05, 0, gates::Direction::kLowerIsBetter);
  EXPECT_TRUE(NoRegression("gpu_us_per_token", baseline, baseline, policy));
  const auto regressed = NoRegression("gpu_us_per_token", baseline, slower, policy);
  ASSERT_FALSE(regressed);
  EXPECT_EQ(std::string(regressed.message()).rfind("gpu_us_per_token: ", 0), 0u) << regressed.message();
  EXPECT_NE(std::string(regressed.message()).find("regressed"), std::string::npos) << regressed.message();
}

// Every PERFGATE_EXPECT_X the public headers define has a PERFGATE_ASSERT_X twin with the
// same parameters, and no macro still wraps EXPECT_TRUE / ASSERT_TRUE.
TEST(AssertionMacros, EveryExpectHasAnAssertTwin) {
  const std::string dir = std::string(PERFGATE_SOURCE_DIR) + "/framework/include/perfgate/gtest/";
  const std::regex define(R"(#define PERFGATE_(EXPECT|ASSERT)_(\w+)\(([^)]*)\))");
  std::set<std::string> expects, asserts;
  for (const char* header : {"perfgate_gtest.h", "kernel_report.h", "toks_ratio.h", "ane_fixture.h"}) {
    std::ifstream in(dir + header);
    ASSERT_TRUE(in) << dir + header;
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    EXPECT_EQ(s.find("EXPECT_TRUE("), std::string::npos) << header;
    EXPECT_EQ(s.find("ASSERT_TRUE("), std::string::npos) << header;
    for (std::sregex_iterator it(s.begin(), s.end(), define), end; it != end; ++it) {
      ((*it)[1] == "EXPECT" ? expects : asserts).insert((*it)[2].str() + "(" + (*it)[3].str() + ")");
    }
  }
  EXPECT_GE(expects.size(), 31u);
  EXPECT_EQ(expects, asserts);
}

}  // namespace
}  // namespace perfgate::testing
