// Unit tests of the xctrace export reader: one test per rule of the format.
#include "perfgate/xctrace/reader.h"

#include <gtest/gtest.h>

#include <string>

namespace perfgate::xctrace {
namespace {

constexpr const char* kHeader = "<?xml version=\"1.0\"?>\n<trace-query-result>\n";
constexpr const char* kFooter = "</node></trace-query-result>\n";

std::string Col(const std::string& mnemonic, const std::string& type) {
  return "<col><mnemonic>" + mnemonic + "</mnemonic><name>" + mnemonic + "</name><engineering-type>" +
         type + "</engineering-type></col>";
}

const std::string kExecSchema =
    "<schema name=\"metal-gpu-execution-points\" documentation=\"Denotes an interesting points of activity in the GPU.\">" +
    Col("timestamp", "start-time") + Col("channel-id", "metal-command-buffer-id") + Col("function", "uint32") +
    Col("slot-id", "uint32") + Col("gpu-submission-id", "metal-command-buffer-id") +
    Col("accelerator-id", "uint64") + Col("note", "string") + "</schema>";

// Two real rows of the JSama99 excerpt (a start and its end), as exported.
const std::string kExecRows =
    "<row><start-time id=\"1\" fmt=\"00:00.329.899\">329899666</start-time><metal-command-buffer-id id=\"2\" "
    "fmt=\"0x123457\">1193047</metal-command-buffer-id><uint32 id=\"3\" fmt=\"1\">1</uint32><uint32 id=\"4\" "
    "fmt=\"1594567233\">1594567233</uint32><metal-command-buffer-id id=\"5\" "
    "fmt=\"0x5f0b2a41\">1594567233</metal-command-buffer-id><uint64 id=\"6\" "
    "fmt=\"18,446,744,073,709,551,615\">18446744073709551615</uint64><sentinel/></row>\n"
    "<row><start-time id=\"7\" fmt=\"00:00.330.007\">330007916</start-time><metal-command-buffer-id ref=\"2\"/>"
    "<uint32 id=\"8\" fmt=\"2\">2</uint32><uint32 ref=\"4\"/><metal-command-buffer-id ref=\"5\"/><uint64 "
    "ref=\"6\"/><string id=\"9\" fmt=\"\"></string></row>\n";

std::string ExecDoc(const std::string& rows) {
  return std::string(kHeader) + "<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'>" + kExecSchema + rows +
         kFooter;
}

// Where `marker` first occurs in `doc`, as "t.xml:line:col" (1-based, byte columns).
std::string LocationOf(const std::string& doc, const std::string& marker) {
  size_t off = doc.find(marker);
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

Document ReadOk(const std::string& doc, ReadMode mode = ReadMode::kStrict) {
  ReadOptions options;
  options.mode = mode;
  auto r = ReadExportBuffer(doc, "t.xml", options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

std::string StrictError(const std::string& doc, const ReadOptions& options = {}) {
  auto r = ReadExportBuffer(doc, "t.xml", options);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string("(no error)") : r.status().ToString();
}

TEST(XctraceReader, BindsColumnsByMnemonicAndDecodesText) {
  Document doc = ReadOk(ExecDoc(kExecRows));
  ASSERT_EQ(doc.table_count(), 1u);
  Table t = doc.table(0);
  EXPECT_EQ(t.schema(), "metal-gpu-execution-points");
  EXPECT_EQ(t.node_xpath(), "//trace-toc[1]/run[1]/data[1]/table[34]");
  ASSERT_EQ(t.row_count(), 2u);
  ASSERT_EQ(t.columns().size(), 7u);
  EXPECT_EQ(t.columns()[4].engineering_type, "metal-command-buffer-id");
  size_t ts = *t.ColumnIndex("timestamp");
  size_t sub = *t.ColumnIndex("gpu-submission-id");
  EXPECT_EQ(*t.cell(0, ts).AsInt64(), 329899666);
  EXPECT_EQ(t.cell(0, ts).fmt(), "00:00.329.899");
  EXPECT_EQ(*t.cell(1, ts).AsInt64(), 330007916);
  // The second row's submission id is a ref: it resolves to the integer, not the hex fmt.
  EXPECT_EQ(*t.cell(1, sub).AsUint64(), 1594567233u);
  EXPECT_EQ(t.cell(1, sub).fmt(), "0x5f0b2a41");
  EXPECT_EQ(*t.cell(1, *t.ColumnIndex("function")).AsUint64(), 2u);
  EXPECT_FALSE(t.ColumnIndex("no-such-column").has_value());
  EXPECT_TRUE(doc.diagnostics().empty());
}

TEST(XctraceReader, Uint64MaxIsAValueNotAnError) {
  Document doc = ReadOk(ExecDoc(kExecRows));
  Table t = doc.table(0);
  Value acc = t.cell(1, *t.ColumnIndex("accelerator-id"));
  EXPECT_EQ(*acc.AsUint64(), kNoId);
  EXPECT_FALSE(acc.AsInt64().has_value());  // does not fit int64
  EXPECT_EQ(acc.fmt(), "18,446,744,073,709,551,615");
}

TEST(XctraceReader, SentinelIsDistinctFromEmptyString) {
  Document doc = ReadOk(ExecDoc(kExecRows));
  Table t = doc.table(0);
  size_t note = *t.ColumnIndex("note");
  EXPECT_TRUE(t.cell(0, note).is_sentinel());
  EXPECT_TRUE(t.cell(0, note).is_null());
  EXPECT_EQ(t.cell(0, note).tag(), "");
  Value empty = t.cell(1, note);
  EXPECT_FALSE(empty.is_null());
  EXPECT_EQ(empty.tag(), "string");
  EXPECT_EQ(empty.text(), "");
  EXPECT_TRUE(empty.has_fmt());
}

// The process of the last column is first written inside the label's thread, as in the
// JSama99 driver excerpt; the top-level cell only refs it.
const std::string kNestedSchema = "<schema name=\"metal-driver-intervals\">" + Col("start", "start-time") +
                                  Col("event-label", "formatted-label") + Col("thread", "thread") +
                                  Col("process", "process") + "</schema>";
const std::string kNestedRow =
    "<row><start-time id=\"1\" fmt=\"00:00.329.138\">329138291</start-time>"
    "<formatted-label id=\"2\" fmt=\"Compositor ( main (0x9ef) (backboardd, pid: 75) )\">"
    "<metal-object-label id=\"3\" fmt=\"Compositor\">Compositor</metal-object-label>"
    "<thread id=\"4\" fmt=\"main (0x9ef) (backboardd, pid: 75)\"><tid id=\"5\" fmt=\"0x9ef\">2543</tid>"
    "<process id=\"6\" fmt=\"backboardd (75)\"><pid id=\"7\" fmt=\"75\">75</pid>"
    "<device-session id=\"8\" fmt=\"TODO\">TODO</device-session></process></thread></formatted-label>"
    "<thread ref=\"4\"/><process ref=\"6\"/></row>\n";

TEST(XctraceReader, RefResolvesToNestedSubtree) {
  Document doc = ReadOk(std::string(kHeader) + "<node>" + kNestedSchema + kNestedRow + kFooter);
  Table t = doc.table(0);
  Value process = t.cell(0, 3);
  EXPECT_EQ(process.tag(), "process");
  EXPECT_EQ(process.fmt(), "backboardd (75)");
  EXPECT_EQ(*process.Find("pid").AsInt64(), 75);
  EXPECT_EQ(process.Find("device-session").text(), "TODO");
  Value thread = t.cell(0, 2);
  EXPECT_EQ(*thread.Find("tid").AsUint64(), 2543u);
  EXPECT_EQ(*thread.Find("pid").AsInt64(), 75);  // depth-first through the nested process
  Value label = t.cell(0, 1);
  ASSERT_EQ(label.child_count(), 2u);
  EXPECT_EQ(label.child(0).text(), "Compositor");
  EXPECT_TRUE(label.Find("no-such-tag").is_missing());
}

TEST(XctraceReader, RefsCrossNodesAndSchemaLessNodesReuseTheSchema) {
  // The second <node> has no <schema>: its rows belong to the first node's table and
  // its refs reach ids defined in the first node.
  std::string doc = std::string(kHeader) + "<node>" + kExecSchema + kExecRows + "</node>\n<node>" +
                    "<row><start-time id=\"10\" fmt=\"00:00.400.000\">400000000</start-time>"
                    "<metal-command-buffer-id ref=\"2\"/><uint32 ref=\"3\"/><uint32 ref=\"4\"/>"
                    "<metal-command-buffer-id ref=\"5\"/><uint64 ref=\"6\"/><sentinel/></row>\n" +
                    kFooter;
  Document d = ReadOk(doc);
  ASSERT_EQ(d.table_count(), 1u);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 3u);
  EXPECT_EQ(*t.cell(2, 0).AsInt64(), 400000000);
  EXPECT_EQ(*t.cell(2, 4).AsUint64(), 1594567233u);
  EXPECT_EQ(*t.cell(2, 1).AsUint64(), 1193047u);
}

TEST(XctraceReader, SeveralTablesInOneDocument) {
  std::string doc = std::string(kHeader) + "<node>" + kExecSchema + kExecRows + "</node>\n<node>" +
                    kNestedSchema +
                    "<row><start-time ref=\"1\"/><formatted-label id=\"20\" fmt=\"x\"></formatted-label>"
                    "<sentinel/><sentinel/></row>\n" + kFooter;
  Document d = ReadOk(doc);
  ASSERT_EQ(d.table_count(), 2u);
  auto driver = d.FindTable("metal-driver-intervals");
  ASSERT_TRUE(driver.has_value());
  EXPECT_EQ(*driver->cell(0, 0).AsInt64(), 329899666);  // ref into the first table's rows
  EXPECT_FALSE(d.FindTable("metal-gpu-intervals").has_value());
}

TEST(XctraceReader, ReorderedColumnsBindByMnemonic) {
  std::string schema = "<schema name=\"s\">" + Col("b", "uint32") + Col("a", "start-time") + "</schema>";
  Document d = ReadOk(std::string(kHeader) + "<node>" + schema +
                      "<row><uint32 id=\"1\" fmt=\"7\">7</uint32><start-time id=\"2\" fmt=\"x\">99</start-time></row>" +
                      kFooter);
  Table t = d.table(0);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("a")).AsInt64(), 99);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("b")).AsInt64(), 7);
}

TEST(XctraceReader, PrettyPrintedAndIdLessInputsDecode) {
  // Hand-indented like xctraceprof's fixtures, with no ids at all like probe-cli's.
  std::string doc =
      "<?xml version=\"1.0\"?>\n<trace-query-result>\n  <node xpath='x'>\n    <schema name=\"s\">\n      " +
      Col("t", "start-time") + "\n      " + Col("l", "string") +
      "\n    </schema>\n    <row>\n      <start-time fmt=\"a\">5</start-time>\n      <string fmt=\"caf&#233; &quot;q&quot;\">caf\xC3\xA9 &amp; co</string>\n    </row>\n  </node>\n</trace-query-result>\n";
  Document d = ReadOk(doc);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 1u);
  EXPECT_EQ(*t.cell(0, 0).AsInt64(), 5);
  EXPECT_EQ(t.cell(0, 1).text(), "caf\xC3\xA9 & co");
  EXPECT_EQ(t.cell(0, 1).fmt(), "caf\xC3\xA9 \"q\"");
  EXPECT_EQ(t.RowLocation(0).line, 8);
  EXPECT_EQ(t.RowLocation(0).column, 5);
}

TEST(XctraceReader, ExtraAttributesAreKept) {
  std::string schema = "<schema name=\"time-profile\">" + Col("stack", "backtrace") + "</schema>";
  Document d = ReadOk(std::string(kHeader) + "<node>" + schema +
                      "<row><backtrace id=\"1\"><frame id=\"2\" name=\"main\" addr=\"0x1000\"/></backtrace></row>" +
                      kFooter);
  Value frame = d.table(0).cell(0, 0).child(0);
  EXPECT_EQ(frame.tag(), "frame");
  ASSERT_EQ(frame.attribute_count(), 2u);
  EXPECT_EQ(frame.attribute(0).first, "name");
  EXPECT_EQ(frame.attribute(0).second, "main");
  EXPECT_EQ(frame.attribute(1).second, "0x1000");
}

TEST(XctraceReader, RowsSpanningManyChunksKeepRefsAndOrder) {
  // ~3 MiB of rows: the reader cuts them into 1 MiB chunks, and refs reach back
  // across chunk boundaries to ids defined in the first row.
  std::string rows = kExecRows;
  int next_id = 10;
  const int kRows = 14000;
  for (int i = 0; i < kRows; ++i) {
    int64_t ts = 400000000 + i * 1000;
    const int id = next_id;
    next_id += 3;
    rows += "<row><start-time id=\"" + std::to_string(id) + "\" fmt=\"f\">" + std::to_string(ts) +
            "</start-time><metal-command-buffer-id ref=\"2\"/><uint32 ref=\"3\"/><uint32 id=\"" +
            std::to_string(id + 1) + "\" fmt=\"" + std::to_string(i) + "\">" + std::to_string(i) +
            "</uint32><metal-command-buffer-id id=\"" + std::to_string(id + 2) + "\" fmt=\"h\">" +
            std::to_string(1000000 + i) + "</metal-command-buffer-id><uint64 ref=\"6\"/><sentinel/>"
            "<!-- padding to make rows long enough: -------------------------------------------------- --></row>\n";
  }
  std::string doc = ExecDoc(rows);
  ASSERT_GT(doc.size(), 3u << 20);
  Document d = ReadOk(doc);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 2u + kRows);
  for (int i : {0, 4000, 9999, kRows - 1}) {
    EXPECT_EQ(*t.cell(2 + i, 0).AsInt64(), 400000000 + i * 1000) << i;
    EXPECT_EQ(*t.cell(2 + i, 4).AsUint64(), 1000000u + i) << i;
    EXPECT_EQ(*t.cell(2 + i, 5).AsUint64(), kNoId) << i;
  }
}

// Rows of exactly `length` bytes (kExecRows, then rows that ref its ids, the last one
// padded with a comment); row i > 1 has timestamp 500000000 + i.
std::string RowsOfLength(size_t length, int* row_count) {
  std::string rows = kExecRows;
  int n = 2;
  auto row = [](int i, const std::string& pad) {
    return "<row><start-time id=\"" + std::to_string(100 + i) + "\" fmt=\"f\">" + std::to_string(500000000 + i) +
           "</start-time><metal-command-buffer-id ref=\"2\"/><uint32 ref=\"3\"/><uint32 ref=\"4\"/>"
           "<metal-command-buffer-id ref=\"5\"/><uint64 ref=\"6\"/><sentinel/><!--" + pad + "--></row>\n";
  };
  while (rows.size() + 2 * row(n, "").size() + 64 < length) rows += row(n++, "");
  rows += row(n, std::string(length - rows.size() - row(n, "").size(), 'x'));
  *row_count = n + 1;
  return rows;
}

TEST(XctraceReader, NodeEndIsFoundWhereverItFallsAroundAChunkBoundary) {
  // The reader reads rows in 1 MiB chunks and looks for "</node>" one chunk at a time:
  // a first node whose "</node>" starts anywhere from 8 bytes before to 8 bytes after
  // the first chunk's nominal end must end exactly there, and the second node's rows
  // (reusing the schema) must follow.
  const std::string head = std::string(kHeader) + "<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'>" + kExecSchema;
  const std::string second = "</node>\n<node xpath='//trace-toc[1]/run[1]/data[1]/table[35]'>" +
                             std::string("<row><start-time id=\"90000000\" fmt=\"f\">777</start-time>"
                                         "<metal-command-buffer-id ref=\"2\"/><uint32 ref=\"3\"/><uint32 ref=\"4\"/>"
                                         "<metal-command-buffer-id ref=\"5\"/><uint64 ref=\"6\"/><sentinel/></row>") +
                             kFooter;
  for (size_t length = (1u << 20) - 8; length <= (1u << 20) + 8; ++length) {
    int rows_in_first = 0;
    const std::string doc = head + RowsOfLength(length, &rows_in_first) + second;
    ASSERT_EQ(doc.find("</node>"), head.size() + length);
    Document d = ReadOk(doc);
    ASSERT_EQ(d.table_count(), 1u) << length;
    Table t = d.table(0);
    ASSERT_EQ(t.row_count(), static_cast<size_t>(rows_in_first) + 1) << length;
    EXPECT_EQ(*t.cell(rows_in_first - 1, 0).AsInt64(), 500000000 + rows_in_first - 1) << length;
    EXPECT_EQ(*t.cell(rows_in_first, 0).AsInt64(), 777) << length;
    EXPECT_EQ(t.node_xpath(), "//trace-toc[1]/run[1]/data[1]/table[34]");
    EXPECT_TRUE(d.diagnostics().empty()) << length;
  }
}

TEST(XctraceReaderMalformed, TruncationIsReportedBeforeAnyRowErrorWhateverTheSize) {
  // A cut file is reported as cut, even when a row before the cut has its own error;
  // the same under one chunk (256 KiB) and over several (3 MiB).
  for (size_t length : {size_t{256} << 10, size_t{3} << 20}) {
    int rows = 0;
    std::string doc = ExecDoc(RowsOfLength(length, &rows));
    const size_t bad_row = doc.find("<row><start-time id=\"102\"");
    ASSERT_NE(bad_row, std::string::npos);
    doc.erase(doc.find("<sentinel/>", bad_row), 11);  // that row now has too few cells
    doc.resize(doc.rfind("<uint32 ref=\"4\"/>") + 5);
    const std::string cut = LocationOf(doc.substr(0, doc.rfind("<row>")) + "@CUT@", "@CUT@");
    const std::string expected = cut + ": error[xctrace.truncated]: the file ends before </node> (this row is cut off)";
    EXPECT_EQ(StrictError(doc), expected) << length;
    ReadOptions lenient;
    lenient.mode = ReadMode::kLenient;
    EXPECT_EQ(StrictError(doc, lenient), expected) << length;
  }
}

TEST(XctraceReaderMalformed, TruncatedAfterManyChunksPointsAtTheCutRow) {
  int rows = 0;
  std::string doc = ExecDoc(RowsOfLength(3u << 20, &rows));
  doc.resize(doc.rfind("<uint32 ref=\"4\"/>") + 5);
  const size_t cut_row = doc.rfind("<row>");
  const std::string expected = LocationOf(doc.substr(0, cut_row) + "@CUT@", "@CUT@");
  EXPECT_EQ(StrictError(doc),
            expected + ": error[xctrace.truncated]: the file ends before </node> (this row is cut off)");
}

// --- anomalies: strict errors with locations, lenient counts ------------------------

TEST(XctraceReaderAnomaly, DanglingRef) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<uint64 ref=\"6\"/>"), 17, "<uint64 ref=\"66\"/>");
  std::string doc = ExecDoc(rows);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<uint64 ref=\"66\"/>") +
                                  ": error[xctrace.dangling_ref]: <uint64 ref=\"66\"/> (node 1, row 2) has no "
                                  "earlier id=\"66\"");
  Document d = ReadOk(doc, ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.dangling_ref"), 1);
  EXPECT_TRUE(d.table(0).cell(1, 5).is_missing());
  EXPECT_EQ(d.table(0).row_count(), 2u);  // the row is kept
}

TEST(XctraceReaderAnomaly, ForwardRef) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<uint64 ref=\"6\"/>"), 17, "<uint64 ref=\"9\"/>");  // id 9 is a <string> later
  std::string doc = ExecDoc(rows);
  EXPECT_NE(StrictError(doc).find("error[xctrace.forward_ref]"), std::string::npos);
  Document d = ReadOk(doc, ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.forward_ref"), 1);
  EXPECT_EQ(d.diagnostics().Count("xctrace.dangling_ref"), 0);
}

TEST(XctraceReaderAnomaly, RefToDifferentTag) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<uint32 ref=\"4\"/>"), 17, "<uint32 ref=\"5\"/>");
  std::string doc = ExecDoc(rows);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<uint32 ref=\"5\"/>") +
                                  ": error[xctrace.ref_tag_mismatch]: <uint32 ref=\"5\"/> (node 1, row 2) points "
                                  "at a <metal-command-buffer-id>");
}

TEST(XctraceReaderAnomaly, DuplicateId) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<string id=\"9\""), 14, "<string id=\"8\"");
  std::string doc = ExecDoc(rows);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<string id=\"8\"") +
                                  ": error[xctrace.duplicate_id]: id=\"8\" on <string> is already defined (by a "
                                  "<uint32>)");
  EXPECT_EQ(ReadOk(doc, ReadMode::kLenient).diagnostics().Count("xctrace.duplicate_id"), 1);
}

TEST(XctraceReaderAnomaly, NonNumericIdAndIdWithRef) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<string id=\"9\""), 14, "<string id=\"x9\"");
  EXPECT_NE(StrictError(ExecDoc(rows)).find("error[xctrace.bad_id]: id=\"x9\""), std::string::npos);
  rows = kExecRows;
  rows.replace(rows.find("<uint64 ref=\"6\"/>"), 17, "<uint64 id=\"99\" ref=\"6\"/>");
  EXPECT_NE(StrictError(ExecDoc(rows)).find("error[xctrace.id_and_ref]"), std::string::npos);
}

TEST(XctraceReaderAnomaly, ArityMismatch) {
  std::string rows = kExecRows;
  const std::string last_cell = "<string id=\"9\" fmt=\"\"></string>";
  rows.replace(rows.find(last_cell), last_cell.size(), "");
  std::string doc = ExecDoc(rows);
  std::string row2 = "<row><start-time id=\"7\"";
  EXPECT_EQ(StrictError(doc), LocationOf(doc, row2) +
                                  ": error[xctrace.arity_mismatch]: row has 6 cells but schema "
                                  "'metal-gpu-execution-points' has 7 columns (node 1, row 2)");
  Document d = ReadOk(doc, ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.arity_mismatch"), 1);
  EXPECT_TRUE(d.table(0).cell(1, 6).is_missing());
  // One cell too many: counted, and the extra cell is not bound.
  rows = kExecRows;
  rows.replace(rows.find("</row>"), 6, "<uint32 ref=\"3\"/></row>");
  Document d2 = ReadOk(ExecDoc(rows), ReadMode::kLenient);
  EXPECT_EQ(d2.diagnostics().Count("xctrace.arity_mismatch"), 1);
  EXPECT_EQ(*d2.table(0).cell(1, 0).AsInt64(), 330007916);
}

TEST(XctraceReaderAnomaly, CellTagDiffersFromEngineeringType) {
  std::string rows = kExecRows;
  rows.replace(rows.find("<uint32 id=\"3\" fmt=\"1\">1</uint32>"), 33, "<uint64 id=\"3\" fmt=\"1\">1</uint64>");
  std::string doc = ExecDoc(rows);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<uint64 id=\"3\"") +
                                  ": error[xctrace.type_mismatch]: <uint64> in column 'function' of engineering "
                                  "type 'uint32' (node 1, row 1)");
}

TEST(XctraceReaderAnomaly, IntegersOutOfRange) {
  for (const char* bad : {"99999999999999999999999", "-5", "4294967296", "12ab", "+"}) {
    std::string rows = kExecRows;
    rows.replace(rows.find(">1</uint32>"), 11, std::string(">") + bad + "</uint32>");
    std::string err = StrictError(ExecDoc(rows));
    EXPECT_NE(err.find("error[xctrace.bad_integer]"), std::string::npos) << bad << ": " << err;
  }
  std::string rows = kExecRows;
  rows.replace(rows.find(">329899666<"), 11, ">99999999999999999999<");
  EXPECT_NE(StrictError(ExecDoc(rows)).find("xctrace.bad_integer"), std::string::npos);
  // Negative times are legal start-time values.
  rows = kExecRows;
  rows.replace(rows.find(">329899666<"), 11, ">-42<");
  EXPECT_EQ(*ReadOk(ExecDoc(rows)).table(0).cell(0, 0).AsInt64(), -42);
}

TEST(XctraceReaderAnomaly, EmptyExportNamesTheSchema) {
  ReadOptions options;
  options.expected_schema = "metal-gpu-execution-points";
  std::string doc = "<?xml version=\"1.0\"?>\n<trace-query-result>\n</trace-query-result>\n";
  EXPECT_EQ(StrictError(doc, options),
            "t.xml:2:1: error[xctrace.empty_export]: the export holds no <node>: no table of schema "
            "'metal-gpu-execution-points' was exported");
  EXPECT_EQ(StrictError("<?xml version=\"1.0\"?>\n<trace-query-result/>\n"),
            "t.xml:2:1: error[xctrace.empty_export]: the export holds no <node>: the query matched no table");
}

TEST(XctraceReaderAnomaly, SchemaMismatch) {
  ReadOptions options;
  options.expected_schema = "metal-gpu-intervals";
  EXPECT_NE(StrictError(ExecDoc(kExecRows), options).find("error[xctrace.schema_mismatch]: <schema "
                                                           "name=\"metal-gpu-execution-points\">, expected "
                                                           "'metal-gpu-intervals'"),
            std::string::npos);
}

TEST(XctraceReaderAnomaly, MissingSchema) {
  std::string doc = std::string(kHeader) + "<node>" + kExecRows + kFooter;
  EXPECT_EQ(StrictError(doc), "t.xml:3:1: error[xctrace.missing_schema]: <node> 1 has rows but no <schema>, and "
                              "no earlier node has one; its rows are skipped");
  Document d = ReadOk(doc, ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.missing_schema"), 1);
  EXPECT_EQ(d.table_count(), 0u);
}

TEST(XctraceReaderAnomaly, UnknownElementAmongRows) {
  std::string rows = kExecRows + "<bogus/>\n";
  std::string doc = ExecDoc(rows);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<bogus/>") +
                                  ": error[xctrace.unknown_element]: <bogus> among the rows of <node> 1; expected "
                                  "<row>");
  Document d = ReadOk(doc, ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.unknown_element"), 1);
  EXPECT_EQ(d.table(0).row_count(), 2u);
}

TEST(XctraceReaderAnomaly, LenientCountsEveryOccurrence) {
  std::string rows = kExecRows;
  for (int i = 0; i < 5; ++i) rows += "<row><start-time ref=\"1\"/></row>\n";
  Document d = ReadOk(ExecDoc(rows), ReadMode::kLenient);
  EXPECT_EQ(d.diagnostics().Count("xctrace.arity_mismatch"), 5);
  EXPECT_EQ(d.table(0).row_count(), 7u);
  auto entries = d.diagnostics().Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first_location.line, 5);  // the first short row
}

// --- malformed files --------------------------------------------------------------

TEST(XctraceReaderMalformed, EmptyFile) {
  EXPECT_EQ(StrictError(""), "t.xml:1:1: error[xctrace.empty_file]: the file is empty");
}

TEST(XctraceReaderMalformed, NotXml) {
  EXPECT_EQ(StrictError("hello, world\n"),
            "t.xml:1:1: error[xctrace.not_xml]: expected '<' at the start of the document");
  EXPECT_EQ(StrictError("   \n  \n"), "t.xml:3:1: error[xctrace.not_xml]: no root element");
  EXPECT_EQ(StrictError("{\"traceEvents\": []}"),
            "t.xml:1:1: error[xctrace.not_xml]: expected '<' at the start of the document");
}

TEST(XctraceReaderMalformed, TruncatedMidRow) {
  std::string doc = ExecDoc(kExecRows);
  doc.resize(doc.find("<uint32 ref=\"4\"/>") + 5);
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "<row><start-time id=\"7\"") +
                                  ": error[xctrace.truncated]: the file ends before </node> (this row is cut off)");
  // Cut after </node>: the root is never closed.
  std::string doc2 = ExecDoc(kExecRows);
  doc2.resize(doc2.find("</trace-query-result>"));
  EXPECT_NE(StrictError(doc2).find("error[xctrace.truncated]: the file ends before </trace-query-result>"),
            std::string::npos);
}

TEST(XctraceReaderMalformed, BadUtf8PointsAtTheByte) {
  std::string doc = ExecDoc(kExecRows);
  size_t at = doc.find("00:00.330.007");
  doc[at + 2] = '\xC3';  // a lead byte followed by ':'
  EXPECT_EQ(StrictError(doc), LocationOf(doc, "\xC3") +
                                  ": error[xctrace.bad_utf8]: invalid UTF-8 sequence starting with byte 0xC3");
  std::string overlong = ExecDoc(kExecRows);
  overlong.insert(overlong.find("</schema>"), "\xC0\xAF");
  EXPECT_NE(StrictError(overlong).find("xctrace.bad_utf8"), std::string::npos);
}

TEST(XctraceReaderMalformed, MismatchedTagsInsideRows) {
  std::string rows = kExecRows;
  rows.replace(rows.find("</uint32>"), 9, "</uint64>");
  std::string err = StrictError(ExecDoc(rows));
  EXPECT_NE(err.find("error[xctrace.not_xml]: Start-end tags mismatch (in the rows of <node> 1)"), std::string::npos)
      << err;
}

TEST(XctraceReaderMalformed, WrongRoot) {
  EXPECT_EQ(StrictError("<?xml version=\"1.0\"?>\n<html></html>\n"),
            "t.xml:2:1: error[xctrace.unexpected_root]: root element is <html>, expected <trace-query-result>");
  EXPECT_EQ(StrictError("<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"/></trace-toc>\n"),
            "t.xml:2:1: error[xctrace.unexpected_root]: this is a table of contents (xctrace export --toc); read "
            "it with `perfgate toc`");
}

TEST(XctraceReaderMalformed, ContentAfterRoot) {
  std::string doc = ExecDoc(kExecRows) + "<extra/>";
  EXPECT_NE(StrictError(doc).find("error[xctrace.not_xml]: content after the root element"), std::string::npos);
}

TEST(XctraceReaderMalformed, DeepNestingIsAnErrorNotACrash) {
  std::string schema = "<schema name=\"s\">" + Col("x", "formatted-label") + "</schema>";
  std::string cell;
  for (int i = 0; i < 10000; ++i) cell += "<formatted-label>";
  for (int i = 0; i < 10000; ++i) cell += "</formatted-label>";
  std::string err = StrictError(std::string(kHeader) + "<node>" + schema + "<row>" + cell + "</row>" + kFooter);
  EXPECT_NE(err.find("error[xctrace.too_deep]"), std::string::npos) << err;
}

TEST(XctraceReaderMalformed, MissingFile) {
  auto r = ReadExportFile("/nonexistent/perfgate/x.xml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.not_found");
  EXPECT_EQ(r.status().ToString(), "/nonexistent/perfgate/x.xml: error[io.not_found]: cannot open: No such file or directory");
}

}  // namespace
}  // namespace perfgate::xctrace
