// Tests of the typed Metal table views (perfgate/xctrace/metal_tables.h).
//
// Inputs are hand-written exports in the real shape (one line per row, id/ref
// interning that rises in document order, sentinels), built column by column so that
// tests can reorder, add and drop columns, plus two real files from shared/corpus.
#include "perfgate/xctrace/metal_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "perfgate/xctrace/reader.h"
#include "support/corpus.h"

namespace perfgate::xctrace {
namespace {

// One column of a hand-written table: its mnemonic, engineering type and the cell
// markup of every row.
struct TestColumn {
  std::string mnemonic;
  std::string type;
  std::vector<std::string> cells;
};

// An export of one table in the exact layout `xctrace export --xpath` writes: the
// first row shares the </schema> line, every row ends with "\n".
std::string Export(const std::string& schema, const std::vector<TestColumn>& columns) {
  std::string out =
      "<?xml version=\"1.0\"?>\n<trace-query-result>\n"
      "<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'><schema name=\"" +
      schema + "\" documentation=\"Written by metal_tables_test.\">";
  for (const TestColumn& c : columns) {
    out += "<col><mnemonic>" + c.mnemonic + "</mnemonic><name>" + c.mnemonic +
           "</name><engineering-type>" + c.type + "</engineering-type></col>";
  }
  out += "</schema>";
  const size_t rows = columns.empty() ? 0 : columns.front().cells.size();
  for (size_t r = 0; r < rows; ++r) {
    out += "<row>";
    for (const TestColumn& c : columns) out += c.cells.at(r);
    out += "</row>\n";
  }
  out += "</node></trace-query-result>\n";
  return out;
}

// Reads `xml` (strictly) and returns the one table, failing the test on a read error.
struct Loaded {
  std::optional<Document> document;
  std::optional<Table> table;
};
Loaded Load(const std::string& xml) {
  Loaded loaded;
  StatusOr<Document> doc = ReadExportBuffer(xml, "t.xml");
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return loaded;
  loaded.document.emplace(std::move(doc).value());
  EXPECT_EQ(loaded.document->table_count(), 1u);
  if (loaded.document->table_count() > 0) loaded.table = loaded.document->table(0);
  return loaded;
}

// 1-based line and column of the n-th (0-based) "<row>" of `xml`.
std::pair<int, int> RowPosition(const std::string& xml, size_t n) {
  size_t pos = xml.find("<row>");
  for (size_t i = 0; i < n; ++i) pos = xml.find("<row>", pos + 1);
  const int line = 1 + static_cast<int>(std::count(xml.begin(), xml.begin() + pos, '\n'));
  const size_t line_start = xml.rfind('\n', pos);
  return {line, static_cast<int>(pos - (line_start == std::string::npos ? 0 : line_start + 1) + 1)};
}

void EraseColumn(std::vector<TestColumn>* columns, const std::string& mnemonic) {
  columns->erase(std::remove_if(columns->begin(), columns->end(),
                                [&](const TestColumn& c) { return c.mnemonic == mnemonic; }),
                 columns->end());
}

// --- metal-gpu-execution-points --------------------------------------------------

// The first four rows of the JSama99/Solo iPhone 16 Pro export, cell for cell.
std::vector<TestColumn> ExecutionPointColumns() {
  return {
      {"timestamp", "start-time",
       {R"x(<start-time id="1" fmt="00:00.329.899">329899666</start-time>)x",
        R"x(<start-time id="7" fmt="00:00.330.007">330007916</start-time>)x",
        R"x(<start-time id="10" fmt="00:00.330.008">330008291</start-time>)x",
        R"x(<start-time id="14" fmt="00:00.330.942">330942583</start-time>)x"}},
      {"channel-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="2" fmt="0x123457">1193047</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="2"/>)x",
        R"x(<metal-command-buffer-id id="11" fmt="0x123458">1193048</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="11"/>)x"}},
      {"function", "uint32",
       {R"x(<uint32 id="3" fmt="1">1</uint32>)x", R"x(<uint32 id="8" fmt="2">2</uint32>)x",
        R"x(<uint32 ref="3"/>)x", R"x(<uint32 ref="8"/>)x"}},
      {"slot-id", "uint32",
       {R"x(<uint32 id="4" fmt="1594567233">1594567233</uint32>)x", R"x(<uint32 ref="4"/>)x",
        R"x(<uint32 id="12" fmt="1594567232">1594567232</uint32>)x", R"x(<uint32 ref="12"/>)x"}},
      {"gpu-submission-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="5" fmt="0x5f0b2a41">1594567233</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="5"/>)x",
        R"x(<metal-command-buffer-id id="13" fmt="0x5f0b2a40">1594567232</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="13"/>)x"}},
      {"accelerator-id", "uint64",
       {R"x(<uint64 id="6" fmt="18,446,744,073,709,551,615">18446744073709551615</uint64>)x",
        R"x(<uint64 ref="6"/>)x", R"x(<uint64 ref="6"/>)x", R"x(<uint64 ref="6"/>)x"}},
      {"note", "string",
       {"<sentinel/>", R"x(<string id="9" fmt=""></string>)x", "<sentinel/>",
        R"x(<string ref="9"/>)x"}},
  };
}

using PointTuple = std::tuple<int64_t, uint64_t, uint32_t, uint64_t, std::optional<uint64_t>,
                              std::optional<uint64_t>, size_t>;
std::vector<PointTuple> Tuples(const std::vector<ExecutionPoint>& points) {
  std::vector<PointTuple> out;
  for (const ExecutionPoint& p : points) {
    out.emplace_back(p.timestamp_ns, p.channel_id, p.function, p.submission.value, p.slot_id,
                     p.accelerator_id, p.row);
  }
  return out;
}

const std::vector<PointTuple> kExpectedPoints = {
    {329899666, 1193047, 1, 1594567233, 1594567233, std::nullopt, 0},
    {330007916, 1193047, 2, 1594567233, 1594567233, std::nullopt, 1},
    {330008291, 1193048, 1, 1594567232, 1594567232, std::nullopt, 2},
    {330942583, 1193048, 2, 1594567232, 1594567232, std::nullopt, 3},
};

TEST(ExecutionPointsTest, DecodesRealShapedRowsThroughRefs) {
  Loaded in = Load(Export("metal-gpu-execution-points", ExecutionPointColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(Tuples(*points), kExpectedPoints);
  EXPECT_TRUE(diagnostics.empty());
}

TEST(ExecutionPointsTest, ReversedColumnOrderGivesTheSameRows) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  std::reverse(columns.begin(), columns.end());
  Loaded in = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(in.table);
  ASSERT_EQ(in.table->columns().front().mnemonic, "note");  // really reordered
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(Tuples(*points), kExpectedPoints);
}

TEST(ExecutionPointsTest, UnknownColumnsAreIgnored) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  columns.insert(columns.begin() + 2,
                 {"future-flags", "gpu-future-type",
                  {R"x(<gpu-future-type fmt="7">7</gpu-future-type>)x", "<sentinel/>",
                   R"x(<gpu-future-type fmt="x">x</gpu-future-type>)x",
                   R"x(<gpu-future-type fmt=""></gpu-future-type>)x"}});
  columns.insert(columns.begin(),
                 {"function-name", "string",
                  {R"x(<string fmt="2">2</string>)x", R"x(<string fmt="2">2</string>)x",
                   R"x(<string fmt="2">2</string>)x", R"x(<string fmt="2">2</string>)x"}});
  Loaded in = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(Tuples(*points), kExpectedPoints);
  EXPECT_TRUE(diagnostics.empty());
}

TEST(ExecutionPointsTest, MissingRequiredColumnIsAnErrorListingTheColumns) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  EraseColumn(&columns, "function");
  const std::string xml = Export("metal-gpu-execution-points", columns);
  Loaded in = Load(xml);
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_FALSE(points.ok());
  const auto [line, column] = RowPosition(xml, 0);
  EXPECT_EQ(points.status().ToString(),
            "t.xml:" + std::to_string(line) + ":" + std::to_string(column) +
                ": error[xctrace.missing_column]: metal-gpu-execution-points lacks required "
                "column 'function' (has: timestamp, channel-id, slot-id, gpu-submission-id, "
                "accelerator-id, note)");
  EXPECT_EQ(line, 3);
}

TEST(ExecutionPointsTest, AbsentOptionalColumnsGiveNone) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  EraseColumn(&columns, "slot-id");
  EraseColumn(&columns, "channel-id");
  EraseColumn(&columns, "accelerator-id");
  Loaded in = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 4u);
  for (const ExecutionPoint& p : *points) {
    EXPECT_EQ(p.slot_id, std::nullopt);
    EXPECT_EQ(p.accelerator_id, std::nullopt);
    EXPECT_EQ(p.channel_id, kNoId);
  }
  EXPECT_EQ((*points)[2].submission, SubmissionId{1594567232});
  EXPECT_EQ((*points)[2].function, 1u);
}

TEST(ExecutionPointsTest, AcceleratorIdOtherThanNoneIsKept) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  columns[5].cells[3] = R"x(<uint64 id="15" fmt="3">3</uint64>)x";
  Loaded in = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ((*points)[2].accelerator_id, std::nullopt);
  EXPECT_EQ((*points)[3].accelerator_id, std::optional<uint64_t>(3));
}

std::vector<TestColumn> ColumnsWithNullFunctionInRow2() {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  columns[2].cells[2] = "<sentinel/>";  // function of row 2 (0-based)
  return columns;
}

TEST(ExecutionPointsTest, NullRequiredValueSkipsTheRowAndCountsIt) {
  const std::string xml = Export("metal-gpu-execution-points", ColumnsWithNullFunctionInRow2());
  Loaded in = Load(xml);
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  std::vector<PointTuple> expected = kExpectedPoints;
  expected.erase(expected.begin() + 2);
  EXPECT_EQ(Tuples(*points), expected);

  EXPECT_EQ(diagnostics.Count("xctrace.null_required_value"), 1);
  ASSERT_EQ(diagnostics.Entries().size(), 1u);
  const Diagnostics::Entry entry = diagnostics.Entries().front();
  EXPECT_EQ(entry.first_detail,
            "metal-gpu-execution-points column 'function' is null (<sentinel/>); row skipped");
  const auto [line, column] = RowPosition(xml, 2);
  EXPECT_EQ(entry.first_location.path, "t.xml");
  EXPECT_EQ(entry.first_location.line, line);
  EXPECT_EQ(entry.first_location.column, column);
  EXPECT_EQ(line, 5);
}

TEST(ExecutionPointsTest, NullRequiredValueWithoutDiagnosticsIsAnError) {
  const std::string xml = Export("metal-gpu-execution-points", ColumnsWithNullFunctionInRow2());
  Loaded in = Load(xml);
  ASSERT_TRUE(in.table);
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, nullptr);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().ToString(),
            "t.xml:5:1: error[xctrace.null_required_value]: metal-gpu-execution-points column "
            "'function' is null (<sentinel/>); row skipped");
}

TEST(ExecutionPointsTest, TableOfAnotherSchemaIsRejected) {
  Loaded in = Load(Export("metal-gpu-intervals", ExecutionPointColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().code(), "xctrace.schema_mismatch");
  EXPECT_EQ(points.status().message(),
            "expected a metal-gpu-execution-points table, got metal-gpu-intervals");
}

// --- metal-gpu-intervals ---------------------------------------------------------

// Two rows in the 26.0 column order. Row 0 belongs to python (99926), whose process is
// first written inside the event label's thread and only referenced by the process
// column; row 1 is unattributed (sentinel process and encoder) and refs its duration.
std::vector<TestColumn> GpuIntervalColumns() {
  return {
      {"start", "start-time",
       {R"x(<start-time id="1" fmt="00:00.907.208">907208000</start-time>)x",
        R"x(<start-time id="25" fmt="00:00.907.300">907300000</start-time>)x"}},
      {"duration", "duration",
       {R"x(<duration id="2" fmt="13.83 µs">13833</duration>)x", R"x(<duration ref="2"/>)x"}},
      {"channel-name", "gpu-channel-name",
       {R"x(<gpu-channel-name id="3" fmt="Compute">Compute</gpu-channel-name>)x",
        R"x(<gpu-channel-name id="26" fmt="Blit">Blit</gpu-channel-name>)x"}},
      {"frame-number", "gpu-frame-number",
       {"<sentinel/>", R"x(<gpu-frame-number id="27" fmt="Frame 3">3</gpu-frame-number>)x"}},
      {"start-latency", "duration",
       {R"x(<duration id="4" fmt="1.12 ms">1117250</duration>)x", R"x(<duration ref="4"/>)x"}},
      {"event-depth", "metal-nesting-level",
       {R"x(<metal-nesting-level id="5" fmt="0">0</metal-nesting-level>)x",
        R"x(<metal-nesting-level id="28" fmt="1">1</metal-nesting-level>)x"}},
      {"event-label", "formatted-label",
       {R"x(<formatted-label id="6" fmt="Command Buffer 0:Compute Command 0  ( python (99926) )  0x5f0b2a41">)x"
        R"x(<metal-object-label id="7" fmt="Command Buffer 0:Compute Command 0">Command Buffer 0:Compute Command 0</metal-object-label>)x"
        R"x(<narrative-text id="8" fmt=" ("> (</narrative-text>)x"
        R"x(<thread id="9" fmt="Main Thread (0x1b2c) (python, pid: 99926)"><tid id="10" fmt="0x1b2c">6956</tid>)x"
        R"x(<process id="11" fmt="python (99926)"><pid id="12" fmt="99926">99926</pid>)x"
        R"x(<device-session id="13" fmt="TODO">TODO</device-session></process></thread>)x"
        R"x(<narrative-text id="14" fmt=")">)</narrative-text></formatted-label>)x",
        R"x(<formatted-label id="29" fmt="GPU Execution  0x5f0b2a42"><narrative-text id="30" fmt="GPU Execution  0x5f0b2a42">GPU Execution  0x5f0b2a42</narrative-text></formatted-label>)x"}},
      {"state", "gpu-state",
       {R"x(<gpu-state id="15" fmt="Active">Active</gpu-state>)x", R"x(<gpu-state ref="15"/>)x"}},
      {"connection-UUID", "connection-uuid64",
       {R"x(<connection-uuid64 id="16" fmt="78">78</connection-uuid64>)x",
        R"x(<connection-uuid64 ref="16"/>)x"}},
      {"color", "render-buffer-depth",
       {R"x(<render-buffer-depth id="17" fmt="0">0</render-buffer-depth>)x",
        R"x(<render-buffer-depth ref="17"/>)x"}},
      {"process", "process", {R"x(<process ref="11"/>)x", "<sentinel/>"}},
      {"gpu", "metal-device-name",
       {R"x(<metal-device-name id="18" fmt="Apple M3 Ultra">Apple M3 Ultra</metal-device-name>)x",
        R"x(<metal-device-name ref="18"/>)x"}},
      {"channel-subtitle", "metal-object-label",
       {R"x(<metal-object-label id="19" fmt="n/a">n/a</metal-object-label>)x",
        R"x(<metal-object-label ref="19"/>)x"}},
      {"iosurface-accesses", "formatted-label",
       {R"x(<formatted-label id="20" fmt="n/a">n/a</formatted-label>)x",
        R"x(<formatted-label ref="20"/>)x"}},
      {"bytes", "size-in-bytes",
       {R"x(<size-in-bytes id="21" fmt="0 B">0</size-in-bytes>)x",
        R"x(<size-in-bytes ref="21"/>)x"}},
      {"cmdbuffer-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="22" fmt="0xa79439f">175719327</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="22"/>)x"}},
      {"encoder-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="23" fmt="0xa7943b4">175719348</metal-command-buffer-id>)x",
        "<sentinel/>"}},
      {"gpu-submission-id", "uint64",
       {R"x(<uint64 id="24" fmt="1,594,567,233">1594567233</uint64>)x",
        R"x(<uint64 id="31" fmt="1,594,567,234">1594567234</uint64>)x"}},
  };
}

TEST(GpuIntervalsTest, DecodesRowsWithNestedProcessAndUnattributedRow) {
  Loaded in = Load(Export("metal-gpu-intervals", GpuIntervalColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<GpuInterval>> rows = ReadGpuIntervals(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE(diagnostics.empty());

  const GpuInterval& a = (*rows)[0];
  EXPECT_EQ(a.start_ns, 907208000);
  EXPECT_EQ(a.duration_ns, 13833);
  EXPECT_EQ(a.channel_name, "Compute");
  EXPECT_EQ(a.event_label, "Command Buffer 0:Compute Command 0  ( python (99926) )  0x5f0b2a41");
  EXPECT_FALSE(a.process.is_null);
  EXPECT_EQ(a.process.name, "python");
  EXPECT_EQ(a.process.pid, 99926);
  EXPECT_EQ(a.cmdbuffer, CommandBufferId{175719327});
  EXPECT_EQ(a.encoder, EncoderId{175719348});
  EXPECT_EQ(a.submission, SubmissionId{1594567233});
  EXPECT_EQ(a.start_latency_ns, std::optional<int64_t>(1117250));
  EXPECT_EQ(a.depth, std::optional<int64_t>(0));
  EXPECT_EQ(a.frame_number, std::nullopt);
  EXPECT_EQ(a.row, 0u);

  const GpuInterval& b = (*rows)[1];
  EXPECT_EQ(b.start_ns, 907300000);
  EXPECT_EQ(b.duration_ns, 13833);  // from <duration ref="2"/>
  EXPECT_EQ(b.channel_name, "Blit");
  EXPECT_EQ(b.event_label, "GPU Execution  0x5f0b2a42");
  EXPECT_TRUE(b.process.is_null);
  EXPECT_EQ(b.process.name, "");
  EXPECT_EQ(b.process.pid, -1);
  EXPECT_EQ(b.cmdbuffer, CommandBufferId{175719327});
  EXPECT_EQ(b.encoder, std::nullopt);
  EXPECT_EQ(b.submission, SubmissionId{1594567234});
  EXPECT_EQ(b.start_latency_ns, std::optional<int64_t>(1117250));
  EXPECT_EQ(b.depth, std::optional<int64_t>(1));
  EXPECT_EQ(b.frame_number, std::optional<uint64_t>(3));
  EXPECT_EQ(b.row, 1u);
}

TEST(GpuIntervalsTest, MissingProcessColumnIsAnError) {
  std::vector<TestColumn> columns = GpuIntervalColumns();
  EraseColumn(&columns, "process");
  Loaded in = Load(Export("metal-gpu-intervals", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<GpuInterval>> rows = ReadGpuIntervals(*in.table, &diagnostics);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), "xctrace.missing_column");
  EXPECT_THAT(rows.status().message(),
              ::testing::StartsWith("metal-gpu-intervals lacks required column 'process' (has: "
                                    "start, duration, channel-name, frame-number,"));
}

TEST(GpuIntervalsTest, OnlyStartDurationAndProcessAreNeeded) {
  std::vector<TestColumn> all = GpuIntervalColumns();
  std::vector<TestColumn> columns;
  for (const TestColumn& c : all) {
    // Keep the label (it defines the process) and the three needed columns, reordered.
    if (c.mnemonic == "event-label") columns.insert(columns.begin(), c);
    if (c.mnemonic == "process" || c.mnemonic == "duration" || c.mnemonic == "start") {
      columns.push_back(c);
    }
  }
  ASSERT_EQ(columns.size(), 4u);
  Loaded in = Load(Export("metal-gpu-intervals", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<GpuInterval>> rows = ReadGpuIntervals(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].process.pid, 99926);
  EXPECT_EQ((*rows)[1].duration_ns, 13833);
  EXPECT_EQ((*rows)[0].channel_name, "");
  EXPECT_EQ((*rows)[0].cmdbuffer, std::nullopt);
  EXPECT_EQ((*rows)[0].submission, std::nullopt);
  EXPECT_EQ((*rows)[1].frame_number, std::nullopt);
}

// --- metal-driver-intervals: process defined inside a label, then referenced ---------

// Rows 1 and 3 of the JSama99/Solo driver export (ids renumbered to stay contiguous).
std::vector<TestColumn> DriverColumns() {
  return {
      {"start", "start-time",
       {R"x(<start-time id="1" fmt="00:00.329.138">329138291</start-time>)x",
        R"x(<start-time id="22" fmt="00:00.332.279">332279041</start-time>)x"}},
      {"duration", "duration",
       {R"x(<duration id="2" fmt="197.58 µs">197584</duration>)x",
        R"x(<duration id="23" fmt="1.71 µs">1709</duration>)x"}},
      {"gpu-driver-name", "gpu-driver-name",
       {R"x(<gpu-driver-name id="3" fmt="Driver Processing">Driver Processing</gpu-driver-name>)x",
        R"x(<gpu-driver-name ref="3"/>)x"}},
      {"event-type", "metal-object-label",
       {R"x(<metal-object-label id="4" fmt="Command Buffer">Command Buffer</metal-object-label>)x",
        R"x(<metal-object-label ref="4"/>)x"}},
      {"event-depth", "metal-nesting-level",
       {R"x(<metal-nesting-level id="5" fmt="0">0</metal-nesting-level>)x",
        R"x(<metal-nesting-level ref="5"/>)x"}},
      {"event-label", "formatted-label",
       {R"x(<formatted-label id="6" fmt="Compositor  ( com.apple.coreanimation.display.primary (0x9ef) (backboardd, pid: 75) )">)x"
        R"x(<metal-object-label id="7" fmt="Compositor">Compositor</metal-object-label>)x"
        R"x(<narrative-text id="8" fmt=" ("> (</narrative-text>)x"
        R"x(<thread id="9" fmt="com.apple.coreanimation.display.primary (0x9ef) (backboardd, pid: 75)">)x"
        R"x(<tid id="10" fmt="0x9ef">2543</tid><process id="11" fmt="backboardd (75)"><pid id="12" fmt="75">75</pid>)x"
        R"x(<device-session id="13" fmt="TODO">TODO</device-session></process></thread>)x"
        R"x(<narrative-text id="14" fmt=")">)</narrative-text></formatted-label>)x",
        R"x(<formatted-label id="24" fmt="Command Buffer 0  ( Render (0xc55b6) (SOLO: Unicorn Run, pid: 3539) )">)x"
        R"x(<metal-object-label id="25" fmt="Command Buffer 0">Command Buffer 0</metal-object-label>)x"
        R"x(<narrative-text ref="8"/><thread id="26" fmt="Render (0xc55b6) (SOLO: Unicorn Run, pid: 3539)">)x"
        R"x(<tid id="27" fmt="0xc55b6">808374</tid><process id="28" fmt="SOLO: Unicorn Run (3539)">)x"
        R"x(<pid id="29" fmt="3539">3539</pid><device-session ref="13"/></process></thread>)x"
        R"x(<narrative-text ref="14"/></formatted-label>)x"}},
      {"event-priority", "metal-workload-priority",
       {R"x(<metal-workload-priority id="15" fmt="0x0">0</metal-workload-priority>)x",
        R"x(<metal-workload-priority ref="15"/>)x"}},
      {"connection-UUID", "connection-uuid64",
       {R"x(<connection-uuid64 id="16" fmt="78">78</connection-uuid64>)x",
        R"x(<connection-uuid64 id="30" fmt="114">114</connection-uuid64>)x"}},
      {"color", "render-buffer-depth",
       {R"x(<render-buffer-depth id="17" fmt="3">3</render-buffer-depth>)x",
        R"x(<render-buffer-depth id="31" fmt="0">0</render-buffer-depth>)x"}},
      {"process", "process", {R"x(<process ref="11"/>)x", R"x(<process ref="28"/>)x"}},
      {"thread", "thread", {R"x(<thread ref="9"/>)x", R"x(<thread ref="26"/>)x"}},
      {"gpu", "metal-device-name",
       {R"x(<metal-device-name id="18" fmt="A18 Pro">A18 Pro</metal-device-name>)x",
        R"x(<metal-device-name ref="18"/>)x"}},
      {"object-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="19" fmt="0xffffffffffffffff">18446744073709551615</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="19"/>)x"}},
      {"lane", "formatted-label",
       {R"x(<formatted-label id="20" fmt=" "><narrative-text id="21" fmt=" "> </narrative-text></formatted-label>)x",
        R"x(<formatted-label ref="20"/>)x"}},
  };
}

TEST(DriverIntervalsTest, ProcessRefResolvesToProcessNestedInLabelThread) {
  Loaded in = Load(Export("metal-driver-intervals", DriverColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<DriverInterval>> rows = ReadDriverIntervals(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE(diagnostics.empty());

  const DriverInterval& a = (*rows)[0];
  EXPECT_EQ(a.start_ns, 329138291);
  EXPECT_EQ(a.duration_ns, 197584);
  EXPECT_EQ(a.event_type, "Command Buffer");
  EXPECT_EQ(a.depth, std::optional<int64_t>(0));
  EXPECT_EQ(
      a.event_label,
      "Compositor  ( com.apple.coreanimation.display.primary (0x9ef) (backboardd, pid: 75) )");
  EXPECT_FALSE(a.process.is_null);
  EXPECT_EQ(a.process.name, "backboardd");
  EXPECT_EQ(a.process.pid, 75);
  EXPECT_EQ(a.thread_tid, std::optional<int64_t>(2543));
  EXPECT_EQ(a.object_id, std::nullopt);  // UINT64_MAX is "none"

  const DriverInterval& b = (*rows)[1];
  EXPECT_EQ(b.start_ns, 332279041);
  EXPECT_EQ(b.duration_ns, 1709);
  EXPECT_EQ(b.event_type, "Command Buffer");
  EXPECT_EQ(b.process.name, "SOLO: Unicorn Run");
  EXPECT_EQ(b.process.pid, 3539);
  EXPECT_EQ(b.thread_tid, std::optional<int64_t>(808374));
}

TEST(DriverIntervalsTest, RealExcerptResolvesNestedProcesses) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path,
                               "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  StatusOr<Document> doc = ReadExportFile(path);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  Diagnostics diagnostics;
  StatusOr<std::vector<DriverInterval>> rows = ReadMetalTable<DriverInterval>(*doc, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 22u);
  EXPECT_TRUE(diagnostics.empty());
  EXPECT_EQ((*rows)[0].start_ns, 329138291);
  EXPECT_EQ((*rows)[0].process.name, "backboardd");
  EXPECT_EQ((*rows)[0].process.pid, 75);
  EXPECT_EQ((*rows)[0].thread_tid, std::optional<int64_t>(2543));
  EXPECT_EQ((*rows)[1].event_type, "Command Encoder");
  EXPECT_EQ((*rows)[1].depth, std::optional<int64_t>(1));
  EXPECT_EQ((*rows)[1].process.pid, 75);  // <process ref="11"/> in a later row
  EXPECT_EQ((*rows)[2].process.name, "SOLO: Unicorn Run");
  EXPECT_EQ((*rows)[2].process.pid, 3539);
  for (const DriverInterval& row : *rows) {
    EXPECT_FALSE(row.process.is_null) << "row " << row.row;
    EXPECT_GT(row.process.pid, 0) << "row " << row.row;
    EXPECT_EQ(row.object_id, std::nullopt) << "row " << row.row;
  }
}

// --- metal-application-encoders-list ---------------------------------------------

std::vector<TestColumn> EncoderColumns() {
  return {
      {"start", "start-time",
       {R"x(<start-time id="1" fmt="00:00.900.001">900001000</start-time>)x",
        R"x(<start-time id="16" fmt="00:00.900.050">900050000</start-time>)x"}},
      {"duration", "duration",
       {R"x(<duration id="2" fmt="4.50 µs">4500</duration>)x", R"x(<duration ref="2"/>)x"}},
      {"thread", "thread",
       {R"x(<thread id="3" fmt="Main Thread (0x1b2c) (python, pid: 99926)"><tid id="4" fmt="0x1b2c">6956</tid>)x"
        R"x(<process id="5" fmt="python (99926)"><pid id="6" fmt="99926">99926</pid>)x"
        R"x(<device-session id="7" fmt="TODO">TODO</device-session></process></thread>)x",
        R"x(<thread ref="3"/>)x"}},
      {"process", "process", {R"x(<process ref="5"/>)x", R"x(<process ref="5"/>)x"}},
      {"gpu", "metal-device-name",
       {R"x(<metal-device-name id="8" fmt="Apple M3 Ultra">Apple M3 Ultra</metal-device-name>)x",
        R"x(<metal-device-name ref="8"/>)x"}},
      {"frame-number", "gpu-frame-number", {"<sentinel/>", "<sentinel/>"}},
      {"cmdbuffer-label", "metal-object-label",
       {R"x(<metal-object-label id="9" fmt="layer.12.attn">layer.12.attn</metal-object-label>)x",
        R"x(<metal-object-label id="17" fmt="Command Buffer 0">Command Buffer 0</metal-object-label>)x"}},
      {"cmdbuffer-label-indexed", "metal-object-label",
       {R"x(<metal-object-label id="10" fmt="[0] layer.12.attn">[0] layer.12.attn</metal-object-label>)x",
        R"x(<metal-object-label id="18" fmt="[1] Command Buffer 0">[1] Command Buffer 0</metal-object-label>)x"}},
      {"encoder-label", "metal-object-label",
       {R"x(<metal-object-label id="11" fmt="Compute Command 0">Compute Command 0</metal-object-label>)x",
        R"x(<metal-object-label ref="11"/>)x"}},
      {"encoder-label-indexed", "metal-object-label",
       {R"x(<metal-object-label id="12" fmt="[0] Compute Command 0">[0] Compute Command 0</metal-object-label>)x",
        R"x(<metal-object-label ref="12"/>)x"}},
      {"event-type", "metal-event-name",
       {R"x(<metal-event-name id="13" fmt="Encoding">Encoding</metal-event-name>)x",
        R"x(<metal-event-name ref="13"/>)x"}},
      {"cmdbuffer-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="14" fmt="0x10">16</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id id="19" fmt="0x11">17</metal-command-buffer-id>)x"}},
      {"encoder-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="15" fmt="0x20">32</metal-command-buffer-id>)x",
        "<sentinel/>"}},
  };
}

TEST(EncoderRowsTest, DecodesLabelsIdsAndThread) {
  Loaded in = Load(Export("metal-application-encoders-list", EncoderColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<EncoderRow>> rows = ReadEncoderRows(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  const EncoderRow& a = (*rows)[0];
  EXPECT_EQ(a.start_ns, 900001000);
  EXPECT_EQ(a.duration_ns, 4500);
  EXPECT_EQ(a.process.name, "python");
  EXPECT_EQ(a.process.pid, 99926);
  EXPECT_EQ(a.thread_tid, std::optional<int64_t>(6956));
  EXPECT_EQ(a.cmdbuffer_label, "layer.12.attn");
  EXPECT_EQ(a.cmdbuffer_label_indexed, "[0] layer.12.attn");
  EXPECT_EQ(a.encoder_label, "Compute Command 0");
  EXPECT_EQ(a.encoder_label_indexed, "[0] Compute Command 0");
  EXPECT_EQ(a.event_type, "Encoding");
  EXPECT_EQ(a.cmdbuffer, CommandBufferId{16});
  EXPECT_EQ(a.encoder, EncoderId{32});

  const EncoderRow& b = (*rows)[1];
  EXPECT_EQ(b.start_ns, 900050000);
  EXPECT_EQ(b.duration_ns, 4500);
  EXPECT_EQ(b.process.pid, 99926);
  EXPECT_EQ(b.thread_tid, std::optional<int64_t>(6956));
  EXPECT_EQ(b.cmdbuffer_label, "Command Buffer 0");
  EXPECT_EQ(b.encoder_label, "Compute Command 0");
  EXPECT_EQ(b.cmdbuffer, CommandBufferId{17});
  EXPECT_EQ(b.encoder, std::nullopt);  // a key column: null means unattributed, row kept
  EXPECT_TRUE(diagnostics.empty());
  // A label the export interns once (b's encoder label is a ref to a's) is decoded
  // once: the rows share its text. Equal texts of distinct values are not merged.
  EXPECT_EQ(b.encoder_label.str().data(), a.encoder_label.str().data());
  EXPECT_EQ(b.process.name.str().data(), a.process.name.str().data());
  EXPECT_NE(b.cmdbuffer_label.str().data(), a.cmdbuffer_label.str().data());
}

TEST(EncoderRowsTest, WithoutThreadColumnTidIsNone) {
  std::vector<TestColumn> columns = EncoderColumns();
  // The thread cell defines the process; move that definition into the process column.
  columns[3].cells[0] =
      R"x(<process id="5" fmt="python (99926)"><pid id="6" fmt="99926">99926</pid><device-session id="7" fmt="TODO">TODO</device-session></process>)x";
  EraseColumn(&columns, "thread");
  Loaded in = Load(Export("metal-application-encoders-list", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<EncoderRow>> rows = ReadEncoderRows(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].thread_tid, std::nullopt);
  EXPECT_EQ((*rows)[1].process.name, "python");
  EXPECT_EQ((*rows)[1].process.pid, 99926);
}

TEST(EncoderRowsTest, MissingEncoderIdColumnIsAnError) {
  std::vector<TestColumn> columns = EncoderColumns();
  EraseColumn(&columns, "encoder-id");
  Loaded in = Load(Export("metal-application-encoders-list", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<EncoderRow>> rows = ReadEncoderRows(*in.table, &diagnostics);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(),
            "metal-application-encoders-list lacks required column 'encoder-id' (has: start, "
            "duration, thread, process, gpu, frame-number, cmdbuffer-label, "
            "cmdbuffer-label-indexed, encoder-label, encoder-label-indexed, event-type, "
            "cmdbuffer-id)");
}

// --- metal-gpu-submission-to-command-buffer-id -------------------------------------

std::vector<TestColumn> SubmissionMapColumns() {
  const std::string none = "18446744073709551615";
  return {
      {"timestamp", "start-time",
       {R"x(<start-time id="1" fmt="00:00.907.100">907100000</start-time>)x",
        R"x(<start-time id="17" fmt="00:00.907.400">907400000</start-time>)x"}},
      {"cmdbuffer-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="2" fmt="0xa79439f">175719327</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="2"/>)x"}},
      {"gpu-submission-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="3" fmt="0x5f0b2a41">1594567233</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id id="18" fmt="0x5f0b2a42">1594567234</metal-command-buffer-id>)x"}},
      {"segment-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="4" fmt="0x1">1</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="4"/>)x"}},
      {"segmentlist-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="5" fmt="0xffffffffffffffff">)x" + none +
            "</metal-command-buffer-id>",
        R"x(<metal-command-buffer-id ref="5"/>)x"}},
      {"encoder-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="6" fmt="0xa7943b4">175719348</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="6"/>)x"}},
      {"accelerator-id", "uint64",
       {R"x(<uint64 id="7" fmt="18,446,744,073,709,551,615">)x" + none + "</uint64>",
        R"x(<uint64 ref="7"/>)x"}},
      {"channel-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="8" fmt="0x123457">1193047</metal-command-buffer-id>)x",
        R"x(<metal-command-buffer-id ref="8"/>)x"}},
      {"submission-type", "uint32",
       {R"x(<uint32 id="9" fmt="0">0</uint32>)x", R"x(<uint32 ref="9"/>)x"}},
      {"metadata-1", "uint64",
       {R"x(<uint64 id="10" fmt="0">0</uint64>)x", R"x(<uint64 ref="10"/>)x"}},
      {"metadata-2", "uint64", {R"x(<uint64 ref="10"/>)x", R"x(<uint64 ref="10"/>)x"}},
      {"pid", "uint32",
       {R"x(<uint32 id="11" fmt="99926">99926</uint32>)x", R"x(<uint32 ref="11"/>)x"}},
      {"process", "process",
       {R"x(<process id="12" fmt="python (99926)"><pid id="13" fmt="99926">99926</pid><device-session id="14" fmt="TODO">TODO</device-session></process>)x",
        "<sentinel/>"}},
      {"model", "uint32", {R"x(<uint32 ref="9"/>)x", R"x(<uint32 ref="9"/>)x"}},
      {"commit-id", "uint64",
       {R"x(<uint64 id="15" fmt="412">412</uint64>)x", R"x(<uint64 ref="15"/>)x"}},
      {"num-coalasced-encoders", "uint32",
       {R"x(<uint32 id="16" fmt="1">1</uint32>)x", R"x(<uint32 id="19" fmt="3">3</uint32>)x"}},
  };
}

TEST(SubmissionMapTest, DecodesIdsProcessAndCoalescedCount) {
  Loaded in = Load(Export("metal-gpu-submission-to-command-buffer-id", SubmissionMapColumns()));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<SubmissionMapRow>> rows = ReadSubmissionMap(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE(diagnostics.empty());

  const SubmissionMapRow& a = (*rows)[0];
  EXPECT_EQ(a.timestamp_ns, 907100000);
  EXPECT_EQ(a.submission, SubmissionId{1594567233});
  EXPECT_EQ(a.cmdbuffer, CommandBufferId{175719327});
  EXPECT_EQ(a.encoder, EncoderId{175719348});
  EXPECT_EQ(a.pid, std::optional<int64_t>(99926));
  EXPECT_EQ(a.process.name, "python");
  EXPECT_EQ(a.process.pid, 99926);
  EXPECT_EQ(a.num_coalesced_encoders, std::optional<uint32_t>(1));
  EXPECT_EQ(a.segment_id, std::optional<uint64_t>(1));
  EXPECT_EQ(a.segment_list_id, std::nullopt);  // UINT64_MAX
  EXPECT_EQ(a.accelerator_id, std::nullopt);   // UINT64_MAX

  // Two submissions for one command buffer and encoder; the second is unattributed.
  const SubmissionMapRow& b = (*rows)[1];
  EXPECT_EQ(b.timestamp_ns, 907400000);
  EXPECT_EQ(b.submission, SubmissionId{1594567234});
  EXPECT_EQ(b.cmdbuffer, a.cmdbuffer);
  EXPECT_EQ(b.encoder, a.encoder);
  EXPECT_EQ(b.pid, std::optional<int64_t>(99926));
  EXPECT_TRUE(b.process.is_null);
  EXPECT_EQ(b.num_coalesced_encoders, std::optional<uint32_t>(3));
}

TEST(SubmissionMapTest, CorrectlySpelledCoalescedColumnIsNotTheTypo) {
  std::vector<TestColumn> columns = SubmissionMapColumns();
  columns.back().mnemonic = "num-coalesced-encoders";
  Loaded in = Load(Export("metal-gpu-submission-to-command-buffer-id", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<SubmissionMapRow>> rows = ReadSubmissionMap(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)[1].num_coalesced_encoders, std::nullopt);
}

// --- metal-shader-profiler-shader-list --------------------------------------------

TEST(ShaderListTest, DecodesNamesIdAndProcess) {
  const std::vector<TestColumn> columns = {
      {"timestamp", "start-time",
       {R"x(<start-time id="1" fmt="00:00.100.000">100000000</start-time>)x",
        R"x(<start-time id="13" fmt="00:00.100.500">100500000</start-time>)x"}},
      {"name", "metal-object-label",
       {R"x(<metal-object-label id="2" fmt="kernel_mul_mv_q4_0_f32 (35)">kernel_mul_mv_q4_0_f32 (35)</metal-object-label>)x",
        R"x(<metal-object-label id="14" fmt="kernel_rms_norm (36)">kernel_rms_norm (36)</metal-object-label>)x"}},
      {"label", "metal-object-label",
       {R"x(<metal-object-label id="3" fmt=""></metal-object-label>)x",
        R"x(<metal-object-label ref="3"/>)x"}},
      {"pso-name", "metal-object-label",
       {R"x(<metal-object-label id="4" fmt="kernel_mul_mv_q4_0_f32">kernel_mul_mv_q4_0_f32</metal-object-label>)x",
        "<sentinel/>"}},
      {"id", "uint64",
       {R"x(<uint64 id="5" fmt="35">35</uint64>)x", R"x(<uint64 id="15" fmt="36">36</uint64>)x"}},
      {"pc-start", "uint64",
       {R"x(<uint64 id="6" fmt="4,096">4096</uint64>)x",
        R"x(<uint64 id="16" fmt="8,192">8192</uint64>)x"}},
      {"pc-end", "uint64",
       {R"x(<uint64 id="7" fmt="5,000">5000</uint64>)x",
        R"x(<uint64 id="17" fmt="9,000">9000</uint64>)x"}},
      {"shader-type", "string",
       {R"x(<string id="8" fmt="Compute">Compute</string>)x", R"x(<string ref="8"/>)x"}},
      {"process", "process",
       {R"x(<process id="9" fmt="hf2q (4242)"><pid id="10" fmt="4242">4242</pid><device-session id="11" fmt="TODO">TODO</device-session></process>)x",
        R"x(<process ref="9"/>)x"}},
      {"gpu", "metal-device-name",
       {R"x(<metal-device-name id="12" fmt="Apple M3 Ultra">Apple M3 Ultra</metal-device-name>)x",
        R"x(<metal-device-name ref="12"/>)x"}},
  };
  Loaded in = Load(Export("metal-shader-profiler-shader-list", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ShaderRow>> rows = ReadShaderList(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].timestamp_ns, std::optional<int64_t>(100000000));
  EXPECT_EQ((*rows)[0].name, "kernel_mul_mv_q4_0_f32 (35)");
  EXPECT_EQ((*rows)[0].label, "");
  EXPECT_EQ((*rows)[0].pso_name, "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ((*rows)[0].id, std::optional<uint64_t>(35));
  EXPECT_EQ((*rows)[0].shader_type, "Compute");
  EXPECT_EQ((*rows)[0].process.name, "hf2q");
  EXPECT_EQ((*rows)[0].process.pid, 4242);
  EXPECT_EQ((*rows)[1].name, "kernel_rms_norm (36)");
  EXPECT_EQ((*rows)[1].pso_name, "");
  EXPECT_EQ((*rows)[1].id, std::optional<uint64_t>(36));
  EXPECT_EQ((*rows)[1].shader_type, "Compute");
  EXPECT_EQ((*rows)[1].process.pid, 4242);
  EXPECT_TRUE(diagnostics.empty());
}

// --- metal-application-command-buffer-submissions ----------------------------------

TEST(CommandBufferSubmissionsTest, DecodesCountsLabelsAndIds) {
  const std::vector<TestColumn> columns = {
      {"start", "start-time",
       {R"x(<start-time id="1" fmt="00:00.906.900">906900000</start-time>)x"}},
      {"duration", "duration", {R"x(<duration id="2" fmt="400.00 µs">400000</duration>)x"}},
      {"event-type", "metal-event-name",
       {R"x(<metal-event-name id="3" fmt="CommandBufferSubmission">CommandBufferSubmission</metal-event-name>)x"}},
      {"gpu", "metal-device-name",
       {R"x(<metal-device-name id="4" fmt="Apple M3 Ultra">Apple M3 Ultra</metal-device-name>)x"}},
      {"track-label", "metal-object-label",
       {R"x(<metal-object-label id="5" fmt="Command Buffer 0">Command Buffer 0</metal-object-label>)x"}},
      {"num-encoders", "uint32", {R"x(<uint32 id="6" fmt="1">1</uint32>)x"}},
      {"encoder-time", "duration", {R"x(<duration id="7" fmt="4.50 µs">4500</duration>)x"}},
      {"process", "process",
       {R"x(<process id="8" fmt="python (99926)"><pid id="9" fmt="99926">99926</pid><device-session id="10" fmt="TODO">TODO</device-session></process>)x"}},
      {"thread", "thread",
       {R"x(<thread id="11" fmt="Main Thread (0x1b2c) (python, pid: 99926)"><tid id="12" fmt="0x1b2c">6956</tid><process ref="8"/></thread>)x"}},
      {"event-icon", "metal-event",
       {R"x(<metal-event id="13" fmt="commit">commit</metal-event>)x"}},
      {"event-label", "narrative",
       {R"x(<narrative id="14" fmt="Committed &quot;Command Buffer 0&quot; with 1 encoders"><narrative-text id="15" fmt="Committed &quot;Command Buffer 0&quot; with 1 encoders">Committed "Command Buffer 0" with 1 encoders</narrative-text></narrative>)x"}},
      {"encoder-time-label", "narrative",
       {R"x(<narrative id="16" fmt="4.50 µs"><narrative-text id="17" fmt="4.50 µs">4.50 µs</narrative-text></narrative>)x"}},
      {"frame-number", "uint32", {"<sentinel/>"}},
      {"color", "render-buffer-depth",
       {R"x(<render-buffer-depth id="18" fmt="0">0</render-buffer-depth>)x"}},
      {"cmdbuffer-id", "metal-command-buffer-id",
       {R"x(<metal-command-buffer-id id="19" fmt="0xa79439f">175719327</metal-command-buffer-id>)x"}},
  };
  Loaded in = Load(Export("metal-application-command-buffer-submissions", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<CommandBufferSubmission>> rows =
      ReadCommandBufferSubmissions(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  const CommandBufferSubmission& c = rows->front();
  EXPECT_EQ(c.start_ns, 906900000);
  EXPECT_EQ(c.duration_ns, 400000);
  EXPECT_EQ(c.track_label, "Command Buffer 0");
  EXPECT_EQ(c.num_encoders, std::optional<uint32_t>(1));
  EXPECT_EQ(c.encoder_time_ns, std::optional<int64_t>(4500));
  EXPECT_EQ(c.event_label, "Committed \"Command Buffer 0\" with 1 encoders");
  EXPECT_EQ(c.process.name, "python");
  EXPECT_EQ(c.process.pid, 99926);
  EXPECT_EQ(c.cmdbuffer, CommandBufferId{175719327});
  EXPECT_TRUE(diagnostics.empty());
}

// --- metal-shader-profiler-intervals ---------------------------------------------

std::vector<TestColumn> ShaderProfilerColumns(std::vector<std::string> start,
                                              std::vector<std::string> duration,
                                              std::vector<std::string> pc,
                                              std::vector<std::string> submission,
                                              std::vector<std::string> datamaster) {
  return {{"start", "start-time", std::move(start)},
          {"duration", "duration", std::move(duration)},
          {"pc", "uint64", std::move(pc)},
          {"submission-id", "uint32", std::move(submission)},
          {"datamaster", "uint32", std::move(datamaster)}};
}

TEST(ShaderProfilerIntervalsTest, EmptyTableGivesNoRows) {
  Loaded in =
      Load(Export("metal-shader-profiler-intervals", ShaderProfilerColumns({}, {}, {}, {}, {})));
  ASSERT_TRUE(in.table);
  ASSERT_EQ(in.table->row_count(), 0u);
  Diagnostics diagnostics;
  StatusOr<std::vector<ShaderProfilerInterval>> rows =
      ReadShaderProfilerIntervals(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

TEST(ShaderProfilerIntervalsTest, DecodesSubmissionAndPc) {
  Loaded in = Load(Export(
      "metal-shader-profiler-intervals",
      ShaderProfilerColumns({R"x(<start-time id="1" fmt="00:00.907.210">907210000</start-time>)x"},
                            {R"x(<duration id="2" fmt="2.00 µs">2000</duration>)x"},
                            {R"x(<uint64 id="3" fmt="4,100">4100</uint64>)x"},
                            {R"x(<uint32 id="4" fmt="1594567233">1594567233</uint32>)x"},
                            {R"x(<uint32 id="5" fmt="2">2</uint32>)x"})));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ShaderProfilerInterval>> rows =
      ReadShaderProfilerIntervals(*in.table, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().start_ns, 907210000);
  EXPECT_EQ(rows->front().duration_ns, 2000);
  EXPECT_EQ(rows->front().pc, std::optional<uint64_t>(4100));
  EXPECT_EQ(rows->front().submission, SubmissionId{1594567233});
}

// --- ReadProcess, ids ---------------------------------------------------------------

TEST(ReadProcessTest, StripsOnlyATrailingPidSuffix) {
  const std::vector<TestColumn> columns = {
      {"process", "process",
       {R"x(<process id="1" fmt="Foo (beta) (12)"><pid id="2" fmt="12">12</pid></process>)x",
        R"x(<process id="3" fmt="no pid here"><pid id="4" fmt="13">13</pid></process>)x",
        R"x(<process id="5" fmt="odd (12a)"/>)x", "<sentinel/>"}},
  };
  Loaded in = Load(Export("some-table", columns));
  ASSERT_TRUE(in.table);
  const ProcessRef a = ReadProcess(in.table->cell(0, 0));
  EXPECT_FALSE(a.is_null);
  EXPECT_EQ(a.name, "Foo (beta)");
  EXPECT_EQ(a.pid, 12);
  const ProcessRef b = ReadProcess(in.table->cell(1, 0));
  EXPECT_EQ(b.name, "no pid here");
  EXPECT_EQ(b.pid, 13);
  const ProcessRef c = ReadProcess(in.table->cell(2, 0));
  EXPECT_FALSE(c.is_null);
  EXPECT_EQ(c.name, "odd (12a)");
  EXPECT_EQ(c.pid, -1);
  const ProcessRef d = ReadProcess(in.table->cell(3, 0));
  EXPECT_TRUE(d.is_null);
  EXPECT_EQ(d.pid, -1);
}

TEST(StrongIdTest, CompareHashAndPrint) {
  EXPECT_EQ(SubmissionId{5}, SubmissionId{5});
  EXPECT_NE(SubmissionId{5}, SubmissionId{6});
  EXPECT_LT(EncoderId{1}, EncoderId{2});
  EXPECT_FALSE(CommandBufferId{2} < CommandBufferId{2});
  std::unordered_set<SubmissionId> ids = {SubmissionId{1}, SubmissionId{1}, SubmissionId{2}};
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(::testing::PrintToString(SubmissionId{1594567233}), "submission 1594567233");
  EXPECT_EQ(::testing::PrintToString(EncoderId{7}), "encoder 7");
  EXPECT_EQ(::testing::PrintToString(CommandBufferId{8}), "cmdbuffer 8");
}

// --- ReadMetalTable ---------------------------------------------------------------

TEST(ReadMetalTableTest, FindsTheTableBySchema) {
  StatusOr<Document> doc =
      ReadExportBuffer(Export("metal-gpu-execution-points", ExecutionPointColumns()), "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadMetalTable<ExecutionPoint>(*doc, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(Tuples(*points), kExpectedPoints);
}

TEST(ReadMetalTableTest, MissingTableIsAnErrorNamingTheSchema) {
  StatusOr<Document> doc =
      ReadExportBuffer(Export("metal-gpu-execution-points", ExecutionPointColumns()), "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  Diagnostics diagnostics;
  StatusOr<std::vector<SubmissionMapRow>> rows =
      ReadMetalTable<SubmissionMapRow>(*doc, &diagnostics);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().ToString(),
            "t.xml: error[xctrace.missing_table]: the export has no "
            "metal-gpu-submission-to-command-buffer-id table (has: metal-gpu-execution-points)");
}

// --- real exports (shared/corpus) ---------------------------------------------------

TEST(CorpusTest, JSamaExecutionPointsExcerpt) {
  PERFGATE_CORPUS_FILE_OR_SKIP(
      path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml");
  StatusOr<Document> doc = ReadExportFile(path);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadMetalTable<ExecutionPoint>(*doc, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 58u);
  EXPECT_TRUE(diagnostics.empty());
  const ExecutionPoint& first = points->front();
  EXPECT_EQ(first.timestamp_ns, 329899666);
  EXPECT_EQ(first.function, 1u);
  EXPECT_EQ(first.submission, SubmissionId{1594567233});
  EXPECT_EQ(first.channel_id, 1193047u);
  EXPECT_EQ(first.slot_id, std::optional<uint64_t>(1594567233));
  EXPECT_EQ(first.accelerator_id, std::nullopt);
  const ExecutionPoint& last = points->back();
  EXPECT_EQ(last.timestamp_ns, 400106208);
  EXPECT_EQ(last.function, 2u);
  EXPECT_EQ(last.channel_id, 1193048u);
  EXPECT_EQ(last.row, 57u);
  int starts = 0;
  int ends = 0;
  for (const ExecutionPoint& p : *points) {
    EXPECT_EQ(p.slot_id, std::optional<uint64_t>(p.submission.value)) << "row " << p.row;
    EXPECT_TRUE(p.channel_id == 1193047u || p.channel_id == 1193048u) << "row " << p.row;
    (p.function == 1 ? starts : ends) += 1;
  }
  EXPECT_EQ(starts + ends, 58);
  EXPECT_GT(starts, 0);
  EXPECT_GT(ends, 0);
}

TEST(CorpusTest, ProbeCliGpuIntervals) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path,
                               "xctrace/probe-cli/metal-system-trace.metal-gpu-intervals.xml");
  StatusOr<Document> doc = ReadExportFile(path);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  Diagnostics diagnostics;
  StatusOr<std::vector<GpuInterval>> rows = ReadMetalTable<GpuInterval>(*doc, &diagnostics);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_TRUE(diagnostics.empty());

  const GpuInterval& a = (*rows)[0];
  EXPECT_EQ(a.start_ns, 358223833);
  EXPECT_EQ(a.duration_ns, 6083);
  EXPECT_EQ(a.channel_name, "Blit");
  EXPECT_EQ(a.frame_number, std::nullopt);
  EXPECT_EQ(a.start_latency_ns, std::optional<int64_t>(1117250));
  EXPECT_EQ(a.depth, std::optional<int64_t>(0));
  EXPECT_EQ(a.event_label, "GPU Execution      ( WindowServer (181) )  0x47e7a1bb");
  EXPECT_FALSE(a.process.is_null);
  EXPECT_EQ(a.process.name, "WindowServer");
  EXPECT_EQ(a.process.pid, 181);
  EXPECT_EQ(a.cmdbuffer, CommandBufferId{175719327});
  EXPECT_EQ(a.encoder, EncoderId{175719348});
  EXPECT_EQ(a.submission, SubmissionId{1206362555});  // fmt is "1.206.362.555"

  const GpuInterval& b = (*rows)[1];
  EXPECT_EQ(b.start_ns, 360280208);
  EXPECT_EQ(b.duration_ns, 18917);
  EXPECT_EQ(b.channel_name, "Compute");
  EXPECT_EQ(b.start_latency_ns, std::optional<int64_t>(3129458));
  EXPECT_EQ(b.event_label, "GPU Execution      ( WindowServer (181) )  0x47e7a1c6");
  EXPECT_EQ(b.process.name, "WindowServer");
  EXPECT_EQ(b.process.pid, 181);
  EXPECT_EQ(b.cmdbuffer, CommandBufferId{175719352});
  EXPECT_EQ(b.encoder, EncoderId{175719352});
  EXPECT_EQ(b.submission, SubmissionId{1206362566});
}


// A second copy of a row (a node exported twice, rows repeated) would be paired and
// counted twice: an error at the copy that names the original.
TEST(ExecutionPointsTest, RepeatedPointIsAnErrorAtTheCopy) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  for (TestColumn& c : columns) {
    const std::vector<std::string> first_two(c.cells.begin(), c.cells.begin() + 2);
    c.cells = {first_two[0], first_two[1]};
    // The copy of row 0, written with refs as an appended node would.
    c.cells.push_back(c.mnemonic == "note" ? "<sentinel/>" : first_two[0]);
  }
  // Ids cannot be defined twice: re-point the copy's cells at row 0's values.
  for (TestColumn& c : columns) {
    std::string& copy = c.cells[2];
    const size_t id = copy.find(" id=\"");
    if (id == std::string::npos) continue;
    const size_t end = copy.find('"', id + 5);
    const std::string tag = copy.substr(1, copy.find(' ') - 1);
    copy = "<" + tag + " ref=\"" + copy.substr(id + 5, end - id - 5) + "\"/>";
  }
  const std::string xml = Export("metal-gpu-execution-points", columns);
  Loaded l = Load(xml);
  ASSERT_TRUE(l.table);
  Diagnostics diagnostics;
  auto points = ReadExecutionPoints(*l.table, &diagnostics);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().code(), "xctrace.duplicate_row");
  const auto [line, column] = RowPosition(xml, 2);
  EXPECT_EQ(points.status().location().line, line);
  EXPECT_EQ(points.status().location().column, column);
  const auto [first_line, first_column] = RowPosition(xml, 0);
  EXPECT_NE(points.status().message().find(std::to_string(first_line) + ":" + std::to_string(first_column)),
            std::string::npos)
      << points.status().message();
}

TEST(ExecutionPointsTest, SameTimeOnAnotherSubmissionIsNoRepeat) {
  std::vector<TestColumn> columns = ExecutionPointColumns();
  columns[0].cells[2] = R"x(<start-time ref="1"/>)x";  // row 2 at row 0's time, other submission
  Loaded l = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(l.table);
  auto points = ReadExecutionPoints(*l.table, nullptr);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(points->size(), 4u);
}

// The repeated-point check hashes values the file chooses. The old hash was
// invertible: submission = (t * 0x9E3779B97F4A7C15) ^ C gives every point the same
// hash, and 60,000 distinct points took 38 s (O(N^2) key compares in one bucket).
// Seeded, they spread; ctest's timeout is the guard, the assertions say the rows are all read.
TEST(ExecutionPointsTest, PointsChosenToCollideInTheOldHashAreReadQuickly) {
  constexpr size_t kPoints = 60000;
  std::vector<TestColumn> columns = {{"timestamp", "start-time", {}},
                                     {"channel-id", "metal-command-buffer-id", {}},
                                     {"function", "uint32", {}},
                                     {"slot-id", "uint32", {}},
                                     {"gpu-submission-id", "metal-command-buffer-id", {}}};
  for (size_t i = 0; i < kPoints; ++i) {
    const uint64_t t = 1000 + i;
    const uint64_t submission = (t * 0x9E3779B97F4A7C15ull) ^ 0x5DEECE66Dull;
    columns[0].cells.push_back("<start-time>" + std::to_string(t) + "</start-time>");
    columns[1].cells.push_back("<metal-command-buffer-id>1</metal-command-buffer-id>");
    columns[2].cells.push_back("<uint32>1</uint32>");
    columns[3].cells.push_back("<uint32>1</uint32>");
    columns[4].cells.push_back("<metal-command-buffer-id>" + std::to_string(submission) + "</metal-command-buffer-id>");
  }
  Loaded in = Load(Export("metal-gpu-execution-points", columns));
  ASSERT_TRUE(in.table);
  Diagnostics diagnostics;
  StatusOr<std::vector<ExecutionPoint>> points = ReadExecutionPoints(*in.table, &diagnostics);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), kPoints);
  EXPECT_EQ(points->back().timestamp_ns, static_cast<int64_t>(1000 + kPoints - 1));
  EXPECT_EQ(points->back().submission.value, ((1000 + kPoints - 1) * 0x9E3779B97F4A7C15ull) ^ 0x5DEECE66Dull);
}

}  // namespace
}  // namespace perfgate::xctrace
