// `perfgate attribute` with the engine's counters: --counters FILE for an engine of one
// trial, the text report labelling which figures came from the engine's counters and
// which from the trace, and the JSON report (schema 4) keeping every counter lossless.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/run_command.h"

namespace perfgate {
namespace {

using testing_support::RunPerfgate;

const std::string kTrial = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0/hf2q/trial-1";
const std::string kCounters =
    std::string(PERFGATE_SOURCE_DIR) + "/fixtures/counters/decode_q4_0/hf2q/trial-1/counters.txt";

// One attribute run writes all four formats (a trace read is the slow part).
struct Outputs {
  std::string text, markdown, json, svg;
};

const Outputs& Attributed() {
  static const Outputs out = [] {
    const std::string prefix = testing_support::WriteTempFile("", ".prefix");
    auto r = RunPerfgate("attribute --trace hf2q=" + kTrial + " --tokens 64 --counters hf2q=" + kCounters +
                         " --format all --output " + prefix);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    using testing_support::SlurpFile;
    return Outputs{SlurpFile(prefix + ".txt"), SlurpFile(prefix + ".md"), SlurpFile(prefix + ".json"),
                   SlurpFile(prefix + ".svg")};
  }();
  return out;
}

TEST(CliAttributeCounters, JsonSchema4KeepsCountersLossless) {
  const std::string& out = Attributed().json;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema_version"], 6);
  const auto& e = j["engines"]["hf2q"];
  EXPECT_EQ(e["counters_path"], kCounters);
  EXPECT_EQ(e["trials"][0]["counters_path"], kCounters);
  const auto& d = e["counters"]["dispatches_per_token"];
  EXPECT_EQ(d["median"].get<double>(), 1070.52);
  EXPECT_EQ(d["per_trial_text"], nlohmann::json::array({"1070.52"}));
  EXPECT_EQ(d["source"], "engine counters");
  EXPECT_FALSE(d["is_integer"].get<bool>());
  const auto& total = e["counters"]["total_dispatches"];
  EXPECT_TRUE(total["median"].is_number_integer());  // integers stay integers
  EXPECT_EQ(total["median"], 67443);
  EXPECT_NE(out.find("\"median\": 67443,"), std::string::npos);
  EXPECT_EQ(e["counters"]["norm_dispatches_per_token"]["per_trial_text"][0], "331.00");
  EXPECT_EQ(e["counter_text"]["hardware"], "Apple M5 Max, 128 GB");
}

TEST(CliAttributeCounters, TextAndMarkdownLabelEngineCountersAndTrace) {
  const Outputs& out = Attributed();
  EXPECT_NE(out.text.find("Engine counters (the engine's own counts, from each trial's counters.txt)"),
            std::string::npos);
  EXPECT_TRUE(std::regex_search(out.text, std::regex("\ndispatches_per_token +engine counters +1070\\.52\n")))
      << out.text;
  EXPECT_TRUE(std::regex_search(out.text, std::regex("\nsubmissions/token +trace +4[0-9]\\.[0-9]{2}\n")))
      << out.text;
  EXPECT_TRUE(std::regex_search(out.text, std::regex("\nhf2q counters: [^\n]*trial-1/counters\\.txt\n")));
  EXPECT_NE(out.markdown.find("| `dispatches_per_token` | engine counters | 1070.52 |"), std::string::npos)
      << out.markdown;
  EXPECT_TRUE(std::regex_search(out.markdown, std::regex("\\| submissions/token \\| trace \\| 4[0-9]\\.[0-9]{2} \\|")));
}

}  // namespace
}  // namespace perfgate

namespace perfgate {
namespace {

// An integer past 2^53 (which no double holds: 9007199254740993 reads back as ...992)
// is written to JSON as the integer the report wrote.
TEST(CliAttributeCounters, IntegersPastTwoToThe53AreExactInJson) {
  std::string text = testing_support::SlurpFile(kCounters) + "bytes_moved: 9007199254740993\nhuge: 18446744073709551615\n";
  const std::string counters = testing_support::WriteTempFile(text, ".txt");
  auto r = RunPerfgate("attribute --trace hf2q=" + kTrial + " --tokens 64 --counters hf2q=" + counters +
                       " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"median\": 9007199254740993,"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("9007199254740993\n"), std::string::npos);  // per_trial
  EXPECT_NE(r.out.find("\"median\": 18446744073709551615,"), std::string::npos);
}

}  // namespace
}  // namespace perfgate
