// `perfgate attribute --format json` end to end: the JSON on stdout is lossless. Each
// trial's submissions per token is submissions / tokens, both integers in the same
// report, so the test can compute what the library computed and demand the identical
// double; every other number must be the shortest text of its own value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using nlohmann::json;
using testdata::Bits;

const std::string kRecordings = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
const std::string kHead = "output_head.fused_norm_lm_argmax";

TEST(JsonReportCli, AttributeJsonIsLossless) {
  const auto r = testing_support::RunPerfgate(
      "attribute --trace hf2q=" + kRecordings + "/hf2q --trace llama=" + kRecordings +
      "/llama --baseline llama --tokens hf2q=auto:" + kHead + " --window hf2q=label:" + kHead +
      " --tokens llama=64 --window llama=skip:6 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  int more_than_six_digits = 0;
  for (const char* engine : {"hf2q", "llama"}) {
    SCOPED_TRACE(engine);
    const json& e = j["engines"][engine];
    const json& trials = e["trials"];
    ASSERT_EQ(trials.size(), 3u);
    std::vector<double> per_trial;
    for (const json& t : trials) {
      const double expected = static_cast<double>(t["items"].get<int64_t>()) /
                              static_cast<double>(t["tokens"].get<int64_t>());
      EXPECT_EQ(Bits(t["items_per_token"].get<double>()), Bits(expected))
          << "JSON " << t["items_per_token"] << ", " << t["items"] << " / " << t["tokens"]
          << " = " << testdata::Exact(expected);
      more_than_six_digits += testdata::ShortestDigits(expected).size() > 6;
      per_trial.push_back(expected);
    }
    std::sort(per_trial.begin(), per_trial.end());
    EXPECT_EQ(Bits(e["median_items_per_token"].get<double>()), Bits(per_trial[1]))
        << e["median_items_per_token"] << " vs " << testdata::Exact(per_trial[1]);
  }
  EXPECT_GT(more_than_six_digits, 0) << "the fixture should exercise a value that 6 digits would round";
  for (const std::string& n : testdata::JsonNumberTokens(r.out)) {
    if (n.find_first_of(".eE") == std::string::npos) continue;
    EXPECT_EQ(testdata::SignificantDigits(n), testdata::ShortestDigits(std::strtod(n.c_str(), nullptr))) << n;
  }
}

}  // namespace
}  // namespace perfgate::report
