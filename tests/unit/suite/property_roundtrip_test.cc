// Figures recorded as test properties are lossless: this program runs its tests with
// --gtest_output=json or xml, reads the file back, and requires every recorded
// value to parse to exactly the double the assertion judged (and to be the shortest
// text that does). A 4- or 6-digit rendering (45.6, 0.0482) fails it.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "perfgate/gtest/perfgate_gtest.h"
#include "unit/suite/decode_suite.h"

namespace {

using perfgate::testing::PerfSuiteFixture;
using perfgate::testing::SuiteConfig;

// Property key -> the exact double an assertion was given or computed.
std::map<std::string, double>& Expected() {
  static std::map<std::string, double> expected;
  return expected;
}

class Properties : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return perfgate::suite::test::ReadmeSuite(); }
};

TEST_F(Properties, BudgetsAndRatiosAreRecordedExactly) {
  const auto& hf2q = engine("hf2q");
  const auto& llama = engine("llama");
  EXPECT_TRUE(perfgate::testing::SubmissionsPerTokenAtMost(hf2q, 46.5));
  Expected()["hf2q.submissions_per_token.current"] = hf2q.items_per_token.median;
  Expected()["hf2q.submissions_per_token.budget"] = 46.5;
  EXPECT_TRUE(perfgate::testing::GpuTimeRatioAtMost(hf2q, llama, 1.15));
  Expected()["hf2q.gpu_time_ratio"] = hf2q.gpu_us_per_token.median / llama.gpu_us_per_token.median;
  EXPECT_TRUE(perfgate::testing::BucketDeltaAtMostUs(hf2q, llama, "md_8_32us", 25));
  for (const auto& [name, b] : hf2q.buckets) {
    if (name == "md_8_32us") Expected()["hf2q.md_8_32us.us_per_token.current"] = b.us_per_token.median;
  }
  for (const auto& [name, b] : llama.buckets) {
    if (name == "md_8_32us") Expected()["hf2q.md_8_32us.us_per_token.baseline"] = b.us_per_token.median;
  }
  perfgate::testing::RecordFigure("one_third", 1.0 / 3.0);
  Expected()["one_third"] = 1.0 / 3.0;
}

std::string Shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// Compares one recorded text with its double; returns the number of failures.
int Check(const std::string& where, const std::string& key, const std::string& text) {
  const double want = Expected().at(key);
  const double got = std::strtod(text.c_str(), nullptr);
  if (got == want && text == Shortest(want)) return 0;
  std::fprintf(stderr, "%s: property %s = '%s' does not read back as %s\n", where.c_str(), key.c_str(), text.c_str(),
               Shortest(want).c_str());
  return 1;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int CheckJson(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(ReadText(path));
  int failures = 0;
  size_t seen = 0;
  for (const auto& suite : doc.at("testsuites")) {
    for (const auto& test : suite.at("testsuite")) {
      for (const auto& [key, _] : Expected()) {
        if (!test.contains(key)) continue;
        ++seen;
        failures += Check(path, key, test.at(key).get<std::string>());
      }
    }
  }
  if (seen != Expected().size()) {
    std::fprintf(stderr, "%s: %zu of %zu properties found\n", path.c_str(), seen, Expected().size());
    ++failures;
  }
  return failures;
}

int CheckXml(const std::string& path) {
  const std::string xml = ReadText(path);
  int failures = 0;
  for (const auto& [key, _] : Expected()) {
    std::smatch m;
    const std::regex property("<property name=\"" + std::regex_replace(key, std::regex("\\."), "\\.") +
                              "\" value=\"([^\"]*)\"/>");
    if (!std::regex_search(xml, m, property)) {
      std::fprintf(stderr, "%s: no property %s\n", path.c_str(), key.c_str());
      ++failures;
      continue;
    }
    failures += Check(path, key, m[1]);
  }
  return failures;
}

}  // namespace

// Run with --gtest_output=json:FILE or xml:FILE; the file is read back once the tests
// have written it.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string output = GTEST_FLAG_GET(output);
  const size_t colon = output.find(':');
  const std::string format = output.substr(0, colon);
  if (colon == std::string::npos || (format != "json" && format != "xml")) {
    std::fprintf(stderr, "run with --gtest_output=json:FILE or --gtest_output=xml:FILE (got '%s')\n", output.c_str());
    return 2;
  }
  const std::string path = output.substr(colon + 1);
  const int rc = RUN_ALL_TESTS();
  if (Expected().empty()) {
    std::fprintf(stderr, "no test recorded a property (filtered out?)\n");
    return 1;
  }
  const int failures = format == "json" ? CheckJson(path) : CheckXml(path);
  if (failures == 0) std::printf("%zu properties read back exactly from %s\n", Expected().size(), path.c_str());
  return rc != 0 || failures != 0 ? 1 : 0;
}
