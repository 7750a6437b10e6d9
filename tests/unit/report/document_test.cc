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
  LineChart chart{"chart", {"first", "second"}, {{"value", {Cell::Fixed(1.5, 1), Cell::Missing()}}}};
  Document d;
  d.blocks = {Heading{"Title"}, t, Paragraph{"A note."}, chart};
  d.json = "{}\n";
  return d;
}

TEST(ReportDocument, TextAlignsColumnsAndCutsAFixedWidthCell) {
  const StatusOr<std::string> text = Render(Sample(), "text");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  // Widths: "#" fixed at 3, name fixed at 8 ("a longe…"), value as wide as its widest
  // cell ("1070.520", 8), note not padded, being last, and no line ends in a space.
  EXPECT_EQ(*text,
            "Title\n"
            "\n"
            "  #  name         value  note\n"
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
            "### Title\n"
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

}  // namespace
}  // namespace perfgate::document
