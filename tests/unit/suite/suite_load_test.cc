// Suite loading fails closed (suite/suite.h): missing recordings under CI, too few
// trials, unknown engines; the README's example gets the CLI's process default; the
// cache tells configurations apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include "perfgate/core/input_limits.h"
#include "perfgate/suite/suite.h"
#include "unit/suite/decode_suite.h"

namespace perfgate::suite {
namespace {

namespace fs = std::filesystem;

using test::kFixtures;
using test::ReadmeSuite;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class MissingRecordings : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("perfgate-suite-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "only_hf2q");
    fs::create_directory_symlink(kFixtures + "/decode_q4_0/hf2q", root_ / "only_hf2q/hf2q");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(MissingRecordings, FailUnderCiNamingThePathAndHowToRecord) {
  for (const std::string& dir : {(root_ / "nope").string(), root_.string(), (root_ / "only_hf2q").string()}) {
    SuiteLoad load = LoadSuite(ReadmeSuite(dir), Env({{"CI", "true"}}));
    ASSERT_FALSE(load.error.ok()) << dir << ": a missing recording under CI must fail, not skip";
    EXPECT_EQ(load.error.code(), "suite.no_recording");
    const std::string msg = load.error.message();
    EXPECT_NE(msg.find("no recording of engine 'llama' at " + dir + "/llama"), std::string::npos) << msg;
    EXPECT_NE(msg.find("put its trials there"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PERFGATE_ALLOW_SKIP=1"), std::string::npos) << msg;
    // The suite has no record command: perfgate never records it, so xctrace is no reason.
    EXPECT_EQ(msg.find("xctrace"), std::string::npos) << msg;
  }
}

TEST_F(MissingRecordings, SkipOutsideCiWithTheReasonFirst) {
  SuiteLoad load = LoadSuite(ReadmeSuite((root_ / "only_hf2q").string()), Env({{"CI", "false"}}));
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  ASSERT_TRUE(load.unavailable.has_value());
  EXPECT_EQ(load.unavailable->reason.rfind("suite my_decode skipped: no recording of engine 'llama' at ", 0), 0u)
      << load.unavailable->reason;
  EXPECT_EQ(load.unavailable->reason.find('\n'), std::string::npos) << "one line";
}

TEST_F(MissingRecordings, ADeliberateSkipUnderCiNeedsAnOptOut) {
  SuiteConfig c = ReadmeSuite((root_ / "nope").string());
  EXPECT_TRUE(LoadSuite(c, Env({{"CI", "1"}, {"PERFGATE_ALLOW_SKIP", "1"}})).unavailable.has_value());
  c.allow_skip = true;
  EXPECT_TRUE(LoadSuite(c, Env({{"GITHUB_ACTIONS", "true"}})).unavailable.has_value());
}

TEST_F(MissingRecordings, AnEngineWithARecordCommandSaysHowToRecordIt) {
  SuiteConfig c = ReadmeSuite((root_ / "only_hf2q").string());
  c.engines[1].record_command = {"./llama-cli", "-n", "{tokens}"};
  c.engines[1].record_tokens = 64;
  SuiteLoad load = LoadSuite(c, Env({{"CI", "true"}}));
  ASSERT_FALSE(load.error.ok());
  EXPECT_NE(load.error.message().find("record it with PERFGATE_RECORD=1 on a Mac with xctrace"), std::string::npos)
      << load.error.message();
}

TEST_F(MissingRecordings, AnUnexaminableRecordingIsAnErrorNotAMissingOne) {
  // A link loop where the engine's recording should be: no skip, even outside CI.
  fs::create_symlink("llama", root_ / "only_hf2q/llama");
  SuiteLoad load = LoadSuite(ReadmeSuite((root_ / "only_hf2q").string()), Env({{"CI", "false"}}));
  EXPECT_FALSE(load.unavailable.has_value());
  ASSERT_FALSE(load.error.ok());
  EXPECT_EQ(load.error.code(), "io.symlink_loop") << load.error.ToString();
}

TEST(SuiteLoad, HonoursTheInputLimitVariables) {
  SuiteLoad bad = LoadSuite(ReadmeSuite(kFixtures + "/decode_q4_0"), Env({{"PERFGATE_MAX_INPUT_BYTES", "big"}}));
  ASSERT_FALSE(bad.error.ok());
  EXPECT_EQ(bad.error.code(), "input.bad_limit");
  // A limit below the fixtures' trial files: the suite's reads obey it.
  SuiteLoad small = LoadSuite(ReadmeSuite(kFixtures + "/decode_q4_0"), Env({{"PERFGATE_MAX_INPUT_BYTES", "1K"}}));
  ClearInputLimits();
  ASSERT_FALSE(small.error.ok());
  EXPECT_EQ(small.error.code(), "io.too_large") << small.error.ToString();
  SuiteLoad fine = LoadSuite(ReadmeSuite(kFixtures + "/decode_q4_0"), Env({}));
  EXPECT_TRUE(fine.error.ok()) << fine.error.ToString();
}

TEST(SuiteLoad, TheReadmeExampleGetsTheClisProcessDefault) {
  SuiteLoad load = LoadSuite(ReadmeSuite(kFixtures + "/decode_q4_0"), Env({}));
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  // Hand count, as `perfgate attribute` prints per trial: 2827, 2832 and 2827 hf2q
  // submissions over 62 label tokens; the median trial is 2827 / 62 = 45.5968. Keeping
  // every process (WindowServer's 428 submissions too) gave 50.6.
  EXPECT_NEAR(load.data->engines.at("hf2q").items_per_token.median, 2827.0 / 62, 1e-9);
  // llama: 205, 204 and 213 over 64 given tokens; the median is 205 / 64.
  EXPECT_NEAR(load.data->engines.at("llama").items_per_token.median, 205.0 / 64, 1e-9);
}

TEST(SuiteLoad, TooFewTrialsFail) {
  SuiteConfig c = ReadmeSuite(kFixtures + "/decode_q4_0");
  c.min_trials = 4;
  SuiteLoad load = LoadSuite(c, Env({}));
  ASSERT_FALSE(load.error.ok());
  EXPECT_EQ(load.error.code(), "bundle.too_few_trials");
  c.min_trials = 3;
  c.engines[0].min_trials = 5;
  EXPECT_EQ(LoadSuite(c, Env({})).error.code(), "bundle.too_few_trials");
}

TEST(SuiteLoad, AnUnknownEngineIsAnErrorListingTheSuitesEngines) {
  SuiteLoad load = LoadSuite(ReadmeSuite(kFixtures + "/decode_q4_0"), Env({}));
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  auto typo = load.data->Find("hf2qq");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), "suite.unknown_engine");
  EXPECT_NE(typo.status().message().find("(engines: hf2q, llama)"), std::string::npos) << typo.status().message();
  const attribution::EngineSummary& empty = load.data->engine("hf2qq");
  EXPECT_EQ(empty.name, "hf2qq");
  EXPECT_TRUE(empty.trials.empty());
}

// The cache used to key on windows and tokens only: two suites that differed in
// buckets got the same results.
TEST(SuiteLoad, TheCacheKeysOnTheWholeConfiguration) {
  SuiteConfig a = ReadmeSuite(kFixtures + "/decode_q4_0");
  SuiteConfig b = a;
  b.buckets = *attribution::ParseBuckets("fast:0:10000,slow:10000:");
  SuiteConfig k = a;
  k.engines[0].options.kernel_families.rules.push_back({"mul_mv", "matvec"});
  EXPECT_NE(ConfigKey(a), ConfigKey(b));
  EXPECT_NE(ConfigKey(a), ConfigKey(k));
  // The choices of the kernel sources: one engine read on another device, for another
  // process id, or leniently is another load.
  for (auto change : std::vector<void (*)(attribution::AttributionOptions*)>{
           [](attribution::AttributionOptions* o) { o->device = 1; },
           [](attribution::AttributionOptions* o) { o->process_id = 4242; },
           [](attribution::AttributionOptions* o) { o->lenient = true; }}) {
    SuiteConfig d = a;
    change(&d.engines[0].options);
    EXPECT_NE(ConfigKey(a), ConfigKey(d));
  }
  SuiteLoad la = LoadSuite(a);
  SuiteLoad lb = LoadSuite(b);
  ASSERT_TRUE(la.error.ok() && lb.error.ok()) << la.error.ToString() << lb.error.ToString();
  ASSERT_EQ(lb.data->engines.at("hf2q").buckets.size(), 2u);
  EXPECT_EQ(lb.data->engines.at("hf2q").buckets[0].first, "fast");
  EXPECT_EQ(la.data->engines.at("hf2q").buckets.size(), 5u);
  ASSERT_TRUE(lb.data->comparison.has_value());
  ASSERT_EQ(lb.data->comparison->buckets.size(), 2u);
}

// Buckets are stated once: an engine's own set is the suite's when only it departs
// from the defaults; two different sets are a configuration error.
TEST(SuiteLoad, BucketsAreStatedOnce) {
  SuiteConfig c = ReadmeSuite(kFixtures + "/decode_q4_0");
  c.engines[0].options.buckets = *attribution::ParseBuckets("fast:0:10000,slow:10000:");
  SuiteLoad one = LoadSuite(c, Env({}));
  ASSERT_TRUE(one.error.ok()) << one.error.ToString();
  EXPECT_EQ(one.data->engines.at("llama").buckets.size(), 2u);
  c.buckets = *attribution::ParseBuckets("a:0:5000,b:5000:");
  SuiteLoad two = LoadSuite(c, Env({}));
  ASSERT_FALSE(two.error.ok());
  EXPECT_EQ(two.error.code(), "suite.bad_config");
}

}  // namespace
}  // namespace perfgate::suite

namespace perfgate::suite {
namespace {

TEST(SuiteLoad, DuplicateOrEmptyEngineNamesAreAConfigurationError) {
  SuiteConfig c = test::ReadmeSuite();
  c.engines[1].name = "hf2q";
  SuiteLoad load = LoadSuite(c, [](const std::string&) { return std::nullopt; });
  ASSERT_FALSE(load.error.ok());
  EXPECT_EQ(load.error.code(), "suite.bad_config");
  EXPECT_NE(load.error.message().find("engines: 'hf2q', 'hf2q'"), std::string::npos) << load.error.message();
}

}  // namespace
}  // namespace perfgate::suite
