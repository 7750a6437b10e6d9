// Tables whose rows span several <node>s, runs, and whitespace-only text: the reader
// merges the nodes of one table, never merges runs, and keeps cell text byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "support/run_command.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::xctrace {
namespace {

// Six execution points (three submissions), timestamps 1000, 1100, ..., 1500 ns.
gen::Table SixPoints() {
  std::vector<gen::ExecutionPointRow> rows;
  for (int i = 0; i < 3; ++i) {
    rows.push_back(gen::ExecutionPointRow::Start(1000 + 200 * i, 0x123457, 7000 + i));
    rows.push_back(gen::ExecutionPointRow::End(1100 + 200 * i, 0x123457, 7000 + i));
  }
  return gen::ExecutionPointsTable(rows);
}

// The shape of the issue: the schema, a schema-less continuation, then a node that
// repeats the schema; all three of one xpath.
std::vector<gen::Table> ContinuationThenRepeat() {
  std::vector<gen::Table> nodes = gen::SplitIntoNodes(SixPoints(), {2, 2, 2}, /*repeat_schema=*/false);
  nodes[2].omit_schema = false;
  return nodes;
}

StatusOr<Document> Read(const std::string& bytes, const ReadOptions& options = {}) {
  return ReadExportBuffer(bytes, "t.xml", options);
}

// "t.xml:line:col" of the `occurrence`-th (0-based) `marker` in `doc`.
std::string LocationOf(const std::string& doc, const std::string& marker, int occurrence = 0) {
  size_t off = doc.find(marker);
  for (int i = 0; i < occurrence && off != std::string::npos; ++i) off = doc.find(marker, off + 1);
  EXPECT_NE(off, std::string::npos) << marker;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < off; ++i) {
    if (doc[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "t.xml:" + std::to_string(line) + ":" + std::to_string(off - line_start + 1);
}

std::vector<int64_t> Timestamps(const Table& t) {
  std::vector<int64_t> out;
  for (size_t r = 0; r < t.row_count(); ++r) out.push_back(*t.cell(r, *t.ColumnIndex("timestamp")).AsInt64());
  return out;
}

const std::vector<int64_t> kSixTimestamps = {1000, 1100, 1200, 1300, 1400, 1500};

// --- one table over several nodes -------------------------------------------------

TEST(XctraceReaderNodes, ContinuationAndRepeatedSchemaNodesAreOneTable) {
  const std::string bytes = gen::WriteExport(ContinuationThenRepeat());
  ASSERT_EQ(bytes.find("<schema", bytes.find("<schema") + 1) != std::string::npos, true);  // repeated
  auto d = Read(bytes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 1u);
  Table t = d->table(0);
  EXPECT_EQ(t.node_count(), 3u);
  EXPECT_EQ(t.run(), 1);
  EXPECT_EQ(t.node_xpath(), "//trace-toc[1]/run[1]/data[1]/table[34]");
  EXPECT_EQ(Timestamps(t), kSixTimestamps);
  // Refs of the later nodes reach ids of the first one (the channel id is interned).
  EXPECT_EQ(*t.cell(5, *t.ColumnIndex("channel-id")).AsUint64(), 0x123457u);
  EXPECT_EQ(*t.cell(5, *t.ColumnIndex("gpu-submission-id")).AsUint64(), 7002u);
  EXPECT_EQ(d->FindTable("metal-gpu-execution-points")->row_count(), 6u);
  EXPECT_TRUE(d->diagnostics().empty());
}

TEST(XctraceReaderNodes, NodesThatAllRepeatTheSchemaAreOneTable) {
  auto d = Read(gen::WriteExport(gen::SplitIntoNodes(SixPoints(), {1, 3, 0, 2}, /*repeat_schema=*/true)));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 1u);
  EXPECT_EQ(d->table(0).node_count(), 4u);
  EXPECT_EQ(Timestamps(d->table(0)), kSixTimestamps);
}

TEST(XctraceReaderNodes, TypedViewsAndFindTableSeeEveryNode) {
  auto d = Read(gen::WriteExport(ContinuationThenRepeat()));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Diagnostics diagnostics;
  auto points = ReadMetalTable<ExecutionPoint>(*d, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 6u);
  EXPECT_EQ((*points)[5].timestamp_ns, 1500);
  EXPECT_EQ((*points)[5].submission, SubmissionId{7002});
  EXPECT_EQ((*points)[5].row, 5u);
  auto direct = ReadExecutionPoints(*d->FindTable(ExecutionPoint::kSchema), &diagnostics);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->size(), 6u);
  EXPECT_TRUE(diagnostics.empty());
}

// Attribution loads trials through ReadExportFile + Document::FindTable: it sees the
// merged table with no change of its own.
TEST(XctraceReaderNodes, AttributionLoadsEveryNodeOfATrialTable) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("perfgate-nodes-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "metal-gpu-execution-points.xml", std::ios::binary);
    out << gen::WriteExport(ContinuationThenRepeat());
  }
  auto trial = attribution::LoadTrial(dir.string());
  fs::remove_all(dir);
  ASSERT_TRUE(trial.ok()) << trial.status().ToString();
  ASSERT_EQ(trial->execution_points.size(), 6u);
  EXPECT_EQ(trial->execution_points.back().timestamp_ns, 1500);
}

TEST(XctraceReaderNodes, RepeatedSchemaThatDiffersIsAnErrorAtThatSchema) {
  std::vector<gen::Table> nodes = ContinuationThenRepeat();
  nodes[2].schema.columns[2].engineering_type = "uint64";  // function: uint32 in the first node
  for (gen::Row& row : nodes[2].rows) row[2] = gen::Uint64(std::stoull(row[2].text));
  const std::string bytes = gen::WriteExport(nodes);
  auto strict = Read(bytes);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().ToString(),
            LocationOf(bytes, "<schema", 1) +
                ": error[xctrace.schema_conflict]: <node> 3 repeats the schema of table "
                "'//trace-toc[1]/run[1]/data[1]/table[34]' (first node at 3:1) with a difference: column 3 is "
                "'function' ('Function', uint64) here, 'function' ('Function', uint32) there; its rows form a "
                "table of their own");
  // Lenient: counted, and nothing is dropped: the differing node keeps its own table.
  ReadOptions lenient;
  lenient.mode = ReadMode::kLenient;
  auto d = Read(bytes, lenient);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->diagnostics().Count("xctrace.schema_conflict"), 1);
  ASSERT_EQ(d->table_count(), 2u);
  EXPECT_EQ(d->table(0).row_count(), 4u);
  EXPECT_EQ(d->table(1).row_count(), 2u);
}

TEST(XctraceReaderNodes, RepeatedSchemaWithOtherColumnCountOrNameIsAnError) {
  std::vector<gen::Table> fewer = gen::SplitIntoNodes(SixPoints(), {3, 3}, true);
  fewer[1].schema.columns.pop_back();
  for (gen::Row& row : fewer[1].rows) row.pop_back();
  auto a = Read(gen::WriteExport(fewer));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), "xctrace.schema_conflict");
  EXPECT_NE(a.status().message().find("6 columns here, 7 there"), std::string::npos) << a.status().ToString();

  std::vector<gen::Table> renamed = gen::SplitIntoNodes(SixPoints(), {3, 3}, true);
  renamed[1].schema.name = "metal-gpu-execution-points-2";
  auto b = Read(gen::WriteExport(renamed));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), "xctrace.schema_conflict");
  EXPECT_NE(b.status().message().find("schema 'metal-gpu-execution-points-2' here, 'metal-gpu-execution-points' there"),
            std::string::npos);
}

TEST(XctraceReaderNodes, XpathLessNodesOfOneSchemaAreOneTable) {
  // Hand-made exports without xpath: nodes of the same schema name are one table,
  // nodes of another schema another.
  std::string bytes = gen::WriteExport(gen::SplitIntoNodes(SixPoints(), {3, 3}, true));
  for (size_t at; (at = bytes.find(" xpath='//trace-toc[1]/run[1]/data[1]/table[34]'")) != std::string::npos;) {
    bytes.erase(at, std::string(" xpath='//trace-toc[1]/run[1]/data[1]/table[34]'").size());
  }
  auto d = Read(bytes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 1u);
  EXPECT_EQ(d->table(0).node_count(), 2u);
  EXPECT_EQ(d->table(0).run(), 0);
  EXPECT_EQ(Timestamps(d->table(0)), kSixTimestamps);
}

TEST(XctraceReaderNodes, SchemaLessNodeOfAnotherXpathContinuesThePreviousTable) {
  // swift-mlx-profiler's trimmed real export: table[109] with a schema, then a
  // schema-less table[110] node relying on it. A later table[110] node continues too.
  std::vector<gen::Table> nodes = gen::SplitIntoNodes(SixPoints(), {2, 2, 2}, false);
  nodes[1].toc_index = 35;
  nodes[2].toc_index = 35;
  nodes[2].omit_schema = false;
  auto d = Read(gen::WriteExport(nodes));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 1u);
  EXPECT_EQ(d->table(0).node_count(), 3u);
  EXPECT_EQ(Timestamps(d->table(0)), kSixTimestamps);
}

TEST(XctraceReaderNodes, OneSchemaUnderTwoTocTablesOfARunStaysTwoTables) {
  // The TOC may list a schema twice (kdebug, os-signpost): different xpaths, not
  // continuations of each other.
  std::vector<gen::Table> nodes = gen::SplitIntoNodes(SixPoints(), {4, 2}, true);
  nodes[1].toc_index = 40;
  auto d = Read(gen::WriteExport(nodes));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 2u);
  EXPECT_EQ(d->table(1).node_xpath(), "//trace-toc[1]/run[1]/data[1]/table[40]");
  EXPECT_EQ(d->FindTable("metal-gpu-execution-points")->row_count(), 4u);
}

// --- runs ---------------------------------------------------------------------------

// Rows 0-3 from run 1, rows 4-5 from run 2, of one schema.
std::vector<gen::Table> TwoRuns(bool second_repeats_schema) {
  std::vector<gen::Table> nodes = gen::SplitIntoNodes(SixPoints(), {4, 2}, second_repeats_schema);
  nodes[1].run = 2;
  return nodes;
}

TEST(XctraceReaderRuns, ASchemaFromTwoRunsIsRefusedUnlessARunIsChosen) {
  for (bool repeat : {true, false}) {
    SCOPED_TRACE(repeat ? "run 2 repeats the schema" : "run 2's node is schema-less");
    const std::string bytes = gen::WriteExport(TwoRuns(repeat));
    for (ReadMode mode : {ReadMode::kStrict, ReadMode::kLenient}) {
      ReadOptions options;
      options.mode = mode;
      auto r = Read(bytes, options);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().ToString(),
                LocationOf(bytes, "<node", 1) +
                    ": error[xctrace.multiple_runs]: schema 'metal-gpu-execution-points' is exported from runs 1 "
                    "and 2; pick one with the reader's run option (perfgate: --run N)");
    }
    ReadOptions one;
    one.run = 1;
    auto d1 = Read(bytes, one);
    ASSERT_TRUE(d1.ok()) << d1.status().ToString();
    ASSERT_EQ(d1->table_count(), 1u);
    EXPECT_EQ(d1->table(0).run(), 1);
    EXPECT_EQ(Timestamps(d1->table(0)), std::vector<int64_t>(kSixTimestamps.begin(), kSixTimestamps.begin() + 4));
    ReadOptions two;
    two.run = 2;
    two.expected_schema = "metal-gpu-execution-points";
    auto d2 = Read(bytes, two);
    ASSERT_TRUE(d2.ok()) << d2.status().ToString();
    ASSERT_EQ(d2->table_count(), 1u);
    EXPECT_EQ(d2->table(0).run(), 2);
    EXPECT_EQ(Timestamps(d2->table(0)), std::vector<int64_t>(kSixTimestamps.begin() + 4, kSixTimestamps.end()));
    Diagnostics diagnostics;
    auto typed = ReadMetalTable<ExecutionPoint>(*d2, &diagnostics);
    ASSERT_TRUE(typed.ok());
    EXPECT_EQ(typed->size(), 2u);
  }
}

TEST(XctraceReaderRuns, AnAbsentRunIsAnErrorListingTheRunsPresent) {
  const std::string bytes = gen::WriteExport(TwoRuns(true));
  ReadOptions three;
  three.run = 3;
  auto r = Read(bytes, three);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().ToString(), LocationOf(bytes, "<node") +
                                       ": error[xctrace.run_not_found]: no table of run 3: the export holds runs 1 "
                                       "and 2");
  three.expected_schema = "metal-gpu-execution-points";
  EXPECT_EQ(Read(bytes, three).status().message(),
            "no table of schema 'metal-gpu-execution-points' of run 3: the export holds runs 1 and 2");
  ReadOptions negative;
  negative.run = -1;
  EXPECT_EQ(Read(bytes, negative).status().code(), "xctrace.run_not_found");
}

TEST(XctraceReaderRuns, OtherSchemasFromOtherRunsAreNoConflict) {
  gen::Table driver = *gen::RandomMetalTable(gen::kDriverIntervalsSchema, 3, 1);
  driver.run = 2;
  const std::string bytes = gen::WriteExport({SixPoints(), driver});
  auto d = Read(bytes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 2u);
  EXPECT_EQ(d->table(0).run(), 1);
  EXPECT_EQ(d->table(1).run(), 2);
  ReadOptions two;
  two.run = 2;
  auto d2 = Read(bytes, two);
  ASSERT_TRUE(d2.ok()) << d2.status().ToString();
  ASSERT_EQ(d2->table_count(), 1u);
  EXPECT_EQ(d2->table(0).schema(), gen::kDriverIntervalsSchema);
  EXPECT_FALSE(d2->FindTable("metal-gpu-execution-points").has_value());
}

TEST(XctraceReaderRuns, QueryFormAndXpathsWithoutARun) {
  const std::string schema = "<schema name=\"s\"><col><mnemonic>t</mnemonic><name>T</name>"
                             "<engineering-type>start-time</engineering-type></col></schema>";
  // xpath1 in single quotes, xpath2 in double quotes.
  auto doc = [&](const std::string& xpath1, const std::string& xpath2) {
    return "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node xpath='" + xpath1 + "'>" + schema +
           "<row><start-time>1</start-time></row>\n</node>\n<node xpath=\"" + xpath2 + "\">" + schema +
           "<row><start-time>2</start-time></row>\n</node></trace-query-result>\n";
  };
  auto d = Read(doc("/trace-toc/run[@number=\"7\"]/data/table[@schema=\"s\"]",
                    "/trace-toc/run[@number=&apos;7&apos;]/data/table[@schema=&quot;t&quot;]"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->table_count(), 2u);  // two xpaths: two TOC tables of run 7
  EXPECT_EQ(d->table(0).run(), 7);
  EXPECT_EQ(d->table(1).run(), 7);
  EXPECT_EQ(d->table(1).node_xpath(), "/trace-toc/run[@number='7']/data/table[@schema=\"t\"]");
  auto mixed = Read(doc("//trace-toc[1]/run[2]/data[1]/table[3]", "custom"));
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(),
            "schema 's' is exported from run 2 and a node whose xpath names no run; pick one with the reader's "
            "run option (perfgate: --run N)");
}

// --- whitespace-only text -----------------------------------------------------------

const std::string kStringsSchema =
    "<schema name=\"s\"><col><mnemonic>a</mnemonic><name>A</name><engineering-type>string</engineering-type></col>"
    "<col><mnemonic>label</mnemonic><name>L</name><engineering-type>formatted-label</engineering-type></col>"
    "</schema>";

TEST(XctraceReaderWhitespace, WhitespaceOnlyTextIsKeptExactly) {
  const std::string bytes =
      "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node xpath='//trace-toc[1]/run[1]/data[1]/table[1]'>" +
      kStringsSchema +
      "<row><string id=\"1\" fmt=\" \"> </string><formatted-label id=\"2\" fmt=\" \"><narrative-text id=\"3\" "
      "fmt=\" \"> </narrative-text></formatted-label></row>\n"
      "<row><string id=\"4\" fmt=\"   \">   </string><formatted-label ref=\"2\"/></row>\n"
      "<row><string id=\"5\" fmt=\"\">\t\n</string><formatted-label id=\"6\" fmt=\"\"><narrative-text ref=\"3\"/>"
      "</formatted-label></row>\n"
      "<row><string ref=\"1\"/><formatted-label id=\"7\" fmt=\"x\"><string id=\"8\" fmt=\"\"> \r\n </string>"
      "</formatted-label></row>\n"
      "<row><string id=\"9\" fmt=\"\"></string><sentinel/></row>\n</node></trace-query-result>\n";
  auto d = Read(bytes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Table t = d->table(0);
  ASSERT_EQ(t.row_count(), 5u);
  EXPECT_EQ(t.cell(0, 0).text(), " ");
  EXPECT_EQ(t.cell(1, 0).text(), "   ");
  EXPECT_EQ(t.cell(2, 0).text(), "\t\n");
  EXPECT_EQ(t.cell(3, 0).text(), " ");  // a ref to the single space
  EXPECT_EQ(t.cell(4, 0).text(), "");   // the empty string stays empty
  ASSERT_EQ(t.cell(0, 1).child_count(), 1u);
  EXPECT_EQ(t.cell(0, 1).child(0).text(), " ");
  EXPECT_EQ(t.cell(1, 1).child(0).text(), " ");
  EXPECT_EQ(t.cell(2, 1).child(0).text(), " ");
  EXPECT_EQ(t.cell(3, 1).child(0).text(), " \r\n ");  // byte for byte, CR included
  EXPECT_TRUE(t.cell(4, 1).is_sentinel());
  EXPECT_TRUE(d->diagnostics().empty());
}

TEST(XctraceReaderWhitespace, StructuralWhitespaceBetweenElementsMakesNoValues) {
  // Indented like a hand-formatted export: whitespace between rows, between a row's
  // cells, between a composite's children and around the schema.
  const std::string bytes =
      "<?xml version=\"1.0\"?>\n<trace-query-result>\n  <node xpath='//trace-toc[1]/run[1]/data[1]/table[1]'>\n    " +
      kStringsSchema +
      "\n    <row>\n      <string id=\"1\" fmt=\"v\">v</string>\n      <formatted-label id=\"2\" fmt=\"L\">\n"
      "        <narrative-text id=\"3\" fmt=\"n\">n</narrative-text>\n        <string id=\"4\" fmt=\" \"> </string>\n"
      "      </formatted-label>\n    </row>\n\n    <row>\t<string ref=\"1\"/> <formatted-label ref=\"2\"/>\r\n</row>\n"
      "  </node>\n</trace-query-result>\n";
  auto d = Read(bytes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Table t = d->table(0);
  ASSERT_EQ(t.row_count(), 2u);
  EXPECT_EQ(t.cell(0, 0).text(), "v");
  Value label = t.cell(0, 1);
  EXPECT_EQ(label.text(), "");
  ASSERT_EQ(label.child_count(), 2u);  // no text nodes among the children
  EXPECT_EQ(label.child(0).text(), "n");
  EXPECT_EQ(label.child(1).text(), " ");
  EXPECT_EQ(t.cell(1, 0).text(), "v");
  EXPECT_EQ(t.cell(1, 1).identity(), label.identity());
  EXPECT_TRUE(d->diagnostics().empty());
}

TEST(XctraceReaderWhitespace, WhitespaceOnlyIntegerTextIsNotAnInteger) {
  // Kept as text, a blank integer is what it is: not a number (it used to read as an
  // empty, silently number-less cell).
  const std::string bytes =
      "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node><schema name=\"s\"><col><mnemonic>t</mnemonic>"
      "<name>T</name><engineering-type>start-time</engineering-type></col></schema>"
      "<row><start-time fmt=\"\"> </start-time></row>\n</node></trace-query-result>\n";
  auto r = Read(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "xctrace.bad_integer");
}

TEST(XctraceReaderWhitespace, WhitespaceTextSurvivesChunkBoundaries) {
  // Rows spanning many 1 MiB chunks: every row's blank narrative keeps its text.
  std::vector<gen::DriverIntervalRow> rows(40000);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].start_ns = static_cast<int64_t>(1000 * i);
    rows[i].duration_ns = 10;
    rows[i].label = std::string(i % 3 + 1, ' ');
    rows[i].thread = {"t", 1, {"p", 2}};
  }
  auto d = Read(gen::WriteDriverIntervals(rows));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  Table t = d->table(0);
  ASSERT_EQ(t.row_count(), rows.size());
  ASSERT_GT(d->byte_size(), size_t{3} << 20);
  const size_t label = *t.ColumnIndex("event-label");
  for (size_t r = 0; r < t.row_count(); ++r) {
    Value v = t.cell(r, label).Find("metal-object-label");
    ASSERT_FALSE(v.is_missing()) << r;
    ASSERT_EQ(v.text(), rows[r].label) << r;
  }
}

}  // namespace
}  // namespace perfgate::xctrace

namespace perfgate::xctrace {
namespace {

// The run option reaches attribution: `perfgate attribute --run N` (AttributionOptions
// ::run) reads one run of a two-run trial, and without it the trial is refused.
TEST(XctraceReaderRuns, AttributeTakesTheRunOption) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("perfgate-runs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "metal-gpu-execution-points.xml", std::ios::binary);
    out << gen::WriteExport(TwoRuns(true));
  }
  auto refused = attribution::LoadTrial(dir.string());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), "xctrace.multiple_runs");
  auto run2 = attribution::LoadTrial(dir.string(), 2);
  ASSERT_TRUE(run2.ok()) << run2.status().ToString();
  EXPECT_EQ(run2->execution_points.size(), 2u);
  const std::string cli = std::string(PERFGATE_CLI_PATH) + " attribute --trace e=" + dir.string() +
                          " --all-processes --tokens 1 --format json";
  auto without = testing_support::RunCommand(cli);
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_NE(without.err.find("error[xctrace.multiple_runs]"), std::string::npos) << without.err;
  auto with = testing_support::RunCommand(cli + " --run 2");
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.err.find("1 submissions over 1 tokens"), std::string::npos) << with.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perfgate::xctrace
