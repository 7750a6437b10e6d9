// Inputs crafted to crash, hang or exhaust the reader and `perfgate table`'s writers
// (issue #12): depth and fan-out through refs, forbidden characters, markup that hides
// end tags, and output that expands refs. The "never finishes" cases are sized so that
// the old code took minutes; ctest's timeout catches a regression (no timing here).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/table_dump.h"
#include "xctrace/xml_chars.h"

namespace perfgate::xctrace {
namespace {

std::string OneColumn(const std::string& type, const std::string& rows) {
  return "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node xpath='//trace-toc[1]/run[1]/data[1]/table[1]'>"
         "<schema name=\"s\"><col><mnemonic>c</mnemonic><name>C</name><engineering-type>" +
         type + "</engineering-type></col></schema>\n" + rows + "</node></trace-query-result>\n";
}

// "line:col" of the first `marker`, as the reader reports positions.
std::string At(const std::string& text, const std::string& marker) {
  const size_t off = text.find(marker);
  const size_t line_start = text.rfind('\n', off);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(off), '\n'));
  return std::to_string(line) + ":" + std::to_string(off - (line_start == std::string::npos ? 0 : line_start + 1) + 1);
}

std::string ErrorOf(const std::string& xml) {
  auto doc = ReadExportBuffer(xml, "t.xml");
  return doc.ok() ? "ok" : doc.status().ToString();
}

// Level k defines level k-1 and refs it again: 2**levels paths through 2*levels elements.
std::string Dag(int levels) {
  std::string text = "<x id=\"1\"><y>0</y></x>";
  for (int k = 2; k <= levels; ++k) {
    text = "<x id=\"" + std::to_string(k) + "\">" + text + "<x ref=\"" + std::to_string(k - 1) + "\"/></x>";
  }
  return text;
}

TEST(XctraceHardening, DepthThroughRefsIsBoundedLikeNesting) {
  // Each row's value holds a ref to the previous row's: 2 levels of nesting, 200 through refs.
  std::string rows = "<row><thread fmt=\"t\"><a id=\"1\"><b>x</b></a></thread></row>\n";
  for (int i = 2; i <= 200; ++i) {
    rows += "<row><thread fmt=\"t\"><a id=\"" + std::to_string(i) + "\"><a ref=\"" + std::to_string(i - 1) +
            "\"/></a></thread></row>\n";
  }
  const std::string xml = OneColumn("thread", rows);
  const std::string error = ErrorOf(xml);
  // The thread holding a_64 (64 levels) is the first value 65 levels high.
  EXPECT_EQ(error.substr(0, error.find("]") + 1), "t.xml:" + At(xml, "<thread fmt=\"t\"><a id=\"64\">") +
                                                       ": error[xctrace.too_deep]");
}

TEST(XctraceHardening, SixtyFourLevelsThroughRefsStillRead) {
  std::string rows = "<row><thread fmt=\"t\"><a id=\"1\"><b>x</b></a></thread></row>\n";
  for (int i = 2; i <= 63; ++i) {
    rows += "<row><thread fmt=\"t\"><a id=\"" + std::to_string(i) + "\"><a ref=\"" + std::to_string(i - 1) +
            "\"/></a></thread></row>\n";
  }
  auto doc = ReadExportBuffer(OneColumn("thread", rows), "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->table(0).cell(62, 0).Find("b").text(), "x");
}

TEST(XctraceHardening, FindThroughADagVisitsEachValueOnce) {
  // The pid comes after 2**40 paths: a depth-first walk over paths never got there.
  const std::string xml =
      OneColumn("process", "<row><process fmt=\"p (7)\">" + Dag(40) + "<pid>7</pid></process></row>\n");
  auto doc = ReadExportBuffer(xml, "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  const Value process = doc->table(0).cell(0, 0);
  EXPECT_EQ(process.Find("pid").AsInt64(), 7);
  EXPECT_TRUE(process.Find("absent").is_missing());
  EXPECT_EQ(process.Find("y").text(), "0");  // under the deepest <x>: found through memoised levels
}

TEST(XctraceHardening, FindKeepsDepthFirstPreOrder) {
  const std::string xml = OneColumn(
      "thread", "<row><thread fmt=\"t\"><a><b><tid>1</tid></b></a><tid>2</tid></thread></row>\n"
                "<row><thread fmt=\"t\"><tid id=\"9\">3</tid><a><tid>4</tid></a></thread></row>\n");
  auto doc = ReadExportBuffer(xml, "t.xml");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->table(0).cell(0, 0).Find("tid").text(), "1");  // deeper but earlier wins
  EXPECT_EQ(doc->table(0).cell(1, 0).Find("tid").text(), "3");
  EXPECT_EQ(doc->table(0).cell(0, 0).Find("b").Find("tid").text(), "1");
}

TEST(XctraceHardening, ForbiddenCharacterReferencesAreErrorsWhereTheyAre) {
  for (const std::string ref : {"&#0;", "&#x0;", "&#1;", "&#x1F;", "&#xD800;", "&#xFFFE;", "&#xFFFF;", "&#x110000;",
                                "&#99999999999;"}) {
    const std::string xml = OneColumn("string", "<row><string>ab" + ref + "cd</string></row>\n");
    const std::string error = ErrorOf(xml);
    EXPECT_EQ(error.substr(0, error.find("]") + 1), "t.xml:" + At(xml, ref) + ": error[xctrace.bad_char]") << ref;
  }
}

TEST(XctraceHardening, AllowedCharacterReferencesDecode) {
  auto doc = ReadExportBuffer(OneColumn("string", "<row><string>&#x41;&#9;&#xE9;&#x1F600;&#65533;</string></row>\n"),
                              "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->table(0).cell(0, 0).text(), "A\t\xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBD");
}

TEST(XctraceHardening, RawControlBytesAreErrors) {
  const std::string xml = OneColumn("string", std::string("<row><string>a\0b</string></row>\n", 32));
  const std::string error = ErrorOf(xml);
  EXPECT_EQ(error.substr(0, error.find("]") + 1),
            "t.xml:" + At(xml, std::string(1, '\0')) + ": error[xctrace.bad_char]");
}

// The checks split the buffer in two halves on two cores: each half's first hit, the
// first half's winning, must be the one pass's first hit wherever the cut falls (in a
// reference, in a comment hiding a reference, in a noncharacter's bytes).
TEST(XctraceHardening, TheFirstForbiddenCharacterOfTwoHalvesIsTheWholeBuffersFirst) {
  const std::vector<std::string> buffers = {
      "<a>ok &#x41; <!-- &#0; in a comment --> text &#0; then \x01 raw and \xEF\xBF\xBE</a>",
      "<a><![CDATA[ &#1; ]]> fine &#xFFFE; later</a>",
      "<a>no hit at all, &#65; &amp; \xEF\xBF\xBD</a>",
      "<a>\xEF\xBF\xBF at the start</a>",
      std::string("<a>raw \0 NUL</a>", 16),
  };
  for (const std::string& b : buffers) {
    const internal::OpaqueRanges opaque = internal::FindOpaqueRanges(b);
    const auto whole = internal::FindForbiddenChar(b, opaque);
    for (size_t cut = 0; cut <= b.size(); ++cut) {
      auto first = internal::FindForbiddenChar(b, opaque, 0, cut);
      if (!first) first = internal::FindForbiddenChar(b, opaque, cut, b.size());
      ASSERT_EQ(first.has_value(), whole.has_value()) << b << " cut at " << cut;
      if (whole) {
        EXPECT_EQ(first->offset, whole->offset) << b << " cut at " << cut;
        EXPECT_EQ(first->message, whole->message) << b << " cut at " << cut;
      }
    }
  }
}

// The same through the reader, on an export large enough for the two-core checks
// (4 MiB): the place of each error is found by searching the text for its marker.
TEST(XctraceHardening, ChecksOnTwoCoresReportWhatOnePassFinds) {
  std::string rows;
  while (rows.size() < (size_t{5} << 20)) rows += "<row><string>abcdefgh</string></row>\n";
  const std::string xml = OneColumn("string", rows);
  const size_t late = xml.size() * 3 / 4, early = xml.size() / 4;
  auto with = [&](std::vector<std::pair<size_t, std::string>> edits) {
    std::string x = xml;
    std::sort(edits.rbegin(), edits.rend());
    for (const auto& [at, text] : edits) x.insert(x.find("abcdefgh", at) + 2, text);
    return x;
  };
  auto code_at = [](const std::string& x, const std::string& marker) {
    const std::string e = ErrorOf(x);
    return e.substr(0, e.find("]") + 1) == "t.xml:" + At(x, marker) + ": error[" +
                                               (marker == "\xFF" ? "xctrace.bad_utf8" : "xctrace.bad_char") + "]";
  };
  const std::string second_half_only = with({{late, "&#1;"}});
  EXPECT_TRUE(code_at(second_half_only, "&#1;")) << ErrorOf(second_half_only);
  const std::string both = with({{early, "&#2;"}, {late, "&#1;"}});
  EXPECT_TRUE(code_at(both, "&#2;")) << ErrorOf(both);
  // A comment across the middle hides its reference; the real one after it counts.
  std::string hidden = xml;
  const size_t mid = hidden.find("</row>", hidden.size() / 2 - 100) + 6;
  hidden.insert(mid, "<!-- &#0; " + std::string(400, 'x') + " -->");
  hidden.insert(hidden.find("abcdefgh", late) + 2, "&#3;");
  EXPECT_TRUE(code_at(hidden, "&#3;")) << ErrorOf(hidden);
  // Bad UTF-8 anywhere is reported before any forbidden character, as one pass does.
  const std::string utf8_late = with({{early, "&#2;"}, {late, "\xFF"}});
  EXPECT_TRUE(code_at(utf8_late, "\xFF")) << ErrorOf(utf8_late);
}

TEST(XctraceHardening, CdataTextIsKeptAndItsEndTagsAreText) {
  auto doc = ReadExportBuffer(OneColumn("string", "<row><string><![CDATA[a</node>b</row>c&#0;]]></string></row>\n"
                                                  "<row><string>d</string></row>\n"),
                              "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->table(0).row_count(), 2u);
  EXPECT_EQ(doc->table(0).cell(0, 0).text(), "a</node>b</row>c&#0;");
  EXPECT_EQ(doc->table(0).cell(1, 0).text(), "d");
}

TEST(XctraceHardening, CommentHidingEndTagsAcrossAChunkBoundary) {
  // Rows past the 1 MiB chunk size, then a comment full of "</row>" and "</node>"
  // straddling the boundary: the chunker must step over it.
  std::string rows;
  int n = 0;
  while (rows.size() < (1u << 20) - 2000) {
    rows += "<row><string>r" + std::to_string(n++) + "</string></row>\n";
  }
  rows += "<!--";
  for (int i = 0; i < 500; ++i) rows += " </row></node> ";
  rows += "-->\n<row><string>last</string></row>\n";
  auto doc = ReadExportBuffer(OneColumn("string", rows), "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->table(0).row_count(), static_cast<size_t>(n + 1));
  EXPECT_EQ(doc->table(0).cell(static_cast<size_t>(n), 0).text(), "last");
}

TEST(XctraceHardening, TextSplitByACommentIsAnError) {
  const std::string xml = OneColumn("string", "<row><string>ab<!-- x -->cd</string></row>\n");
  const std::string error = ErrorOf(xml);
  EXPECT_EQ(error.substr(0, error.find("]") + 1), "t.xml:" + At(xml, "cd") + ": error[xctrace.split_text]");
}

TEST(XctraceHardening, TableJsonStopsAtItsBoundInsteadOfExpandingRefs) {
  const std::string xml = OneColumn("thread", "<row><thread fmt=\"t\">" + Dag(40) + "</thread></row>\n");
  auto doc = ReadExportBuffer(xml, "t.xml");
  ASSERT_TRUE(doc.ok());
  std::ostringstream out;
  Status s = WriteTableJson(*doc, doc->table(0), out);
  EXPECT_EQ(s.code(), "xctrace.output_too_large");
  EXPECT_EQ(s.location().line, 4);  // the row
  EXPECT_LE(out.str().size(), TableOutputBound(*doc));
  EXPECT_EQ(TableOutputBound(*doc), 64 * xml.size() + (1u << 20));
}

TEST(XctraceHardening, ASharedBudgetBoundsSeveralTables) {
  const std::string xml = OneColumn("string", "<row><string id=\"1\">" + std::string(100000, 'L') +
                                                  "</string></row>\n<row><string ref=\"1\"/></row>\n");
  auto doc = ReadExportBuffer(xml, "t.xml");
  ASSERT_TRUE(doc.ok());
  uint64_t budget = TableOutputBound(*doc);
  std::ostringstream out;
  int written = 0;
  while (WriteTableJson(*doc, doc->table(0), out, &budget).ok()) ++written;
  // Each dump is ~200 KB and the bound ~7.4 MB: a few dozen fit, not more.
  EXPECT_LE(out.str().size(), TableOutputBound(*doc));
  EXPECT_GT(written, 10);
  EXPECT_LT(written, 40);
}

TEST(XctraceHardening, CsvIsBoundedToo) {
  std::string rows = "<row><string id=\"1\">" + std::string(200000, 'L') + "</string></row>\n";
  for (int i = 0; i < 2000; ++i) rows += "<row><string ref=\"1\"/></row>\n";
  auto doc = ReadExportBuffer(OneColumn("string", rows), "t.xml");
  ASSERT_TRUE(doc.ok());
  std::ostringstream out;
  EXPECT_EQ(WriteTableCsv(*doc, doc->table(0), out).code(), "xctrace.output_too_large");
  EXPECT_LE(out.str().size(), TableOutputBound(*doc));
}

TEST(XctraceHardening, ManyDistinctChildTagsDumpInLinearTime) {
  std::string cell = "<thread fmt=\"w\">";
  for (int i = 0; i < 65535; ++i) {
    const std::string n = std::to_string(i);
    cell += "<t" + n + ">" + n + "</t" + n + ">";
  }
  cell += "<t7>again</t7></thread>";
  // One more child than the limit would be too many: 65,535 tags plus a repeat is 65,536.
  const std::string within = OneColumn("thread", "<row>" + cell.substr(0, cell.size() - 23) + "</thread></row>\n");
  auto doc = ReadExportBuffer(within, "t.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  std::ostringstream out;
  ASSERT_TRUE(WriteTableJson(*doc, doc->table(0), out).ok());
  EXPECT_NE(out.str().find(",\"t0\":\"0\",\"t1\":\"1\","), std::string::npos);
  EXPECT_NE(out.str().find(",\"t65534\":\"65534\"}"), std::string::npos);
  EXPECT_NE(ErrorOf(OneColumn("thread", "<row>" + cell + "</row>\n")).find("error[xctrace.too_wide]"),
            std::string::npos);
}

TEST(XctraceHardening, RepeatedChildTagsStillGroupIntoArraysInFirstAppearanceOrder) {
  auto doc = ReadExportBuffer(
      OneColumn("thread", "<row><thread fmt=\"t\"><b>1</b><a>2</a><b>3</b></thread></row>\n"), "t.xml");
  ASSERT_TRUE(doc.ok());
  std::ostringstream out;
  ASSERT_TRUE(WriteTableJson(*doc, doc->table(0), out).ok());
  EXPECT_NE(out.str().find("{\"fmt\":\"t\",\"b\":[\"1\",\"3\"],\"a\":\"2\"}"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace perfgate::xctrace
