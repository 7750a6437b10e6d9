// perfgate attribute: an ENGINE= that names no --trace engine is a usage error, not
// an option silently left unused.
#include <gtest/gtest.h>

#include "support/run_command.h"

namespace {

using perfgate::testing_support::RunCommand;

const std::string kRecordings = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";

TEST(AttributeCliNames, ATypoedEngineInAPerEngineOptionFailsListingTheEngines) {
  const std::string base = std::string(PERFGATE_CLI_PATH) + " attribute --trace hf2q=" + kRecordings +
                           "/hf2q --trace llama=" + kRecordings +
                           "/llama --baseline llama --tokens hf2q=auto:output_head.fused_norm_lm_argmax --window "
                           "hf2q=label:output_head.fused_norm_lm_argmax --window llama=skip:6 --format json";
  auto good = RunCommand(base + " --tokens llama=64");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  auto typo = RunCommand(base + " --tokens lama=64");
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_NE(typo.err.find("--tokens lama=...: no engine 'lama' was given with --trace (engines: hf2q, llama)"),
            std::string::npos)
      << typo.err;
}

TEST(AttributeCliNames, TooFewTrialsFailWithMinTrials) {
  auto r = RunCommand(std::string(PERFGATE_CLI_PATH) + " attribute --trace llama=" + kRecordings +
                      "/llama --tokens 64 --window skip:6 --min-trials 4 --format json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("error[bundle.too_few_trials]: 3 trials (trial-1, trial-2, trial-3), fewer than the 4"),
            std::string::npos)
      << r.err;
}

}  // namespace

namespace {

TEST(AttributeCliNames, TheSameTrialGivenTwiceIsAnError) {
  auto r = RunCommand(std::string(PERFGATE_CLI_PATH) + " attribute --trace llama=" + kRecordings +
                      "/llama --trace llama=" + kRecordings + "/llama/trial-2 --tokens 64 --format json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("trial-2: error[bundle.duplicate_trial]: engine llama lists this trial twice"),
            std::string::npos)
      << r.err;
}

}  // namespace

namespace {

// A window that selects nothing used to give exit 0 and all-zero figures, which every
// budget passes.
TEST(AttributeCliNames, AWindowThatKeepsNothingIsAnError) {
  auto r = RunCommand(std::string(PERFGATE_CLI_PATH) + " attribute --trace llama=" + kRecordings +
                      "/llama --tokens 64 --window time:0:1 --format json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // 211 = the target's submissions of trial-1, all outside [0, 1) ns.
  EXPECT_NE(r.err.find("llama/trial-1: error[attr.empty_window]: no work of the target is left to attribute: "
                       "the decode window keeps none (211 excluded outside it)"),
            std::string::npos)
      << r.err;
  const std::string graphs = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/torch_decode_h200/graphs";
  auto json = RunCommand(std::string(PERFGATE_CLI_PATH) + " attribute --trace graphs=" + graphs +
                         "/trial-1/trace.json.gz --tokens 64 --window time:0:1 --format json");
  EXPECT_EQ(json.exit_code, 2) << json.err;
  EXPECT_NE(json.err.find("error[attr.empty_window]"), std::string::npos) << json.err;
}

}  // namespace
