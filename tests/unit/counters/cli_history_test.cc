// `perfgate history` on hf2q's real history and on small files: the table, the gap
// that a missing counter leaves (never a zero), the SVG chart, the JSON, and the
// errors. The real file's figures are those tests/corpus/counter_history.py prints
// (see reader_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "support/corpus.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using testing_support::RunPerfgate;
using testing_support::WriteTempFile;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(CliHistory, RealHistoryDefaultCounters) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/metrics_baseline.txt");
  auto r = RunPerfgate("history " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The title wraps at 110 columns, where depends on the path's length: read as one.
  std::string title = r.out.substr(0, r.out.find("\n\n"));
  std::replace(title.begin(), title.end(), '\n', ' ');
  EXPECT_NE(title.find("Counter history: " + path + " (9 reports, the engine's own counters)"), std::string::npos)
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n +1  ADR-005 Phase 1b 1bNEW\\.0 [^\n]* +24\\.17 +7513\\.02\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n +9  ADR-005 1bNEW\\.20 Phase B [^\n]* +85\\.10 +2104\\.52\n")))
      << r.out;
  EXPECT_EQ(r.out.find("\xE2\x80\x94 : the report has no such counter"), std::string::npos);  // no gaps here
}

TEST(CliHistory, RealHistorySvgHasAPanelPerCounter) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/metrics_baseline.txt");
  auto r = RunPerfgate("history " + path + " --format svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<svg ", 0), 0u);
  EXPECT_EQ(Count(r.out, "<g class=\"panel\""), 2u);
  EXPECT_EQ(Count(r.out, "<polyline class=\"series\""), 2u);  // no gap: one unbroken line each
  EXPECT_EQ(Count(r.out, "<circle class=\"point\""), 18u);
  EXPECT_NE(r.out.find(">85.10</text>"), std::string::npos);
  EXPECT_NE(r.out.find(">2104.52</text>"), std::string::npos);
  EXPECT_EQ(Count(r.out, "class=\"gap\""), 0u);
}

TEST(CliHistory, GapsAreMarkedNeverZero) {
  const std::string path = WriteTempFile(
      "# one\nspeed: 10\ncount: 7\n"
      "# ====\n# two, without count\n# ====\nspeed: 12\n"
      "# ====\n# three\n# ====\nspeed: n/a\ncount: 5\n",
      ".txt");
  auto text = RunPerfgate("history " + path + " --counters count,speed");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(std::regex_search(text.out, std::regex("\n +2  two, without count +\xE2\x80\x94 +12\n"))) << text.out;
  EXPECT_TRUE(std::regex_search(text.out, std::regex("\n +3  three +5 +n/a\n"))) << text.out;
  EXPECT_NE(text.out.find("a gap, not a zero"), std::string::npos);
  auto svg = RunPerfgate("history " + path + " --counters count,speed --format svg");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  // count: points 1 and 3 with a gap between (two one-point lines); speed: 1-2, gap at 3.
  EXPECT_EQ(Count(svg.out, "<polyline class=\"series\""), 3u) << svg.out;
  EXPECT_EQ(Count(svg.out, "class=\"gap\""), 2u);
  EXPECT_NE(svg.out.find("gap: no count"), std::string::npos);
  EXPECT_NE(svg.out.find("gap: not a number (n/a)"), std::string::npos);
  auto json = RunPerfgate("history " + path + " --counters count --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"count\": null"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"number\": 7,"), std::string::npos) << json.out;  // an integer stays one
  auto md = RunPerfgate("history " + path + " --counters count --format markdown");
  EXPECT_NE(md.out.find("| 2 | two, without count | \xE2\x80\x94 |"), std::string::npos) << md.out;
}

TEST(CliHistory, UnknownCounterFailsListingKeys) {
  const std::string path = WriteTempFile("speed: 10\ncount: 7\n", ".txt");
  auto r = RunPerfgate("history " + path + " --counters speed,cuont");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error[counters.unknown_counter]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(keys: speed, count)"), std::string::npos) << r.err;
  auto defaults = RunPerfgate("history " + path);  // no median_tok_per_sec here
  EXPECT_EQ(defaults.exit_code, 2);
  EXPECT_NE(defaults.err.find("'median_tok_per_sec'"), std::string::npos) << defaults.err;
}

TEST(CliHistory, BadFileIsAnErrorInCompilerForm) {
  const std::string path = WriteTempFile("speed: 10\nspeed: 11\n", ".txt");
  auto r = RunPerfgate("history " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":2:1: error[counters.duplicate_key]"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perfgate
