// Tests of the xctrace export generator (tools/xctrace_gen). Every document is
// re-parsed with pugixml and checked against the format rules of
// docs/xctrace-format.md; when the real exports of shared/corpus are present,
// the writer must also reproduce them byte for byte.
#include "xctrace_gen/xctrace_gen.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "support/corpus.h"

namespace perfgate::gen {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// pugixml keeps whitespace-only text only when asked, and lane labels are " ".
constexpr unsigned kParseFlags = pugi::parse_default | pugi::parse_ws_pcdata;

::testing::AssertionResult Parses(const std::string& bytes, pugi::xml_document* doc) {
  const pugi::xml_parse_result result = doc->load_buffer(bytes.data(), bytes.size(), kParseFlags);
  if (result) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.description() << " at offset " << result.offset;
}

std::vector<pugi::xml_node> ElementChildren(pugi::xml_node node) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node child : node.children()) {
    if (child.type() == pugi::node_element) out.push_back(child);
  }
  return out;
}

std::vector<pugi::xml_node> Rows(const pugi::xml_document& doc) {
  std::vector<pugi::xml_node> rows;
  for (pugi::xml_node node : doc.child("trace-query-result").children("node")) {
    for (pugi::xml_node row : node.children("row")) rows.push_back(row);
  }
  return rows;
}

// Walks every element below the root in document order (pre-order).
template <typename Fn>
void PreOrder(pugi::xml_node node, Fn&& fn) {
  for (pugi::xml_node child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    fn(child);
    PreOrder(child, fn);
  }
}

struct InternStats {
  uint64_t ids = 0;
  uint64_t refs = 0;
};

// xctrace-format.md §7: ids from one counter rising by exactly 1 in pre-order, refs
// only backwards and only to the same tag, refs empty.
::testing::AssertionResult InterningIsValid(const pugi::xml_document& doc, InternStats* stats = nullptr) {
  std::map<uint64_t, std::string> tags;
  uint64_t last = 0;
  InternStats counted;
  std::string error;
  PreOrder(doc.child("trace-query-result"), [&](pugi::xml_node e) {
    if (!error.empty()) return;
    if (pugi::xml_attribute id = e.attribute("id")) {
      const uint64_t n = id.as_ullong();
      if (n != last + 1) {
        error = std::string("id ") + id.value() + " on <" + e.name() + "> after id " + std::to_string(last);
        return;
      }
      last = n;
      tags[n] = e.name();
      ++counted.ids;
    }
    if (pugi::xml_attribute ref = e.attribute("ref")) {
      auto it = tags.find(ref.as_ullong());
      if (it == tags.end()) {
        error = std::string("<") + e.name() + " ref=" + ref.value() + "> points nowhere earlier";
      } else if (it->second != e.name()) {
        error = std::string("<") + e.name() + " ref=" + ref.value() + "> points at <" + it->second + ">";
      } else if (e.first_child() || e.attribute("fmt") || e.attribute("id")) {
        error = std::string("<") + e.name() + " ref=" + ref.value() + "> is not empty";
      }
      ++counted.refs;
    }
  });
  if (stats != nullptr) *stats = counted;
  if (error.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << error;
}

// Every row has one cell per column, tagged with the column's engineering type.
::testing::AssertionResult RowsMatchSchema(const pugi::xml_document& doc) {
  std::vector<std::string> types;
  size_t row_index = 0;
  for (pugi::xml_node node : doc.child("trace-query-result").children("node")) {
    if (pugi::xml_node schema = node.child("schema")) {
      types.clear();
      for (pugi::xml_node col : schema.children("col")) {
        types.push_back(col.child_value("engineering-type"));
      }
    }
    for (pugi::xml_node row : node.children("row")) {
      ++row_index;
      const std::vector<pugi::xml_node> cells = ElementChildren(row);
      if (cells.size() != types.size()) {
        return ::testing::AssertionFailure()
               << "row " << row_index << " has " << cells.size() << " cells for " << types.size() << " columns";
      }
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].name() != types[i] && std::strcmp(cells[i].name(), "sentinel") != 0) {
          return ::testing::AssertionFailure() << "row " << row_index << " cell " << i << " is <"
                                               << cells[i].name() << "> in a " << types[i] << " column";
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::string> Mnemonics(const Schema& schema) {
  std::vector<std::string> out;
  for (const Column& column : schema.columns) out.push_back(column.mnemonic);
  return out;
}

std::vector<std::string> Types(const Schema& schema) {
  std::vector<std::string> out;
  for (const Column& column : schema.columns) out.push_back(column.engineering_type);
  return out;
}

size_t CountOf(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// ---------------------------------------------------------------------------------
// Display strings
// ---------------------------------------------------------------------------------

TEST(FormatTest, StartTimeIsMinutesSecondsMillisMicros) {
  EXPECT_EQ(FormatStartTime(329899666), "00:00.329.899");
  EXPECT_EQ(FormatStartTime(11485829791), "00:11.485.829");
  EXPECT_EQ(FormatStartTime(333337625), "00:00.333.337");  // truncated, not rounded
  EXPECT_EQ(FormatStartTime(0), "00:00.000.000");
  EXPECT_EQ(FormatStartTime(61'000'001'000), "01:01.000.001");
  EXPECT_EQ(FormatStartTime(4'500'000'000'000), "75:00.000.000");
}

TEST(FormatTest, DurationPicksUnitAndRoundsHalfUp) {
  EXPECT_EQ(FormatDuration(197584), "197.58 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(542), "542 ns");
  EXPECT_EQ(FormatDuration(1), "1 ns");
  EXPECT_EQ(FormatDuration(1000000), "1.00 ms");
  EXPECT_EQ(FormatDuration(172666), "172.67 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(338375), "338.38 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(3334), "3.33 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(16666625), "16.67 ms");
  EXPECT_EQ(FormatDuration(1000), "1.00 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(999996), "1.00 ms");  // 1000.00 µs moves up a unit
  EXPECT_EQ(FormatDuration(2'500'000'000), "2.50 s");
}

TEST(FormatTest, HexAndGrouping) {
  EXPECT_EQ(FormatHex(0x123457), "0x123457");
  EXPECT_EQ(FormatHex(UINT64_MAX), "0xffffffffffffffff");
  EXPECT_EQ(FormatHex(0), "0x0");
  EXPECT_EQ(FormatGrouped(UINT64_MAX, Locale::kEnUs), "18,446,744,073,709,551,615");
  EXPECT_EQ(FormatGrouped(1206362555, Locale::kDeDe), "1.206.362.555");
  EXPECT_EQ(FormatGrouped(999, Locale::kEnUs), "999");
  EXPECT_EQ(FormatGrouped(1000, Locale::kEnUs), "1,000");
  EXPECT_EQ(FormatGrouped(0, Locale::kDeDe), "0");
}

TEST(CellTest, FactoriesCarryTextAndFmt) {
  const Cell start = StartTime(329899666);
  EXPECT_EQ(start.tag, "start-time");
  EXPECT_EQ(start.text, "329899666");
  EXPECT_EQ(start.fmt, "00:00.329.899");
  const Cell none = CommandBufferId(UINT64_MAX);
  EXPECT_EQ(none.tag, "metal-command-buffer-id");
  EXPECT_EQ(none.text, "18446744073709551615");
  EXPECT_EQ(none.fmt, "0xffffffffffffffff");
  EXPECT_EQ(CommandBufferId(1193047).fmt, "0x123457");
  EXPECT_EQ(Uint64(UINT64_MAX).fmt, "18,446,744,073,709,551,615");
  EXPECT_EQ(Uint64(1206362555, Locale::kDeDe).fmt, "1.206.362.555");
  EXPECT_EQ(Uint32(1594567233).fmt, "1594567233");
  EXPECT_EQ(Tid(2543).fmt, "0x9ef");
  EXPECT_EQ(Pid(75).fmt, "75");
  EXPECT_EQ(Duration(197584).fmt, "197.58 \xC2\xB5s");
  EXPECT_EQ(GpuFrameNumber(1).fmt, "Frame 1");
  EXPECT_EQ(SizeInBytes(0).fmt, "0 B");
  EXPECT_EQ(WorkloadPriority(0).fmt, "0x0");
  EXPECT_TRUE(Cell::Sentinel().sentinel);
}

// Writes one row holding `cells` and returns the text between <row> and </row>.
std::string RowXml(std::vector<Cell> cells, WriteOptions options = {}) {
  Table table;
  table.schema.name = "t";
  for (size_t i = 0; i < cells.size(); ++i) {
    table.schema.columns.push_back({"c" + std::to_string(i), "C", cells[i].tag});
  }
  table.rows.push_back(std::move(cells));
  const std::string doc = WriteTable(table, options);
  const size_t begin = doc.find("<row>") + 5;
  return doc.substr(begin, doc.find("</row>") - begin);
}

TEST(CellTest, EmptyStringKeepsBothTagsAndSentinelHasNoAttributes) {
  EXPECT_EQ(RowXml({String(""), Cell::Sentinel(), String("")}),
            "<string id=\"1\" fmt=\"\"></string><sentinel/><string ref=\"1\"/>");
}

TEST(CellTest, ProcessAndThreadHaveTheRealShape) {
  EXPECT_EQ(RowXml({Process("backboardd", 75)}),
            "<process id=\"1\" fmt=\"backboardd (75)\"><pid id=\"2\" fmt=\"75\">75</pid>"
            "<device-session id=\"3\" fmt=\"TODO\">TODO</device-session></process>");
  EXPECT_EQ(RowXml({Thread("Render", 808374, {"SOLO: Unicorn Run", 3539})}),
            "<thread id=\"1\" fmt=\"Render (0xc55b6) (SOLO: Unicorn Run, pid: 3539)\">"
            "<tid id=\"2\" fmt=\"0xc55b6\">808374</tid>"
            "<process id=\"3\" fmt=\"SOLO: Unicorn Run (3539)\"><pid id=\"4\" fmt=\"3539\">3539</pid>"
            "<device-session id=\"5\" fmt=\"TODO\">TODO</device-session></process></thread>");
}

TEST(CellTest, EscapesTextAndAttributesAndRoundTrips) {
  const std::string nasty = "Committed \"A&B\" <x> 'y' \xC2\xB5";
  const std::string xml = RowXml({String(nasty)});
  EXPECT_EQ(xml,
            "<string id=\"1\" fmt=\"Committed &quot;A&amp;B&quot; &lt;x&gt; &apos;y&apos; \xC2\xB5\">"
            "Committed &quot;A&amp;B&quot; &lt;x&gt; &apos;y&apos; \xC2\xB5</string>");
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(WriteTable(Table{{"t", "", false, {{"s", "S", "string"}}}, {{String(nasty)}}}), &doc));
  const pugi::xml_node cell = Rows(doc).at(0).first_child();
  EXPECT_EQ(cell.attribute("fmt").value(), nasty);
  EXPECT_EQ(cell.child_value(), nasty);
}

TEST(CellTest, AttributeOnlyElementsSelfCloseAndUninternedElementsGetNoId) {
  Cell binary = LeafWithoutFmt("binary", "");
  binary.attrs = {{"name", "dyld"}, {"path", "/usr/lib/dyld"}};
  Cell source = LeafWithoutFmt("source", "");
  source.interned = false;
  source.attrs = {{"line", "7"}};
  source.children = {LeafWithoutFmt("path", "/a.c")};
  EXPECT_EQ(RowXml({binary, binary, source, source}),
            "<binary id=\"1\" name=\"dyld\" path=\"/usr/lib/dyld\"/><binary ref=\"1\"/>"
            "<source line=\"7\"><path id=\"2\">/a.c</path></source>"
            "<source line=\"7\"><path ref=\"2\"/></source>");
}

// ---------------------------------------------------------------------------------
// Interning
// ---------------------------------------------------------------------------------

TEST(InterningTest, SameTagAndContentIsARefDifferentTagIsNot) {
  // §7.5: the same number under uint32 and metal-command-buffer-id gets two ids.
  EXPECT_EQ(RowXml({Uint32(1594567233), CommandBufferId(1594567233), Uint32(1594567233)}),
            "<uint32 id=\"1\" fmt=\"1594567233\">1594567233</uint32>"
            "<metal-command-buffer-id id=\"2\" fmt=\"0x5f0b2a41\">1594567233</metal-command-buffer-id>"
            "<uint32 ref=\"1\"/>");
  // Same text, different fmt: different values.
  EXPECT_EQ(RowXml({Leaf("x", "1", "a"), Leaf("x", "1", "b")}),
            "<x id=\"1\" fmt=\"a\">1</x><x id=\"2\" fmt=\"b\">1</x>");
}

TEST(InterningTest, TopLevelProcessRefsTheProcessNestedInAThreadInALabel) {
  DriverIntervalRow row;
  row.start_ns = 329138291;
  row.duration_ns = 197584;
  row.depth = 0;
  row.label = "Compositor";
  row.connection_uuid = 78;
  row.color = 3;
  row.thread = {"com.apple.coreanimation.display.primary", 2543, {"backboardd", 75}};
  DriverIntervalRow encoder = row;
  encoder.depth = 1;
  encoder.start_ns += 9625;
  encoder.label = "coreanimation.assembly-encoder";
  const std::string bytes = WriteDriverIntervals({row, encoder});

  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  ASSERT_TRUE(InterningIsValid(doc));
  ASSERT_TRUE(RowsMatchSchema(doc));
  const std::vector<pugi::xml_node> rows = Rows(doc);
  ASSERT_EQ(rows.size(), 2u);
  // Columns: 5 event-label, 9 process, 10 thread.
  const std::vector<pugi::xml_node> cells = ElementChildren(rows[0]);
  const pugi::xml_node nested_thread = cells[5].child("thread");
  const pugi::xml_node nested_process = nested_thread.child("process");
  ASSERT_TRUE(nested_process);
  EXPECT_STREQ(cells[5].attribute("id").value(), "6");
  EXPECT_STREQ(nested_thread.attribute("id").value(), "9");
  EXPECT_STREQ(nested_process.attribute("id").value(), "11");
  EXPECT_STREQ(nested_process.child("pid").child_value(), "75");
  EXPECT_STREQ(cells[9].name(), "process");
  EXPECT_STREQ(cells[9].attribute("ref").value(), "11");
  EXPECT_STREQ(cells[10].attribute("ref").value(), "9");
  EXPECT_FALSE(cells[9].first_child());
  // The encoder row refs both again, and its label defines only a label.
  const std::vector<pugi::xml_node> cells2 = ElementChildren(rows[1]);
  EXPECT_STREQ(cells2[9].attribute("ref").value(), "11");
  EXPECT_STREQ(cells2[10].attribute("ref").value(), "9");
  EXPECT_THAT(bytes, HasSubstr("<formatted-label id=\"6\" fmt=\"Compositor  ( "
                               "com.apple.coreanimation.display.primary (0x9ef) (backboardd, pid: 75) )\">"
                               "<metal-object-label id=\"7\" fmt=\"Compositor\">Compositor</metal-object-label>"
                               "<narrative-text id=\"8\" fmt=\" (\"> (</narrative-text>"));
}

TEST(InterningTest, ChildOfANewCompositeRefsAnEarlierChild) {
  // A second process shares the device session: its child is a ref (JS row 3).
  EXPECT_EQ(RowXml({Process("a", 1), Process("b", 2)}),
            "<process id=\"1\" fmt=\"a (1)\"><pid id=\"2\" fmt=\"1\">1</pid>"
            "<device-session id=\"3\" fmt=\"TODO\">TODO</device-session></process>"
            "<process id=\"4\" fmt=\"b (2)\"><pid id=\"5\" fmt=\"2\">2</pid>"
            "<device-session ref=\"3\"/></process>");
}

TEST(InterningTest, OffWritesNoIdOrRef) {
  WriteOptions options;
  options.intern = false;
  const std::string bytes = WriteTable(*RandomMetalTable(kDriverIntervalsSchema, 30, 7), options);
  EXPECT_EQ(bytes.find(" id=\""), std::string::npos);
  EXPECT_EQ(bytes.find(" ref=\""), std::string::npos);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(RowsMatchSchema(doc));
  // Command-buffer rows (every third) nest the thread in their label as well.
  EXPECT_EQ(CountOf(bytes, "<process fmt=\""), 10u * 3 + 20u * 2);
}

class RandomTableTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomTableTest, IsWellFormedInternedAndMatchesSchema) {
  std::optional<Table> table = RandomMetalTable(GetParam(), 60, 42);
  ASSERT_TRUE(table.has_value());
  const std::string bytes = WriteTable(*table);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  InternStats stats;
  EXPECT_TRUE(InterningIsValid(doc, &stats));
  EXPECT_GT(stats.refs, 0u);
  EXPECT_TRUE(RowsMatchSchema(doc));
  EXPECT_EQ(Rows(doc).size(), 60u);
  EXPECT_STREQ(doc.child("trace-query-result").child("node").child("schema").attribute("name").value(),
               GetParam().c_str());
  // Deterministic for a seed.
  EXPECT_EQ(bytes, WriteTable(*RandomMetalTable(GetParam(), 60, 42)));
  EXPECT_NE(bytes, WriteTable(*RandomMetalTable(GetParam(), 60, 43)));
}

INSTANTIATE_TEST_SUITE_P(AllMetalSchemas, RandomTableTest, ::testing::ValuesIn(MetalSchemaNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(RandomTableTest, UnknownSchemaIsNullopt) {
  EXPECT_FALSE(RandomMetalTable("metal-nonsense", 3, 1).has_value());
  EXPECT_FALSE(FindMetalSchema("metal-nonsense").has_value());
}

// ---------------------------------------------------------------------------------
// Document layout
// ---------------------------------------------------------------------------------

std::vector<ExecutionPointRow> TwoSubmissions() {
  return {ExecutionPointRow::Start(329899666, 0x123457, 1594567233),
          ExecutionPointRow::End(330007916, 0x123457, 1594567233),
          ExecutionPointRow::Start(330008291, 0x123458, 1594567232),
          ExecutionPointRow::End(330942583, 0x123458, 1594567232)};
}

TEST(LayoutTest, SkeletonMatchesARealExport) {
  const std::string bytes = WriteExecutionPoints(TwoSubmissions());
  EXPECT_THAT(bytes, StartsWith("<?xml version=\"1.0\"?>\n<trace-query-result>\n"
                                "<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'>"
                                "<schema name=\"metal-gpu-execution-points\" documentation=\"Denotes an "
                                "interesting points of activity in the GPU.\"><col><mnemonic>timestamp"
                                "</mnemonic><name>Timestamp</name><engineering-type>start-time"
                                "</engineering-type></col><col><mnemonic>channel-id</mnemonic>"));
  EXPECT_THAT(bytes, HasSubstr("</col></schema><row><start-time id=\"1\" fmt=\"00:00.329.899\">329899666"
                               "</start-time><metal-command-buffer-id id=\"2\" fmt=\"0x123457\">1193047"
                               "</metal-command-buffer-id><uint32 id=\"3\" fmt=\"1\">1</uint32><uint32 id=\"4\" "
                               "fmt=\"1594567233\">1594567233</uint32><metal-command-buffer-id id=\"5\" "
                               "fmt=\"0x5f0b2a41\">1594567233</metal-command-buffer-id><uint64 id=\"6\" "
                               "fmt=\"18,446,744,073,709,551,615\">18446744073709551615</uint64><sentinel/></row>\n"
                               "<row><start-time id=\"7\" fmt=\"00:00.330.007\">330007916</start-time>"
                               "<metal-command-buffer-id ref=\"2\"/><uint32 id=\"8\" fmt=\"2\">2</uint32>"
                               "<uint32 ref=\"4\"/><metal-command-buffer-id ref=\"5\"/><uint64 ref=\"6\"/>"
                               "<string id=\"9\" fmt=\"\"></string></row>\n"));
  EXPECT_THAT(bytes, ::testing::EndsWith("<string ref=\"9\"/></row>\n</node></trace-query-result>\n"));
  EXPECT_EQ(CountOf(bytes, "\n"), 3u + 4u);
}

TEST(LayoutTest, FirstRowOnItsOwnLine) {
  WriteOptions options;
  options.first_row_on_schema_line = false;
  const std::string bytes = WriteExecutionPoints(TwoSubmissions(), options);
  EXPECT_THAT(bytes, HasSubstr("</schema>\n<row><start-time id=\"1\""));
  EXPECT_EQ(CountOf(bytes, "\n"), 4u + 4u);
}

TEST(LayoutTest, PrettyIndentsLikeXctraceprof) {
  WriteOptions options;
  options.pretty = true;
  const std::string bytes = WriteExecutionPoints(TwoSubmissions(), options);
  EXPECT_THAT(bytes, StartsWith("<?xml version=\"1.0\"?>\n<trace-query-result>\n    <node xpath="));
  EXPECT_THAT(bytes, HasSubstr("</schema><row><start-time id=\"1\""));
  EXPECT_THAT(bytes, HasSubstr("</row>\n        <row><start-time id=\"7\""));
  EXPECT_THAT(bytes, ::testing::EndsWith("</row>\n    </node></trace-query-result>\n"));
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(InterningIsValid(doc));
  EXPECT_EQ(Rows(doc).size(), 4u);
}

TEST(LayoutTest, EmptyTableAndEmptyExport) {
  EXPECT_THAT(WriteExecutionPoints({}), ::testing::EndsWith("</col></schema></node></trace-query-result>\n"));
  EXPECT_EQ(WriteExport({}), "<?xml version=\"1.0\"?>\n<trace-query-result>\n</trace-query-result>\n");
}

TEST(LayoutTest, SeveralNodesShareOneIdCounterAndSchemaLessNodesContinue) {
  Table first = ExecutionPointsTable({TwoSubmissions()[0], TwoSubmissions()[1]});
  Table continuation = ExecutionPointsTable({TwoSubmissions()[2], TwoSubmissions()[3]});
  continuation.omit_schema = true;
  Table driver = *RandomMetalTable(kDriverIntervalsSchema, 3, 1);
  const std::string bytes = WriteExport({first, continuation, driver});
  EXPECT_THAT(bytes, HasSubstr("</row>\n</node>\n<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'><row>"
                               "<start-time id=\"10\""));
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(InterningIsValid(doc));
  EXPECT_TRUE(RowsMatchSchema(doc));  // the continuation reuses the previous schema
  std::vector<pugi::xml_node> nodes;
  for (pugi::xml_node node : doc.child("trace-query-result").children("node")) nodes.push_back(node);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_TRUE(nodes[0].child("schema"));
  EXPECT_FALSE(nodes[1].child("schema"));
  EXPECT_STREQ(nodes[2].child("schema").attribute("name").value(), "metal-driver-intervals");
  // A ref crossing <node>s: the end-row note refs the empty string of node 1.
  const std::vector<pugi::xml_node> cells = ElementChildren(nodes[1].child("row").next_sibling("row"));
  EXPECT_STREQ(cells[6].attribute("ref").value(), "9");
  EXPECT_STREQ(cells[2].attribute("ref").value(), "8");
}

// ---------------------------------------------------------------------------------
// Metal tables
// ---------------------------------------------------------------------------------

TEST(MetalSchemaTest, ColumnCountsAndNames) {
  const std::map<std::string, size_t> expected = {
      {kExecutionPointsSchema, 7}, {kGpuIntervalsSchema, 18},       {kEncodersListSchema, 13},
      {kSubmissionMapSchema, 16},  {kShaderListSchema, 10},         {kCommandBufferSubmissionsSchema, 15},
      {kDriverIntervalsSchema, 14}, {kShaderProfilerIntervalsSchema, 5}};
  ASSERT_EQ(MetalSchemaNames().size(), expected.size());
  for (const std::string& name : MetalSchemaNames()) {
    std::optional<Schema> schema = FindMetalSchema(name);
    ASSERT_TRUE(schema.has_value()) << name;
    EXPECT_EQ(schema->columns.size(), expected.at(name)) << name;
    std::set<std::string> unique;
    for (const Column& c : schema->columns) unique.insert(c.mnemonic);
    EXPECT_EQ(unique.size(), schema->columns.size()) << name;
  }
}

TEST(MetalSchemaTest, ExecutionPointsColumnsFollowTheFormatDoc) {
  const Schema schema = *FindMetalSchema(kExecutionPointsSchema);
  EXPECT_THAT(Mnemonics(schema), ElementsAre("timestamp", "channel-id", "function", "slot-id",
                                             "gpu-submission-id", "accelerator-id", "note"));
  EXPECT_THAT(Types(schema), ElementsAre("start-time", "metal-command-buffer-id", "uint32", "uint32",
                                         "metal-command-buffer-id", "uint64", "string"));
  EXPECT_EQ(schema.columns[5].name, "Accelerator Id");
}

TEST(MetalSchemaTest, GpuIntervalsColumnsFollowTheFormatDoc) {
  const Schema schema = *FindMetalSchema(kGpuIntervalsSchema);
  EXPECT_THAT(Mnemonics(schema),
              ElementsAreArray({"start", "duration", "channel-name", "frame-number", "start-latency",
                                "event-depth", "event-label", "state", "connection-UUID", "color", "process",
                                "gpu", "channel-subtitle", "iosurface-accesses", "bytes", "cmdbuffer-id",
                                "encoder-id", "gpu-submission-id"}));
  EXPECT_THAT(Types(schema),
              ElementsAreArray({"start-time", "duration", "gpu-channel-name", "gpu-frame-number", "duration",
                                "metal-nesting-level", "formatted-label", "gpu-state", "connection-uuid64",
                                "render-buffer-depth", "process", "metal-device-name", "metal-object-label",
                                "formatted-label", "size-in-bytes", "metal-command-buffer-id",
                                "metal-command-buffer-id", "uint64"}));
  EXPECT_EQ(schema.columns[15].name, "Commmand Buffer Id");  // Apple's typo, kept
  EXPECT_EQ(schema.columns[4].name, "CPU to GPU Latency");
}

TEST(MetalSchemaTest, EncodersListSubmissionMapAndDriverColumnsFollowTheFormatDoc) {
  EXPECT_THAT(Mnemonics(*FindMetalSchema(kEncodersListSchema)),
              ElementsAreArray({"start", "duration", "thread", "process", "gpu", "frame-number",
                                "cmdbuffer-label", "cmdbuffer-label-indexed", "encoder-label",
                                "encoder-label-indexed", "event-type", "cmdbuffer-id", "encoder-id"}));
  const Schema map = *FindMetalSchema(kSubmissionMapSchema);
  EXPECT_THAT(Mnemonics(map),
              ElementsAreArray({"timestamp", "cmdbuffer-id", "gpu-submission-id", "segment-id",
                                "segmentlist-id", "encoder-id", "accelerator-id", "channel-id",
                                "submission-type", "metadata-1", "metadata-2", "pid", "process", "model",
                                "commit-id", "num-coalasced-encoders"}));
  EXPECT_EQ(map.columns[6].engineering_type, "uint64");
  EXPECT_EQ(map.columns[11].engineering_type, "uint32");
  EXPECT_THAT(Mnemonics(*FindMetalSchema(kDriverIntervalsSchema)),
              ElementsAreArray({"start", "duration", "gpu-driver-name", "event-type", "event-depth",
                                "event-label", "event-priority", "connection-UUID", "color", "process",
                                "thread", "gpu", "object-id", "lane"}));
  EXPECT_THAT(Mnemonics(*FindMetalSchema(kShaderProfilerIntervalsSchema)),
              ElementsAre("start", "duration", "pc", "submission-id", "datamaster"));
  EXPECT_THAT(Mnemonics(*FindMetalSchema(kCommandBufferSubmissionsSchema)),
              ElementsAreArray({"start", "duration", "event-type", "gpu", "track-label", "num-encoders",
                                "encoder-time", "process", "thread", "event-icon", "event-label",
                                "encoder-time-label", "frame-number", "color", "cmdbuffer-id"}));
  EXPECT_THAT(Mnemonics(*FindMetalSchema(kShaderListSchema)),
              ElementsAreArray({"timestamp", "name", "label", "pso-name", "id", "pc-start", "pc-end",
                                "shader-type", "process", "gpu"}));
}

TEST(MetalRowsTest, ExecutionPointNoteSlotAndAccelerator) {
  const Row start = ExecutionPointCells(ExecutionPointRow::Start(5, 0x123458, 1594567232));
  const Row end = ExecutionPointCells(ExecutionPointRow::End(6, 0x123458, 1594567232));
  EXPECT_TRUE(start[6].sentinel);
  EXPECT_FALSE(end[6].sentinel);
  EXPECT_EQ(end[6].tag, "string");
  EXPECT_EQ(end[6].text, "");
  EXPECT_TRUE(end[6].has_fmt);
  EXPECT_EQ(start[2].text, "1");
  EXPECT_EQ(end[2].text, "2");
  EXPECT_EQ(start[3].tag, "uint32");
  EXPECT_EQ(start[3].text, "1594567232");  // slot-id == gpu-submission-id
  EXPECT_EQ(start[4].text, "1594567232");
  EXPECT_EQ(start[4].fmt, "0x5f0b2a40");
  EXPECT_EQ(start[5].text, "18446744073709551615");
  EXPECT_EQ(start[1].fmt, "0x123458");
}

TEST(MetalRowsTest, UnattributedProcessIsASentinel) {
  GpuIntervalRow row;
  row.cmdbuffer_id = 7;
  const Row cells = GpuIntervalCells(row);
  EXPECT_TRUE(cells[10].sentinel);
  EXPECT_TRUE(cells[3].sentinel);  // no frame number
  row.process = ProcessInfo{"WindowServer", 181};
  row.frame_number = 1;
  const std::string bytes = WriteGpuIntervals({row});
  EXPECT_THAT(bytes, HasSubstr("fmt=\"Command Buffer 0:Compute Command 0  ( WindowServer (181) )  0x7\""));
  EXPECT_THAT(bytes, HasSubstr("<gpu-frame-number id=\"4\" fmt=\"Frame 1\">1</gpu-frame-number>"));
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(InterningIsValid(doc));
  const std::vector<pugi::xml_node> cells2 = ElementChildren(Rows(doc)[0]);
  EXPECT_TRUE(cells2[10].attribute("ref"));  // refs the process inside the label
}

TEST(ColumnEditTest, PermuteMovesColumnsAndCellsTogether) {
  Table table = ExecutionPointsTable(TwoSubmissions());
  EXPECT_FALSE(PermuteColumns(&table, {0, 1, 2}));
  EXPECT_FALSE(PermuteColumns(&table, {0, 0, 1, 2, 3, 4, 5}));
  ASSERT_TRUE(PermuteColumns(&table, {6, 5, 4, 3, 2, 1, 0}));
  EXPECT_THAT(Mnemonics(table.schema), ElementsAre("note", "accelerator-id", "gpu-submission-id", "slot-id",
                                                   "function", "channel-id", "timestamp"));
  const std::string bytes = WriteTable(table);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(RowsMatchSchema(doc));
  EXPECT_TRUE(InterningIsValid(doc));
  // Ids follow the new document order: the first row's uint64 is now id 1.
  EXPECT_THAT(bytes, HasSubstr("<row><sentinel/><uint64 id=\"1\""));
}

TEST(ColumnEditTest, InsertUnknownColumn) {
  Table table = ExecutionPointsTable(TwoSubmissions());
  InsertColumn(&table, 2, {"mystery", "Mystery", "quux-type"}, Leaf("quux-type", "7", "seven"));
  InsertColumn(&table, 99, {"tail", "Tail", "string"}, String("end"));
  EXPECT_EQ(table.schema.columns.size(), 9u);
  EXPECT_EQ(table.schema.columns[2].mnemonic, "mystery");
  EXPECT_EQ(table.schema.columns[8].mnemonic, "tail");
  const std::string bytes = WriteTable(table);
  EXPECT_THAT(bytes, HasSubstr("<uint32 id=\"4\" fmt=\"1\">1</uint32>"));
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  EXPECT_TRUE(RowsMatchSchema(doc));
  EXPECT_TRUE(InterningIsValid(doc));
  EXPECT_EQ(CountOf(bytes, "<quux-type id="), 1u);
  EXPECT_EQ(CountOf(bytes, "<quux-type ref=\"3\"/>"), 3u);
}

// ---------------------------------------------------------------------------------
// Bulk generators
// ---------------------------------------------------------------------------------

TEST(BulkTest, ExecutionPointsHitTheTargetAndLookReal) {
  constexpr size_t kTarget = 2'000'000;
  size_t rows_reported = 0;
  const std::string bytes = GenerateExecutionPointsExport(kTarget, 1, &rows_reported);
  EXPECT_GE(bytes.size(), kTarget * 95 / 100);
  EXPECT_LE(bytes.size(), kTarget * 105 / 100);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  InternStats stats;
  ASSERT_TRUE(InterningIsValid(doc, &stats));
  ASSERT_TRUE(RowsMatchSchema(doc));
  const std::vector<pugi::xml_node> rows = Rows(doc);
  EXPECT_EQ(rows.size(), rows_reported);
  EXPECT_GT(rows.size(), 5000u);
  // Most rows define 2-3 fresh ids (start 3, end 1).
  const double fresh_per_row = static_cast<double>(stats.ids) / static_cast<double>(rows.size());
  EXPECT_GT(fresh_per_row, 1.9);
  EXPECT_LT(fresh_per_row, 2.2);

  // Resolve the leaf values and check the submission model.
  std::map<std::string, std::string> text_by_id;
  PreOrder(doc.child("trace-query-result"), [&](pugi::xml_node e) {
    if (e.attribute("id")) text_by_id[e.attribute("id").value()] = e.child_value();
  });
  auto value = [&](pugi::xml_node cell) -> std::string {
    if (cell.attribute("ref")) return text_by_id.at(cell.attribute("ref").value());
    return cell.child_value();
  };
  int64_t last_ts = -1;
  std::map<std::string, std::string> open;  // submission -> channel
  std::set<std::string> channels;
  uint64_t last_submission = 0;
  for (pugi::xml_node row : rows) {
    const std::vector<pugi::xml_node> cells = ElementChildren(row);
    const int64_t ts = std::stoll(value(cells[0]));
    EXPECT_GT(ts, last_ts);
    last_ts = ts;
    const std::string channel = value(cells[1]);
    channels.insert(channel);
    const std::string function = value(cells[2]);
    const std::string submission = value(cells[4]);
    EXPECT_EQ(value(cells[3]), submission);
    EXPECT_EQ(value(cells[5]), "18446744073709551615");
    if (function == "1") {
      EXPECT_STREQ(cells[6].name(), "sentinel");
      EXPECT_EQ(open.count(submission), 0u);
      EXPECT_GT(std::stoull(submission), last_submission);
      last_submission = std::stoull(submission);
      open[submission] = channel;
    } else {
      ASSERT_EQ(function, "2");
      EXPECT_STREQ(cells[6].name(), "string");
      ASSERT_EQ(open.count(submission), 1u) << submission;
      EXPECT_EQ(open[submission], channel);
      open.erase(submission);
    }
  }
  EXPECT_TRUE(open.empty());
  EXPECT_THAT(channels, ElementsAre("1193047", "1193048"));
  // Deterministic per seed.
  EXPECT_EQ(GenerateExecutionPointsExport(50'000, 9), GenerateExecutionPointsExport(50'000, 9));
  EXPECT_NE(GenerateExecutionPointsExport(50'000, 9), GenerateExecutionPointsExport(50'000, 10));
}

TEST(BulkTest, EncodersListHitsTheTargetWithCompositesAndUtf8Labels) {
  constexpr size_t kTarget = 2'000'000;
  size_t rows_reported = 0;
  const std::string bytes = GenerateEncodersListExport(kTarget, 1, &rows_reported);
  EXPECT_GE(bytes.size(), kTarget * 95 / 100);
  EXPECT_LE(bytes.size(), kTarget * 105 / 100);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(bytes, &doc));
  ASSERT_TRUE(InterningIsValid(doc));
  ASSERT_TRUE(RowsMatchSchema(doc));
  const std::vector<pugi::xml_node> rows = Rows(doc);
  EXPECT_EQ(rows.size(), rows_reported);
  EXPECT_THAT(bytes, HasSubstr(">[0] Command Buffer 0<"));
  EXPECT_THAT(bytes, HasSubstr(">layer.12.attn_moe_ffn<"));
  EXPECT_THAT(bytes, HasSubstr(">softmax \xC2\xB5kernel<"));
  EXPECT_THAT(bytes, HasSubstr("fmt=\"\xC3\x9Cnic\xC3\xB8" "de Studio (777)\""));
  // Encoder ids rise by one per row; process cells after the first are refs.
  uint64_t last_encoder = 0;
  size_t process_refs = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<pugi::xml_node> cells = ElementChildren(rows[i]);
    ASSERT_FALSE(cells[12].attribute("ref")) << "encoder ids are fresh";
    const uint64_t encoder = std::stoull(cells[12].child_value());
    if (i > 0) {
      EXPECT_EQ(encoder, last_encoder + 1);
    }
    last_encoder = encoder;
    if (cells[3].attribute("ref")) ++process_refs;
  }
  EXPECT_EQ(process_refs, rows.size());  // always defined inside the thread just before
  EXPECT_EQ(CountOf(bytes, "<thread id="), 7u);  // seven threads in the cast
}

// ---------------------------------------------------------------------------------
// Adversarial documents
// ---------------------------------------------------------------------------------

// Byte offset of 1-based line:column.
size_t OffsetOf(const std::string& bytes, int line, int column) {
  size_t offset = 0;
  for (int l = 1; l < line; ++l) offset = bytes.find('\n', offset) + 1;
  return offset + static_cast<size_t>(column - 1);
}

struct Finding {
  std::string code;
  size_t offset;  // of the element's '<'
};

// A deliberately small validator, independent of the reader, which proves that each
// anomaly holds exactly the defect it claims and where it claims it.
std::vector<Finding> Validate(const std::string& bytes) {
  std::vector<Finding> findings;
  pugi::xml_document doc;
  if (!doc.load_buffer(bytes.data(), bytes.size(), kParseFlags)) return {{"parse_error", 0}};
  auto at = [](pugi::xml_node n) { return static_cast<size_t>(n.offset_debug() - 1); };
  pugi::xml_node root = doc.document_element();
  if (std::string(root.name()) != "trace-query-result") return {{"xctrace.unexpected_root", at(root)}};
  if (!root.child("node")) return {{"xctrace.empty_export", at(root)}};

  std::map<std::string, std::string> later_ids;  // every id in the file -> tag
  PreOrder(root, [&](pugi::xml_node e) {
    if (e.attribute("id")) later_ids.emplace(e.attribute("id").value(), e.name());
  });
  std::map<std::string, std::string> ids;
  std::function<void(pugi::xml_node)> check_cell = [&](pugi::xml_node e) {
    pugi::xml_attribute id = e.attribute("id");
    pugi::xml_attribute ref = e.attribute("ref");
    if (id && ref) {
      findings.push_back({"xctrace.id_and_ref", at(e)});
    } else if (id) {
      const std::string v = id.value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
        findings.push_back({"xctrace.bad_id", at(e)});
      } else if (!ids.emplace(v, e.name()).second) {
        findings.push_back({"xctrace.duplicate_id", at(e)});
      }
    } else if (ref) {
      auto it = ids.find(ref.value());
      if (it == ids.end()) {
        findings.push_back({later_ids.count(ref.value()) ? "xctrace.forward_ref" : "xctrace.dangling_ref", at(e)});
      } else if (it->second != e.name()) {
        findings.push_back({"xctrace.ref_tag_mismatch", at(e)});
      }
    }
    const std::string tag = e.name();
    if ((tag == "uint32" || tag == "uint64") && !ref) {
      const std::string text = e.child_value();
      const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      const bool fits = digits && (text.size() < 20 || (text.size() == 20 && text <= "18446744073709551615")) &&
                        (tag == "uint64" || std::stoull(text) <= UINT32_MAX);
      if (!fits) findings.push_back({"xctrace.bad_integer", at(e)});
    }
    for (pugi::xml_node child : ElementChildren(e)) check_cell(child);
  };
  std::vector<std::string> types;
  bool have_schema = false;
  for (pugi::xml_node node : ElementChildren(root)) {
    if (std::string(node.name()) != "node") {
      findings.push_back({"xctrace.unknown_element", at(node)});
      continue;
    }
    for (pugi::xml_node child : ElementChildren(node)) {
      const std::string name = child.name();
      if (name == "schema") {
        have_schema = true;
        types.clear();
        for (pugi::xml_node col : child.children("col")) types.push_back(col.child_value("engineering-type"));
        continue;
      }
      if (name != "row") {
        findings.push_back({"xctrace.unknown_element", at(child)});
        continue;
      }
      if (!have_schema) {
        findings.push_back({"xctrace.missing_schema", at(node)});
        return findings;
      }
      const std::vector<pugi::xml_node> cells = ElementChildren(child);
      if (cells.size() != types.size()) findings.push_back({"xctrace.arity_mismatch", at(child)});
      for (size_t i = 0; i < cells.size(); ++i) {
        const std::string tag = cells[i].name();
        if (i < types.size() && tag != types[i] && tag != "sentinel") {
          findings.push_back({"xctrace.type_mismatch", at(cells[i])});
        }
        check_cell(cells[i]);
      }
    }
  }
  return findings;
}

TEST(AnomalyTest, EveryNamedAnomalyIsThereWithItsCode) {
  const std::map<std::string, std::string> expected = {
      {"dangling_ref", "xctrace.dangling_ref"},     {"forward_ref", "xctrace.forward_ref"},
      {"duplicate_id", "xctrace.duplicate_id"},     {"ref_tag_mismatch", "xctrace.ref_tag_mismatch"},
      {"arity_short", "xctrace.arity_mismatch"},    {"arity_long", "xctrace.arity_mismatch"},
      {"type_mismatch", "xctrace.type_mismatch"},   {"id_and_ref", "xctrace.id_and_ref"},
      {"bad_id", "xctrace.bad_id"},                 {"missing_schema", "xctrace.missing_schema"},
      {"empty_export", "xctrace.empty_export"},     {"truncated", "xctrace.truncated"},
      {"bad_utf8", "xctrace.bad_utf8"},             {"huge_number", "xctrace.bad_integer"},
      {"negative_uint", "xctrace.bad_integer"},     {"uint32_overflow", "xctrace.bad_integer"},
      {"not_xml", "xctrace.not_xml"},               {"empty_file", "xctrace.empty_file"},
      {"unknown_element", "xctrace.unknown_element"}, {"wrong_root", "xctrace.unexpected_root"}};
  std::map<std::string, std::string> actual;
  for (const Anomaly& a : AllAnomalies()) {
    EXPECT_TRUE(actual.emplace(a.name, a.expected_code).second) << "duplicate name " << a.name;
    EXPECT_FALSE(a.description.empty()) << a.name;
    EXPECT_EQ(a.bytes.empty(), a.name == "empty_file") << a.name;
  }
  EXPECT_EQ(actual, expected);
  ASSERT_TRUE(FindAnomaly("forward_ref").has_value());
  EXPECT_FALSE(FindAnomaly("no_such_anomaly").has_value());
}

TEST(AnomalyTest, LocationsPointAtTheOffendingByte) {
  for (const Anomaly& a : AllAnomalies()) {
    SCOPED_TRACE(a.name);
    if (a.name == "empty_file") {
      EXPECT_EQ(a.line, 1);
      EXPECT_EQ(a.column, 1);
      continue;
    }
    ASSERT_GE(a.line, 1);
    ASSERT_GE(a.column, 1);
    const size_t offset = OffsetOf(a.bytes, a.line, a.column);
    ASSERT_LT(offset, a.bytes.size());
    if (a.name == "bad_utf8") {
      EXPECT_EQ(static_cast<unsigned char>(a.bytes[offset]), 0xE9);
      EXPECT_EQ(a.bytes.find('\xE9'), offset) << "the first bad byte";
      continue;
    }
    EXPECT_EQ(a.bytes[offset], '<');
  }
  // Spot checks of what sits at the location.
  auto at = [](const std::string& name) {
    const Anomaly a = *FindAnomaly(name);
    return a.bytes.substr(OffsetOf(a.bytes, a.line, a.column), 40);
  };
  EXPECT_THAT(at("dangling_ref"), StartsWith("<uint64 ref=\"99\"/>"));
  EXPECT_THAT(at("not_xml"), StartsWith("</uint64>"));
  EXPECT_THAT(at("truncated"), StartsWith("<row><start-time id=\"7\""));
  EXPECT_THAT(at("unknown_element"), StartsWith("<bogus/>"));
  EXPECT_THAT(at("missing_schema"), StartsWith("<node xpath="));
  EXPECT_THAT(at("wrong_root"), StartsWith("<trace-query-response>"));
  EXPECT_EQ(FindAnomaly("empty_export")->line, 2);
  EXPECT_EQ(FindAnomaly("empty_export")->column, 1);
}

TEST(AnomalyTest, WellFormedOnesParseAndHoldExactlyTheirDefect) {
  const std::set<std::string> malformed = {"not_xml", "truncated", "bad_utf8", "empty_file"};
  for (const Anomaly& a : AllAnomalies()) {
    SCOPED_TRACE(a.name);
    pugi::xml_document doc;
    const bool parsed = static_cast<bool>(doc.load_buffer(a.bytes.data(), a.bytes.size(), kParseFlags));
    if (a.name == "bad_utf8") continue;  // pugixml does not validate UTF-8
    if (malformed.count(a.name)) {
      EXPECT_FALSE(parsed);
      continue;
    }
    ASSERT_TRUE(parsed);
    const std::vector<Finding> findings = Validate(a.bytes);
    ASSERT_EQ(findings.size(), 1u) << (findings.empty() ? "none" : findings[0].code + ", " + findings[1].code);
    EXPECT_EQ(findings[0].code, a.expected_code);
    EXPECT_EQ(findings[0].offset, OffsetOf(a.bytes, a.line, a.column));
  }
}

TEST(AnomalyTest, TheValidatorPassesGeneratedDocuments) {
  for (const std::string& schema : MetalSchemaNames()) {
    EXPECT_THAT(Validate(WriteTable(*RandomMetalTable(schema, 20, 3))), ::testing::IsEmpty()) << schema;
  }
  // And the anomaly base with the bad UTF-8 byte repaired.
  std::string repaired = FindAnomaly("bad_utf8")->bytes;
  std::replace(repaired.begin(), repaired.end(), '\xE9', 'e');
  EXPECT_THAT(Validate(repaired), ::testing::IsEmpty());
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(repaired, &doc));
  EXPECT_TRUE(InterningIsValid(doc));
}

// ---------------------------------------------------------------------------------
// Conformance with real exports (shared/corpus; skipped when absent)
// ---------------------------------------------------------------------------------

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Turns a parsed element into a Cell, replacing refs by the subtree they stand for
// (§7.6), so that re-interning it must reproduce the original ids and refs.
Cell ToCell(pugi::xml_node e, std::map<std::string, Cell>* defined) {
  if (pugi::xml_attribute ref = e.attribute("ref")) return defined->at(ref.value());
  Cell cell;
  cell.tag = e.name();
  if (cell.tag == "sentinel") return Cell::Sentinel();
  for (pugi::xml_attribute attr : e.attributes()) {
    const std::string name = attr.name();
    if (name == "id") continue;
    if (name == "fmt") {
      cell.has_fmt = true;
      cell.fmt = attr.value();
    } else {
      cell.attrs.emplace_back(name, attr.value());
    }
  }
  for (pugi::xml_node child : e.children()) {
    if (child.type() == pugi::node_pcdata) cell.text += child.value();
    if (child.type() == pugi::node_element) cell.children.push_back(ToCell(child, defined));
  }
  cell.interned = static_cast<bool>(e.attribute("id"));
  if (cell.interned) (*defined)[e.attribute("id").value()] = cell;
  return cell;
}

std::vector<Table> ToTables(const pugi::xml_document& doc) {
  std::vector<Table> tables;
  std::map<std::string, Cell> defined;
  for (pugi::xml_node node : doc.child("trace-query-result").children("node")) {
    Table table;
    const std::string xpath = node.attribute("xpath").value();
    table.toc_index = std::stoi(xpath.substr(xpath.rfind('[') + 1));
    pugi::xml_node schema = node.child("schema");
    table.omit_schema = !schema;
    table.schema.name = schema.attribute("name").value();
    table.schema.has_documentation = static_cast<bool>(schema.attribute("documentation"));
    table.schema.documentation = schema.attribute("documentation").value();
    for (pugi::xml_node col : schema.children("col")) {
      table.schema.columns.push_back(
          {col.child_value("mnemonic"), col.child_value("name"), col.child_value("engineering-type")});
    }
    for (pugi::xml_node row : node.children("row")) {
      Row cells;
      for (pugi::xml_node cell : ElementChildren(row)) cells.push_back(ToCell(cell, &defined));
      table.rows.push_back(std::move(cells));
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

class CorpusRoundTripTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CorpusRoundTripTest, WriterReproducesTheRealBytes) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, std::string("xctrace/") + GetParam());
  std::string original = ReadFile(path);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(original, &doc));
  WriteOptions options;
  options.first_row_on_schema_line = original.find("</schema><row>") != std::string::npos;
  options.pretty = original.find("\n    <node") != std::string::npos;
  const std::string written = WriteExport(ToTables(doc), options);
  // One hand-edited fixture lost its final newline.
  if (!original.empty() && original.back() != '\n') original.push_back('\n');
  ASSERT_EQ(written.size(), original.size());
  EXPECT_TRUE(written == original);
}

INSTANTIATE_TEST_SUITE_P(
    RealExports, CorpusRoundTripTest,
    ::testing::Values("JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml",
                      "JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml",
                      "xctrace-query-mcp-server/display-surface-swap.xml",
                      "xctrace-query-mcp-server/display-vsyncs-interval.xml",
                      "xctrace-query-mcp-server/displayed-surfaces-interval.xml",
                      "xctraceprof/cpu-profile.xml", "xctraceprof/time-profile.xml"));

// The typed builders, fed the values of real rows, must write the real bytes.
TEST(CorpusBuilderTest, ExecutionPointRowsReproduceTheRealExport) {
  PERFGATE_CORPUS_FILE_OR_SKIP(
      path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml");
  const std::string original = ReadFile(path);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(original, &doc));
  std::vector<ExecutionPointRow> rows;
  const std::vector<Table> tables = ToTables(doc);
  for (const Row& cells : tables.at(0).rows) {
    ExecutionPointRow row;
    row.timestamp_ns = std::stoll(cells[0].text);
    row.channel_id = std::stoull(cells[1].text);
    row.function = static_cast<uint32_t>(std::stoul(cells[2].text));
    row.submission_id = std::stoull(cells[4].text);
    row.accelerator_id = std::stoull(cells[5].text);
    row.note_sentinel = cells[6].sentinel;
    rows.push_back(row);
  }
  ASSERT_GT(rows.size(), 10u);
  EXPECT_TRUE(WriteExecutionPoints(rows) == original);
}

TEST(CorpusBuilderTest, DriverIntervalRowsReproduceTheRealExport) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  const std::string original = ReadFile(path);
  pugi::xml_document doc;
  ASSERT_TRUE(Parses(original, &doc));
  // Names come from fmt strings: "name (pid)" and "name (0xtid) (process, pid: N)".
  auto before_last = [](const std::string& s, const std::string& sep) { return s.substr(0, s.rfind(sep)); };
  std::vector<DriverIntervalRow> rows;
  const std::vector<Table> tables = ToTables(doc);
  for (const Row& cells : tables.at(0).rows) {
    DriverIntervalRow row;
    row.start_ns = std::stoll(cells[0].text);
    row.duration_ns = std::stoll(cells[1].text);
    row.driver_name = cells[2].text;
    row.depth = static_cast<uint32_t>(std::stoul(cells[4].text));
    row.label = cells[5].children.at(0).text;
    row.priority = std::stoull(cells[6].text);
    row.connection_uuid = std::stoull(cells[7].text);
    row.color = static_cast<uint32_t>(std::stoul(cells[8].text));
    const Cell& thread = cells[10];
    const Cell& process = cells[9];
    row.thread.tid = std::stoull(thread.children.at(0).text);
    row.thread.name = thread.fmt.substr(0, thread.fmt.find(" (" + thread.children.at(0).fmt + ")"));
    row.thread.process = {before_last(process.fmt, " ("), std::stoll(process.children.at(0).text)};
    row.gpu = cells[11].text;
    row.object_id = std::stoull(cells[12].text);
    rows.push_back(row);
  }
  ASSERT_GT(rows.size(), 10u);
  Table table = DriverIntervalsTable(rows);
  table.toc_index = 51;
  EXPECT_TRUE(WriteTable(table) == original);
}

}  // namespace
}  // namespace perfgate::gen
