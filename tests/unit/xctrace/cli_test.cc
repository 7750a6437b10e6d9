// End-to-end tests of `perfgate table`, `perfgate info` and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/corpus.h"
#include "support/run_command.h"

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
