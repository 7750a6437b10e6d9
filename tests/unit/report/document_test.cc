// The report document and its formats, registered once (perfgate/document/render.h):
// each format's layout of a small document whose every figure is written below, and
// the errors for a format that does not exist or does not apply.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfgate/document/document.h"
#include "perfgate/document/render.h"

namespace perfgate::document {
namespace {

using ::testing::HasSubstr;

// A title, one table of every kind of cell, a note and a chart of two points.
Document Sample() {
  Table t{"sample",
          {{"#", Align::kRight, 3}, {"name", Align::kLeft, 8}, {"value", Align::kRight, 0}, {"note", Align::kLeft, 0}},
          {}};
  t.rows.push_back({Cell::Integer(1), Cell::Text("short"), Cell::Fixed(1.23456, 2), Cell::Text("a, \"b\"")});
  t.rows.push_back({Cell::Integer(2), Cell::Text("a longer name"), Cell::Missing(), Cell::Text("x|y")});
  t.rows.push_back({Cell::Integer(3), Cell::Text("written"), Cell::Written("1070.520", 1070.52), Cell::Text("")});
  LineChart chart{"chart", {"first", "second"}, {{"value", {Cell::Fixed(1.5, 1), Cell::Missing()}}}, {}};
  Document d;
  d.blocks = {Heading{"Title", 3, false}, t, Paragraph{"A note."}, chart};
  d.json = "{}\n";
  return d;
}

TEST(ReportDocument, TextAlignsColumnsAndCutsAFixedWidthCell) {
  const StatusOr<std::string> text = Render(Sample(), "text");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  // Widths: "#" fixed at 3, name fixed at 8 ("a longe…"), value as wide as its widest
  // cell ("1070.520", 8), note not padded, being last, and no line ends in a space; a
  // rule under the titles.
  EXPECT_EQ(*text,
            "Title\n"
            "\n"
            "  #  name         value  note\n"
            "-----------------------------\n"
            "  1  short         1.23  a, \"b\"\n"
            "  2  a longe…         —  x|y\n"
            "  3  written   1070.520\n"
            "\n"
            "A note.\n");
}

TEST(ReportDocument, MarkdownEscapesPipesAndAlignsNumbersRight) {
  const StatusOr<std::string> md = Render(Sample(), "markdown");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(*md,
            "#### Title\n"
            "\n"
            "| # | name | value | note |\n"
            "|---:|---|---:|---|\n"
            "| 1 | short | 1.23 | a, \"b\" |\n"
            "| 2 | a longer name | — | x\\|y |\n"
            "| 3 | written | 1070.520 |  |\n"
            "\n"
            "A note.\n");
}

TEST(ReportDocument, CsvKeepsNumbersWholeQuotesTextAndLeavesAGapEmpty) {
  const StatusOr<std::string> csv = Render(Sample(), "csv");
  ASSERT_TRUE(csv.ok());
  // 1.23456 is shown as 1.23 but written whole; "1070.520" reads back as 1070.52, so
  // it stays as written.
  EXPECT_EQ(*csv,
            "#,name,value,note\n"
            "1,short,1.23456,\"a, \"\"b\"\"\"\n"
            "2,a longer name,,x|y\n"
            "3,written,1070.520,\n");
}

TEST(ReportDocument, JsonIsTheDocumentsDataAndSvgItsCharts) {
  EXPECT_EQ(Render(Sample(), "json").value(), "{}\n");
  const std::string svg = Render(Sample(), "svg").value();
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("data-counter=\"value\""));
  EXPECT_THAT(svg, HasSubstr("<title>gap: no value</title>"));  // the second point
  EXPECT_THAT(svg, HasSubstr(">2: second</text>"));             // the key
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(ReportDocument, EveryFormatIsRegisteredOnceInOrder) {
  std::vector<std::string> names;
  for (const Format& f : Formats()) names.emplace_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"text", "markdown", "json", "csv", "svg"}));
  EXPECT_EQ(Formats()[3].extension, ".csv");
  EXPECT_EQ(FormatsOf(Sample()), names);
}

TEST(ReportDocument, AnUnknownFormatFailsListingTheFormats) {
  const StatusOr<std::string> out = Render(Sample(), "xml");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), "report.unknown_format");
  EXPECT_THAT(out.status().message(), HasSubstr("unknown format 'xml' (formats: text, markdown, json, csv, svg)"));
}

TEST(ReportDocument, AFormatThatDoesNotApplySaysWhyAndWhatDoes) {
  Document two_tables;
  two_tables.blocks = {Table{"a", {{"x"}}, {}}, Table{"b", {{"y"}}, {}}};
  EXPECT_EQ(FormatsOf(two_tables), (std::vector<std::string>{"text", "markdown"}));
  const StatusOr<std::string> csv = Render(two_tables, "csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.status().code(), "report.format_does_not_apply");
  EXPECT_THAT(csv.status().message(),
              HasSubstr("--format csv: a CSV holds one table, and the report has 2 (this report renders as text, "
                        "markdown)"));
  EXPECT_EQ(Render(two_tables, "svg").status().code(), "report.format_does_not_apply");
  EXPECT_THAT(Render(two_tables, "json").status().message(), HasSubstr("no machine-readable form"));
}

// A builder's mistake is an error naming the row, never a read past its end.
TEST(ReportDocument, ARowOrSeriesOfTheWrongLengthIsAnErrorInEveryFormat) {
  Document short_row = Sample();
  std::get<Table>(short_row.blocks[1]).rows[1].pop_back();
  for (const Format& f : Formats()) {
    const StatusOr<std::string> out = Render(short_row, f.name);
    ASSERT_FALSE(out.ok()) << f.name;
    EXPECT_EQ(out.status().code(), "report.misshapen_document") << f.name;
    EXPECT_THAT(out.status().message(), HasSubstr("table 'sample' row 2 has 3 cells for 4 columns")) << f.name;
  }
  Document long_series = Sample();
  std::get<LineChart>(long_series.blocks[3]).series[0].values.push_back(Cell::Integer(3));
  EXPECT_THAT(Render(long_series, "svg").status().message(),
              HasSubstr("chart 'chart' series 'value' has 3 values for 2 points"));
}

// Side by side: a group's title over its columns, totals below a rule. Markdown and
// CSV have one line of titles, so the group's title goes before each column's.
Document Sides() {
  Table t{"sides",
          {{"bucket", Align::kLeft, 0}, {"µs/tok", Align::kRight, 0}, {"µs/tok", Align::kRight, 0}},
          {{Cell::Code("md_8_32us"), Cell::Fixed(17.5, 1), Cell::Fixed(3.6, 1)}},
          {{"hf2q", 1, 1}, {"llama", 2, 1}},
          {{Cell::Text("TOTAL"), Cell::Fixed(9752.1, 1), Cell::Fixed(8939.0, 1)}}};
  Document d;
  d.blocks = {Heading{"Report", 1, false}, t};
  return d;
}

TEST(ReportDocument, GroupsHeadTheirColumnsAndTotalsSitBelowARule) {
  EXPECT_EQ(Render(Sides(), "text").value(),
            std::string(110, '=') + "\nReport\n" + std::string(110, '=') +
                "\n"
                "\n"
                "           - hf2q -  - llama -\n"  // the column widens for its group's title
                "bucket       µs/tok     µs/tok\n"
                "------------------------------\n"
                "md_8_32us      17.5        3.6\n"
                "------------------------------\n"
                "TOTAL        9752.1     8939.0\n");
  EXPECT_EQ(Render(Sides(), "markdown").value(),
            "## Report\n"
            "\n"
            "| bucket | hf2q µs/tok | llama µs/tok |\n"
            "|---|---:|---:|\n"
            "| `md_8_32us` | 17.5 | 3.6 |\n"
            "| **TOTAL** | 9752.1 | 8939.0 |\n");
  EXPECT_EQ(Render(Sides(), "csv").value(),
            "bucket,hf2q µs/tok,llama µs/tok\n"
            "md_8_32us,17.5,3.6\n"
            "TOTAL,9752.1,8939.0\n");
}

// A table wider than the text gives up the difference from its widest left-aligned
// column, whose long cells end in "…"; the numbers keep their width.
TEST(ReportDocument, ATooWideTableNarrowsItsWidestNameColumn) {
  Table t{"wide", {{"n", Align::kRight, 0}, {"meaning", Align::kLeft, 0}, {"count", Align::kRight, 0}}};
  t.rows.push_back({Cell::Integer(1), Cell::Text(std::string(150, 'm')), Cell::Integer(484221)});
  Document d;
  d.blocks = {t};
  const std::string text = Render(d, "text").value();
  EXPECT_THAT(text, HasSubstr("\n1  " + std::string(98, 'm') + "…  484221\n"));  // 1 + 2 + 99 + 2 + 6 = 110
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    EXPECT_LE(end - at, 112u);  // "…" is 3 bytes, 1 column
  }
}

// Levels: the title and sections between rules of "=", a part plain; in Markdown "##",
// "###", "####". A folded section goes into a <details> element up to the next
// heading of its level or above.
TEST(ReportDocument, HeadingsHaveLevelsAndAFoldedSectionIsDetailsInMarkdown) {
  Document d;
  d.blocks = {Heading{"Title", 1, false}, Paragraph{"Lead."},   Heading{"Method", 3, true},
              Paragraph{"How_it_works."}, Heading{"Inputs", 3, true}, Paragraph{"Files."},
              Heading{"Buckets", 2, false}, Paragraph{"#1 first."}};
  EXPECT_EQ(Render(d, "markdown").value(),
            "## Title\n\nLead.\n\n<details><summary>Method</summary>\n\nHow\\_it\\_works.\n\n</details>\n\n"
            "<details><summary>Inputs</summary>\n\nFiles.\n\n</details>\n\n### Buckets\n\n\\#1 first.\n");
  const std::string rule(110, '=');
  EXPECT_EQ(Render(d, "text").value(), rule + "\nTitle\n" + rule + "\n\nLead.\n\nMethod\n\nHow_it_works.\n\nInputs\n\n"
                                                                    "Files.\n\n" +
                                           rule + "\nBuckets\n" + rule + "\n\n#1 first.\n");
  // A folded section last is closed at the end.
  Document last;
  last.blocks = {Heading{"Detail", 2, true}, Paragraph{"x"}};
  EXPECT_EQ(Render(last, "markdown").value(), "<details><summary>Detail</summary>\n\nx\n\n</details>\n");
}

// An item of depth 1 or 2 belongs to the one above; a wrapped list continues a long
// item on lines indented two more, an unwrapped one keeps it on one line.
TEST(ReportDocument, ListItemsNestAndAWrappedListWraps) {
  List l;
  l.items = {{"", "hf2q trials: 3"}, {"", "trial-1: " + std::string(60, 'a') + " " + std::string(60, 'b'), false, {}, 1}};
  Document d;
  d.blocks = {l};
  EXPECT_EQ(Render(d, "text").value(), "hf2q trials: 3\n  trial-1: " + std::string(60, 'a') + " " + std::string(60, 'b') + "\n");
  std::get<List>(d.blocks[0]).wrap = true;
  EXPECT_EQ(Render(d, "text").value(),
            "hf2q trials: 3\n  trial-1: " + std::string(60, 'a') + "\n    " + std::string(60, 'b') + "\n");
  EXPECT_EQ(Render(d, "markdown").value(),
            "- hf2q trials: 3\n  - trial-1: " + std::string(60, 'a') + " " + std::string(60, 'b') + "\n");
}

// Bar charts in SVG: grouped bars a series each with a legend, or diverging Δ bars on a
// signed log scale with the highlighted row banded and each row's note.
TEST(ReportDocument, BarChartsDrawGroupedAndDivergingBars) {
  BarChart grouped{"GPU µs/token", "", "µs per decode token", {"hf2q (engine)", "llama (baseline)"}, false,
                   {{"xl_>=80us", {9729.2, 8931.5}, "", false}, {"md_8_32us", {17.5, 3.6}, "", false}}, {}};
  BarChart delta{"Δ GPU µs/token", "Medians over trials.", "Δ µs per decode token", {}, true,
                 {{"xl_>=80us", {797.6}, "+797.6 µs/tok", true}, {"blit", {-3.6}, "-3.6 µs/tok", false}},
                 {"#1: a whole name"}};
  Document d;
  d.blocks = {Heading{"Report", 1, false}, delta, grouped};
  const std::string svg = Render(d, "svg").value();
  EXPECT_THAT(svg, HasSubstr(">Report</text>"));
  EXPECT_THAT(svg, HasSubstr(">Medians over trials.</text>"));
  EXPECT_THAT(svg, HasSubstr("class=\"bar-delta regressed\""));
  EXPECT_THAT(svg, HasSubstr("class=\"bar-delta improved\""));
  EXPECT_THAT(svg, HasSubstr("class=\"attack-target\""));
  EXPECT_THAT(svg, HasSubstr(">▶ xl_&gt;=80us</text>"));
  EXPECT_THAT(svg, HasSubstr(">+797.6 µs/tok</text>"));
  EXPECT_THAT(svg, HasSubstr(">#1: a whole name</text>"));
  size_t engine = 0, baseline = 0;
  for (size_t at = 0; (at = svg.find("class=\"bar-engine\"", at)) != std::string::npos; ++at) ++engine;
  for (size_t at = 0; (at = svg.find("class=\"bar-baseline\"", at)) != std::string::npos; ++at) ++baseline;
  EXPECT_EQ(engine, 2u);
  EXPECT_EQ(baseline, 2u);
  EXPECT_THAT(svg, HasSubstr(">hf2q (engine)</text>"));  // the legend
  // Text and Markdown draw no chart.
  EXPECT_THAT(Render(d, "text").value(), ::testing::Not(HasSubstr("xl_")));
}

// A totals row or bar row of the wrong length, and a group past the last column, are
// errors naming them.
TEST(ReportDocument, AMisshapenTotalsRowGroupOrBarRowIsAnError) {
  Document totals = Sides();
  std::get<Table>(totals.blocks[1]).totals[0].pop_back();
  EXPECT_THAT(Render(totals, "text").status().message(), HasSubstr("table 'sides' totals row 1 has 2 cells for 3 columns"));
  Document group = Sides();
  std::get<Table>(group.blocks[1]).groups[1].count = 2;
  EXPECT_THAT(Render(group, "markdown").status().message(), HasSubstr("table 'sides' group 'llama' spans columns past its 3"));
  Document bars;
  bars.blocks = {BarChart{"c", "", "", {"a", "b"}, false, {{"row", {1.0}, "", false}}, {}}};
  EXPECT_THAT(Render(bars, "svg").status().message(), HasSubstr("bar chart 'c' row 'row' has 1 values for 2 series"));
}

}  // namespace
}  // namespace perfgate::document

namespace perfgate::document {
namespace {

// Names come from files anyone can write (kernel names, counter titles, model and
// cell names): in what people read, a line break, ESC or NUL inside one prints as a C
// escape, so no name forges a report line or takes over a terminal; JSON and CSV
// keep the bytes whole.
TEST(ReportDocument, ControlBytesInNamesPrintAsEscapes) {
  const std::string evil = std::string("k\n== forged ==\x1b[2J") + '\0' + "end\xff";
  Table t{"t", {{"name", Align::kLeft, 0}}, {{Cell::Code(evil)}}};
  BarChart chart{"c", "", "µs", {evil}, false, {{evil, {1.0}, "", false}}, {}};
  Document d;
  d.blocks = {Heading{evil, 1, false}, Paragraph{evil}, t, List{{{evil, evil, false, {evil}}}}, chart};
  const std::string printed = "k\\n== forged ==\\x1b[2J\\x00end\\xff";
  for (const char* format : {"text", "markdown", "svg"}) {
    SCOPED_TRACE(format);
    auto out = Render(d, format);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->find('\x1b'), std::string::npos);
    EXPECT_EQ(out->find('\0'), std::string::npos);
    EXPECT_EQ(out->find("\n== forged"), std::string::npos);
    EXPECT_NE(out->find("forged ==\\x1b[2J"), std::string::npos) << *out;
  }
  EXPECT_NE(Render(d, "text")->find(printed), std::string::npos);
  Document one_table;
  one_table.blocks = {t};
  auto csv = Render(one_table, "csv");
  ASSERT_TRUE(csv.ok());
  EXPECT_NE(csv->find(evil), std::string::npos);  // RFC 4180 quotes it, byte for byte
}

}  // namespace
}  // namespace perfgate::document
