// Adversarial documents: a valid three-row execution-points export with exactly one
// defect each. They are spelled out as literal XML rather than produced by the
// writer, so a reader test shows the bytes under test and a writer change cannot
// silently move or remove a defect.
#include <algorithm>
#include <string>
#include <vector>

#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::gen {
namespace {

// Placed just before the offending byte while a document is assembled; removed, and
// its offset becomes the expected line:column. XML cannot contain U+0001, so it never
// collides with document bytes.
constexpr char kMarker = '\x01';
const std::string kHere(1, kMarker);

constexpr char kProlog[] = "<?xml version=\"1.0\"?>\n<trace-query-result>\n";
constexpr char kNodeOpen[] = "<node xpath='//trace-toc[1]/run[1]/data[1]/table[34]'>";
constexpr char kEpilog[] = "</node></trace-query-result>\n";

std::string SchemaXml() {
  const Schema schema = *FindMetalSchema(kExecutionPointsSchema);
  std::string xml = "<schema name=\"" + EscapeXml(schema.name) + "\" documentation=\"" +
                    EscapeXml(schema.documentation) + "\">";
  for (const Column& column : schema.columns) {
    xml += "<col><mnemonic>" + column.mnemonic + "</mnemonic><name>" + column.name +
           "</name><engineering-type>" + column.engineering_type + "</engineering-type></col>";
  }
  return xml + "</schema>";
}

using Cells = std::vector<std::string>;

// Three valid rows: submission 1600000000 starts and ends on channel 0x123457, then
// submission 1600000001 starts on 0x123458. Ids 1..13 in pre-order; refs backwards.
Cells Row1() {
  return {"<start-time id=\"1\" fmt=\"00:01.000.000\">1000000000</start-time>",
          "<metal-command-buffer-id id=\"2\" fmt=\"0x123457\">1193047</metal-command-buffer-id>",
          "<uint32 id=\"3\" fmt=\"1\">1</uint32>",
          "<uint32 id=\"4\" fmt=\"1600000000\">1600000000</uint32>",
          "<metal-command-buffer-id id=\"5\" fmt=\"0x5f5e1000\">1600000000</metal-command-buffer-id>",
          "<uint64 id=\"6\" fmt=\"18,446,744,073,709,551,615\">18446744073709551615</uint64>",
          "<sentinel/>"};
}

Cells Row2() {
  return {"<start-time id=\"7\" fmt=\"00:01.000.250\">1000250000</start-time>",
          "<metal-command-buffer-id ref=\"2\"/>",
          "<uint32 id=\"8\" fmt=\"2\">2</uint32>",
          "<uint32 ref=\"4\"/>",
          "<metal-command-buffer-id ref=\"5\"/>",
          "<uint64 ref=\"6\"/>",
          "<string id=\"9\" fmt=\"\"></string>"};
}

Cells Row3() {
  return {"<start-time id=\"10\" fmt=\"00:01.000.300\">1000300000</start-time>",
          "<metal-command-buffer-id id=\"11\" fmt=\"0x123458\">1193048</metal-command-buffer-id>",
          "<uint32 ref=\"3\"/>",
          "<uint32 id=\"12\" fmt=\"1600000001\">1600000001</uint32>",
          "<metal-command-buffer-id id=\"13\" fmt=\"0x5f5e1001\">1600000001</metal-command-buffer-id>",
          "<uint64 ref=\"6\"/>",
          "<sentinel/>"};
}

std::string RowXml(const Cells& cells) {
  std::string xml = "<row>";
  for (const std::string& cell : cells) xml += cell;
  return xml + "</row>";
}

// One <node> with the execution-points schema (unless omitted) and these lines.
std::string Document(const std::vector<std::string>& lines, bool with_schema = true) {
  std::string doc = std::string(kProlog) + kNodeOpen;
  if (with_schema) doc += SchemaXml();
  for (const std::string& line : lines) doc += line + "\n";
  return doc + kEpilog;
}

std::vector<std::string> ValidLines() { return {RowXml(Row1()), RowXml(Row2()), RowXml(Row3())}; }

// The three rows with cell `cell` of row `row` (both 0-based) replaced.
std::string WithCell(int row, int cell, std::string replacement) {
  std::vector<Cells> rows = {Row1(), Row2(), Row3()};
  rows[row][cell] = std::move(replacement);
  return Document({RowXml(rows[0]), RowXml(rows[1]), RowXml(rows[2])});
}

Anomaly Make(std::string name, std::string code, std::string description, std::string marked) {
  Anomaly anomaly;
  anomaly.name = std::move(name);
  anomaly.expected_code = std::move(code);
  anomaly.description = std::move(description);
  const size_t at = marked.find(kMarker);
  if (at != std::string::npos) {
    marked.erase(at, 1);
    anomaly.line = 1 + static_cast<int>(std::count(marked.begin(), marked.begin() + at, '\n'));
    const size_t newline = at == 0 ? std::string::npos : marked.rfind('\n', at - 1);
    const size_t line_start = newline == std::string::npos ? 0 : newline + 1;
    anomaly.column = static_cast<int>(at - line_start) + 1;
  }
  anomaly.bytes = std::move(marked);
  return anomaly;
}

}  // namespace

std::vector<Anomaly> AllAnomalies() {
  std::vector<Anomaly> all;
  all.push_back(Make("dangling_ref", "xctrace.dangling_ref",
                     "A ref names id 99, which the document never defines.",
                     WithCell(1, 5, kHere + "<uint64 ref=\"99\"/>")));
  all.push_back(Make("forward_ref", "xctrace.forward_ref",
                     "Row 2 refs id 11, which row 3 defines later with the same tag.",
                     WithCell(1, 1, kHere + "<metal-command-buffer-id ref=\"11\"/>")));
  all.push_back(Make("duplicate_id", "xctrace.duplicate_id",
                     "Row 3 defines id 5 again, for a different value.",
                     WithCell(2, 4, kHere +
                                        "<metal-command-buffer-id id=\"5\" fmt=\"0x5f5e1001\">"
                                        "1600000001</metal-command-buffer-id>")));
  all.push_back(Make("ref_tag_mismatch", "xctrace.ref_tag_mismatch",
                     "A <uint32 ref=\"5\"/> points at a metal-command-buffer-id of the same number.",
                     WithCell(1, 3, kHere + "<uint32 ref=\"5\"/>")));
  {
    Cells short_row = Row2();
    short_row.pop_back();
    all.push_back(Make("arity_short", "xctrace.arity_mismatch",
                       "Row 2 has 6 cells for 7 columns (the note is missing).",
                       Document({RowXml(Row1()), kHere + RowXml(short_row), RowXml(Row3())})));
    Cells long_row = Row2();
    long_row.push_back("<string ref=\"9\"/>");
    all.push_back(Make("arity_long", "xctrace.arity_mismatch",
                       "Row 2 has 8 cells for 7 columns.",
                       Document({RowXml(Row1()), kHere + RowXml(long_row), RowXml(Row3())})));
  }
  all.push_back(Make("type_mismatch", "xctrace.type_mismatch",
                     "The start-time column of row 2 holds a <uint64>.",
                     WithCell(1, 0, kHere + "<uint64 id=\"7\" fmt=\"1,000,250,000\">1000250000</uint64>")));
  all.push_back(Make("id_and_ref", "xctrace.id_and_ref",
                     "An element carries both id and ref.",
                     WithCell(1, 5, kHere + "<uint64 id=\"100\" ref=\"6\"/>")));
  all.push_back(Make("bad_id", "xctrace.bad_id", "An id is not a decimal integer.",
                     WithCell(1, 0, kHere + "<start-time id=\"seven\" fmt=\"00:01.000.250\">"
                                            "1000250000</start-time>")));
  all.push_back(Make("missing_schema", "xctrace.missing_schema",
                     "The only <node> has rows but no <schema>, and no earlier node has one.",
                     std::string(kProlog) + kHere + kNodeOpen + RowXml(Row1()) + "\n" +
                         RowXml(Row2()) + "\n" + kEpilog));
  all.push_back(Make("empty_export", "xctrace.empty_export",
                     "The result holds no <node>: the query matched no table.",
                     "<?xml version=\"1.0\"?>\n" + kHere + "<trace-query-result>\n</trace-query-result>\n"));
  {
    // Cut inside a tag of row 2, as a killed `xctrace export` leaves it.
    const std::string row2 = RowXml(Row2());
    const std::string cut = row2.substr(0, row2.find("<uint32 ref=") + 9);
    all.push_back(Make("truncated", "xctrace.truncated",
                       "The file ends inside row 2; its <row> is the location.",
                       std::string(kProlog) + kNodeOpen + SchemaXml() + RowXml(Row1()) + "\n" +
                           kHere + cut));
  }
  all.push_back(Make("bad_utf8", "xctrace.bad_utf8",
                     "A Latin-1 byte 0xE9 inside a string; the location is that byte.",
                     WithCell(1, 6, "<string id=\"9\" fmt=\"caf" + kHere + "\xE9\">caf\xE9</string>")));
  all.push_back(Make("huge_number", "xctrace.bad_integer",
                     "A uint64 holds 99999999999999999999999, above UINT64_MAX.",
                     WithCell(0, 5, kHere + "<uint64 id=\"6\" fmt=\"99,999,999,999,999,999,999,999\">"
                                            "99999999999999999999999</uint64>")));
  all.push_back(Make("negative_uint", "xctrace.bad_integer", "A uint32 slot-id holds -5.",
                     WithCell(2, 3, kHere + "<uint32 id=\"12\" fmt=\"-5\">-5</uint32>")));
  all.push_back(Make("uint32_overflow", "xctrace.bad_integer",
                     "A uint32 slot-id holds 4294967296, one above UINT32_MAX.",
                     WithCell(2, 3, kHere + "<uint32 id=\"12\" fmt=\"4294967296\">4294967296</uint32>")));
  all.push_back(Make("not_xml", "xctrace.not_xml",
                     "A <uint32> is closed by </uint64>; the location is that end tag.",
                     WithCell(1, 2, "<uint32 id=\"8\" fmt=\"2\">2" + kHere + "</uint64>")));
  {
    Anomaly empty;
    empty.name = "empty_file";
    empty.expected_code = "xctrace.empty_file";
    empty.description = "Zero bytes; the location is 1:1, where offset 0 maps.";
    empty.line = 1;
    empty.column = 1;
    all.push_back(empty);
  }
  {
    std::vector<std::string> lines = ValidLines();
    lines.insert(lines.begin() + 1, kHere + "<bogus/>");
    all.push_back(Make("unknown_element", "xctrace.unknown_element",
                       "A <bogus/> element sits between rows 1 and 2.", Document(lines)));
  }
  {
    std::string doc = Document(ValidLines());
    const std::string root = "trace-query-result";
    const std::string wrong = "trace-query-response";
    doc.replace(doc.find("<" + root), root.size() + 1, kHere + "<" + wrong);
    doc.replace(doc.rfind("</" + root), root.size() + 2, "</" + wrong);
    all.push_back(Make("wrong_root", "xctrace.unexpected_root",
                       "The root element is <trace-query-response>.", doc));
  }
  return all;
}

std::optional<Anomaly> FindAnomaly(std::string_view name) {
  for (Anomaly& anomaly : AllAnomalies()) {
    if (anomaly.name == name) return std::move(anomaly);
  }
  return std::nullopt;
}

}  // namespace perfgate::gen
