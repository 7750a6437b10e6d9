// The kernel-name tables on a real Nsight Systems export (shared/corpus/nsys/
// h100_2gpu_1s.sqlite, read in place), `perfgate attribute` in every format: its cuBLAS
// gemm names differ only in the middle (tile size, nn/tn, split_k), where every cut
// of a table column falls, so the rows must be numbered to read apart.
//
// The figures were counted without perfgate, with SQL through Python's sqlite3 (the
// aten::mm window of device 0's process; the script's docstring says how):
//
//   python3 tests/unit/report/nsys_kernel_names.py shared/corpus/nsys/h100_2gpu_1s.sqlite 0 aten::mm
//
// 140 tokens; the three names with the most GPU time are kGemm (111.04 µs/tok, 124
// calls), kGemm128 (17.06, 13 calls) and kSplitK (7.82, 120 calls); 7 of the 41 names
// are sm80_xmma_gemm_f32f32_… cuBLAS names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "report/report_util.h"
#include "support/corpus.h"
#include "unit/report/attribute_all_formats.h"
#include "unit/report/report_tables.h"

namespace perfgate::report {
namespace {

using nlohmann::json;
using testing_support::Lines;
using testing_support::TableRows;
using ::testing::HasSubstr;

constexpr const char* kH100 = "nsys/h100_2gpu_1s.sqlite";
const std::string kWindow = " --tokens auto:aten::mm --window label:aten::mm";
const std::string kGemm =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_"
    "kernel__5x_cublas";
const std::string kGemm128 =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_"
    "kernel__5x_cublas";
const std::string kSplitK =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_"
    "split_k_kernel__5x_cublas";

// The list under a table, label -> the name it stands for. `entry` matches a first
// line (label, name's start), `more` a continuation line; a name broken over lines is
// joined without spaces (the gemm names have none).
std::map<std::string, std::string> Key(const std::vector<std::string>& lines, const std::regex& entry,
                                       const std::regex& more) {
  std::map<std::string, std::string> key;
  std::string* last = nullptr;
  std::smatch m;
  for (const std::string& line : lines) {
    if (std::regex_match(line, m, entry)) {
      last = &key[m[1]];
      *last = m[2];
    } else if (last != nullptr && std::regex_match(line, m, more)) {
      *last += m[1];
    } else {
      last = nullptr;
    }
  }
  return key;
}

// The label of the row whose cells hold `figure`, of `labels` and `rows` alike.
std::string LabelOf(const std::vector<std::string>& labels, const std::vector<std::string>& rows,
                    const std::string& figure) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].find(figure) != std::string::npos) return labels[i];
  }
  return "(no row with " + figure + ")";
}

void ExpectDistinct(const std::vector<std::string>& labels) {
  EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), labels.size())
      << ::testing::PrintToString(labels);
}

TEST(NsysKernelNames, NoTwoRowsReadAlikeAndTheListSaysWhichNameEachIs) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  const auto r = testing_support::AttributeAllFormats("--trace e=" + path + " --device 0" + kWindow, "nsys-h100");
  ASSERT_EQ(r.exit_code, 0) << r.progress;

  // Text: the first column ends where "family" starts.
  const std::vector<std::string> rows = TableRows(r.text, "kernel ");
  ASSERT_EQ(rows.size(), 20u) << r.text;
  const size_t header = r.text.find("\nkernel ");
  const size_t width = r.text.find("family", header) - header - 2;
  std::vector<std::string> labels;
  for (const std::string& row : rows) {
    std::string label = row.substr(0, util::ByteOfColumn(row, width));
    labels.push_back(label.substr(0, label.find_last_not_of(' ') + 1));
  }
  ExpectDistinct(labels);
  auto key = Key(Lines(r.text), std::regex("  (.*? #[0-9]+): ?(.*)"), std::regex(" {4}(.*)"));
  EXPECT_EQ(key[LabelOf(labels, rows, " 111.04 ")], kGemm) << r.text;
  EXPECT_EQ(key[LabelOf(labels, rows, " 17.06 ")], kGemm128);
  EXPECT_EQ(key[LabelOf(labels, rows, " 7.82 ")], kSplitK);
  EXPECT_THAT(LabelOf(labels, rows, " 111.04 "), HasSubstr("_5x_cublas #"));

  // Markdown: the same three by their cells.
  std::vector<std::string> md_rows, md_labels;
  const std::regex md_row("\\| `([^`]*)` \\| `[^`]+` \\|.*");
  std::smatch m;
  for (const std::string& line : Lines(r.markdown)) {
    if (!std::regex_match(line, m, md_row)) continue;
    md_rows.push_back(line);
    md_labels.push_back(m[1]);
  }
  ASSERT_EQ(md_rows.size(), 20u) << r.markdown;
  ExpectDistinct(md_labels);
  key.clear();  // "  - LABEL: `NAME`", the label as prose (its "_" escaped)
  for (const auto& [label, name] : Key(Lines(r.markdown), std::regex("  - (.*?): `([^`]*)`"), std::regex("(?!)"))) {
    key[std::regex_replace(label, std::regex("\\\\"), "")] = name;
  }
  EXPECT_EQ(key[LabelOf(md_labels, md_rows, " | 111.04 | ")], kGemm) << r.markdown;
  EXPECT_EQ(key[LabelOf(md_labels, md_rows, " | 17.06 | ")], kGemm128);
  EXPECT_EQ(key[LabelOf(md_labels, md_rows, " | 7.82 | ")], kSplitK);

  // SVG: the kernel-name chart's ten labels, largest first, and the key under it.
  const size_t chart = r.svg.find(">GPU µs/token by kernel name (top 10)</text>");
  ASSERT_NE(chart, std::string::npos) << r.svg;
  const std::string svg = r.svg.substr(chart);
  std::vector<std::string> svg_labels;
  const std::regex label("text-anchor=\"end\" font-size=\"12\">([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) {
    svg_labels.push_back((*it)[1]);
  }
  ASSERT_EQ(svg_labels.size(), 10u) << svg;
  ExpectDistinct(svg_labels);
  key = Key(Lines(svg), std::regex("<text x=\"20.0\" y=\"[0-9.]+\">(.*? #[0-9]+): ?(.*)</text>"),
            std::regex("<text x=\"40.0\" y=\"[0-9.]+\">(.*)</text>"));
  EXPECT_EQ(key[svg_labels[0]], kGemm) << svg;
  EXPECT_EQ(key[svg_labels[1]], kGemm128);
  EXPECT_EQ(key[svg_labels[2]], kSplitK);
}

// A report of each GPU of the export says which it is, and the process as chosen:
// device 0 is pid 111's, device 1 pid 112's (nsys_trial_test.cc counts them).
TEST(NsysKernelNames, JsonOptionsSayTheDeviceAndTheProcess) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kH100);
  const auto gpu0 = testing_support::RunPerfgate("attribute --trace e=" + path + " --device 0" + kWindow +
                                                 " --format json");
  ASSERT_EQ(gpu0.exit_code, 0) << gpu0.err;
  const json e0 = json::parse(gpu0.out)["options"]["engines"]["e"];
  EXPECT_EQ(e0["device"], 0);
  EXPECT_TRUE(e0["process_id"].is_null());
  EXPECT_EQ(e0["lenient"], false);
  const auto gpu1 = testing_support::RunPerfgate("attribute --trace e=" + path + " --device 1 --process pid:112" +
                                                 kWindow + " --format json");
  ASSERT_EQ(gpu1.exit_code, 0) << gpu1.err;
  const json e1 = json::parse(gpu1.out)["options"]["engines"]["e"];
  EXPECT_EQ(e1["device"], 1);
  EXPECT_EQ(e1["process_id"], 112);
}

}  // namespace
}  // namespace perfgate::report
