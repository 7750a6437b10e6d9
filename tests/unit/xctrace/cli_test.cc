// End-to-end tests of `perfgate table`, `perfgate info` and exit codes.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "support/corpus.h"
#include "support/run_command.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate {
namespace {

using testing_support::RunPerfgate;
using testing_support::WriteTempFile;

TEST(PerfgateCli, TableJsonOnRealExport) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  auto r = RunPerfgate("table " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "metal-driver-intervals");
  ASSERT_EQ(j["columns"].size(), 14u);
  EXPECT_EQ(j["columns"][0], (nlohmann::json{{"mnemonic", "start"}, {"name", "Creation"},
                                              {"engineering_type", "start-time"}}));
  ASSERT_EQ(j["rows"].size(), 22u);
  const auto& row = j["rows"][0];
  EXPECT_EQ(row["start"], 329138291);
  EXPECT_EQ(row["duration"], 197584);
  EXPECT_EQ(row["object-id"], 18446744073709551615ULL);
  EXPECT_EQ(row["gpu"], "A18 Pro");
  EXPECT_EQ(row["process"]["fmt"], "backboardd (75)");
  EXPECT_EQ(row["process"]["pid"], 75);
  EXPECT_EQ(row["event-label"]["thread"]["tid"], 2543);
  EXPECT_TRUE(j["diagnostics"].empty());
}

TEST(PerfgateCli, TableJsonSentinelIsNull) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml");
  auto r = RunPerfgate("table --schema metal-gpu-execution-points " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["rows"][0]["note"].is_null());
  EXPECT_EQ(j["rows"][1]["note"], "");
  EXPECT_EQ(j["rows"][1]["gpu-submission-id"], 1594567233);
}

TEST(PerfgateCli, TableCsvToFile) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml");
  std::string out = WriteTempFile("", ".csv");
  auto r = RunPerfgate("table --format csv --output " + out + " " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string csv = testing_support::SlurpFile(out);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "timestamp,channel-id,function,slot-id,gpu-submission-id,accelerator-id,note");
  size_t second = csv.find('\n') + 1;
  EXPECT_EQ(csv.substr(second, csv.find('\n', second) - second),
            "329899666,1193047,1,1594567233,1594567233,18446744073709551615,");
  std::remove(out.c_str());
}

TEST(PerfgateCli, TableKeepsWhitespaceOnlyText) {
  // Row 1's lane is <formatted-label id="20" fmt=" "><narrative-text id="21" fmt=" ">
  // </narrative-text></formatted-label> in the file (grep 'id="21"'): one space.
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  auto r = RunPerfgate("table " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"][0]["lane"], (nlohmann::json{{"fmt", " "}, {"narrative-text", " "}}));
}

// Six execution points over three nodes of one xpath: schema, schema-less, schema again.
std::string ThreeNodeExport(int second_run = 1) {
  std::vector<gen::ExecutionPointRow> rows;
  for (int i = 0; i < 3; ++i) {
    rows.push_back(gen::ExecutionPointRow::Start(1000 + 200 * i, 0x123457, 7000 + i));
    rows.push_back(gen::ExecutionPointRow::End(1100 + 200 * i, 0x123457, 7000 + i));
  }
  std::vector<gen::Table> nodes = gen::SplitIntoNodes(gen::ExecutionPointsTable(rows), {2, 2, 2}, false);
  nodes[2].omit_schema = false;
  nodes[2].run = second_run;
  return gen::WriteExport(nodes);
}

TEST(PerfgateCli, TablePrintsTheNodesOfOneTableAsOneTable) {
  std::string path = WriteTempFile(ThreeNodeExport());
  auto r = RunPerfgate("table " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_object()) << "one table, not an array of tables";
  ASSERT_EQ(j["rows"].size(), 6u);
  EXPECT_EQ(j["rows"][5]["timestamp"], 1500);
  auto csv = RunPerfgate("table --format csv " + path);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 7);  // header + 6 rows
  auto info = RunPerfgate("info " + path);
  EXPECT_NE(info.out.find("metal-gpu-execution-points: 6 rows x 7 columns"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find(", run 1, from 3 nodes"), std::string::npos) << info.out;
  std::remove(path.c_str());
}

TEST(PerfgateCli, TableRunPicksOneRunOfSeveral) {
  const std::string bytes = ThreeNodeExport(/*second_run=*/2);
  std::string path = WriteTempFile(bytes);
  // The error points at run 2's node, the third.
  const size_t third = bytes.find("<node", bytes.find("<node", bytes.find("<node") + 1) + 1);
  const std::string line = std::to_string(std::count(bytes.begin(), bytes.begin() + third, '\n') + 1);
  const std::string column = std::to_string(third - bytes.rfind('\n', third));
  auto refused = RunPerfgate("table " + path);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, path + ":" + line + ":" + column +
                            ": error[xctrace.multiple_runs]: schema 'metal-gpu-execution-points' is exported from "
                            "runs 1 and 2; pick one with the reader's run option (perfgate: --run N)\n");
  auto one = RunPerfgate("table --run 1 " + path);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["rows"].size(), 4u);
  auto two = RunPerfgate("table --run 2 --schema metal-gpu-execution-points " + path);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto j = nlohmann::json::parse(two.out);
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["timestamp"], 1400);
  auto absent = RunPerfgate("table --run 3 " + path);
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("error[xctrace.run_not_found]: no table of run 3: the export holds runs 1 and 2"),
            std::string::npos)
      << absent.err;
  EXPECT_EQ(RunPerfgate("table --run 0 " + path).exit_code, 2);  // usage: runs count from 1
  EXPECT_EQ(RunPerfgate("info " + path).exit_code, 2);
  EXPECT_EQ(RunPerfgate("info --run 2 " + path).exit_code, 0);
  std::remove(path.c_str());
}

TEST(PerfgateCli, BadInputExitsTwoWithCompilerStyleError) {
  std::string path = WriteTempFile("<?xml version=\"1.0\"?>\n<trace-query-result>\n<node><schema name=\"s\">"
                                   "<col><mnemonic>a</mnemonic><name>A</name><engineering-type>uint32</engineering-type></col>"
                                   "</schema><row><uint32 ref=\"3\"/></row>\n</node></trace-query-result>\n");
  auto r = RunPerfgate("table " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ":3:128: error[xctrace.dangling_ref]: <uint32 ref=\"3\"/> (node 1, row 1) has no "
                          "earlier id=\"3\"\n");
  EXPECT_TRUE(r.out.empty());
  // --lenient decodes it, reports the anomaly on stderr, and keeps the row (as null).
  auto lenient = RunPerfgate("table --lenient " + path);
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  auto j = nlohmann::json::parse(lenient.out);
  EXPECT_TRUE(j["rows"][0]["a"].is_null());
  EXPECT_EQ(j["diagnostics"]["xctrace.dangling_ref"], 1);
  EXPECT_NE(lenient.err.find("error[xctrace.dangling_ref]"), std::string::npos);
  std::remove(path.c_str());
}

TEST(PerfgateCli, MalformedInputsAllExitTwo) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "xctrace.empty_file"},
      {"not xml at all", "xctrace.not_xml"},
      {"<?xml version=\"1.0\"?>\n<trace-query-result>\n<node><schema name=\"s\"></schema><row>", "xctrace.truncated"},
      {"<?xml version=\"1.0\"?>\n<trace-query-result>\xff</trace-query-result>", "xctrace.bad_utf8"},
      {"<?xml version=\"1.0\"?>\n<trace-query-result/>\n", "xctrace.empty_export"},
  };
  for (const auto& [bytes, code] : cases) {
    std::string path = WriteTempFile(bytes);
    auto r = RunPerfgate("table " + path);
    EXPECT_EQ(r.exit_code, 2) << code;
    EXPECT_NE(r.err.find("error[" + code + "]"), std::string::npos) << r.err;
    std::remove(path.c_str());
  }
  auto missing = RunPerfgate("table /nonexistent.xml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "/nonexistent.xml: error[io.not_found]: cannot open: No such file or directory\n");
}

TEST(PerfgateCli, UsageErrorsExitTwoAndHelpExitsZero) {
  EXPECT_EQ(RunPerfgate("").exit_code, 2);
  EXPECT_EQ(RunPerfgate("no-such-command").exit_code, 2);
  EXPECT_EQ(RunPerfgate("table --format yaml x.xml").exit_code, 2);
  auto help = RunPerfgate("table --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--format"), std::string::npos);
}

TEST(PerfgateCli, DiagnosticsCatalogueIsListed) {
  auto r = RunPerfgate("diagnostics");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("xctrace.dangling_ref\terror\tA ref names an id that the document never defines."),
            std::string::npos);
}

}  // namespace
}  // namespace perfgate
