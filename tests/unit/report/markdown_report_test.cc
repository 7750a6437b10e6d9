// The Markdown report: a short CI summary whose pipe tables keep their columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using testdata::SplitLines;
using ::testing::HasSubstr;
using ::testing::Not;

// Cell separators in a table row: pipes not escaped with a backslash.
size_t Pipes(const std::string& row) {
  size_t n = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
  }
  return n;
}

// The tables of a document: runs of consecutive lines starting with '|'.
std::vector<std::vector<std::string>> Tables(const std::string& md) {
  std::vector<std::vector<std::string>> tables;
  bool in = false;
  for (const auto& l : SplitLines(md)) {
    bool row = !l.empty() && l[0] == '|';
    if (row && !in) tables.emplace_back();
    if (row) tables.back().push_back(l);
    in = row;
  }
  return tables;
}

void ExpectConsistentTables(const std::string& md) {
  auto tables = Tables(md);
  ASSERT_FALSE(tables.empty());
  for (const auto& t : tables) {
    ASSERT_GE(t.size(), 3u) << t[0];  // header, alignment row, at least one row
    EXPECT_EQ(t[1].find_first_not_of("|-:"), std::string::npos) << t[1];
    for (const auto& row : t) EXPECT_EQ(Pipes(row), Pipes(t[0])) << row;
  }
}

// The data rows of the table under a heading that starts with `heading`.
std::vector<std::string> TableAfter(const std::string& md, const std::string& heading) {
  size_t at = md.find("\n" + heading);
  if (at == std::string::npos) return {};
  auto tables = Tables(md.substr(at));
  if (tables.empty()) return {};
  return std::vector<std::string>(tables[0].begin() + 2, tables[0].end());
}

TEST(MarkdownReport, TablesHaveConsistentColumns) {
  std::string md = RenderMarkdown(testdata::Iter22());
  ExpectConsistentTables(md);
  EXPECT_EQ(Tables(md).size(), 3u);  // buckets, families, phases
  ExpectConsistentTables(RenderMarkdown(testdata::EngineOnly()));
}

TEST(MarkdownReport, FitsACiSummary) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_LE(SplitLines(md).size(), 60u);
  EXPECT_EQ(md.rfind("## ", 0), 0u);
  EXPECT_THAT(md, HasSubstr("\n### Buckets\n"));
  EXPECT_THAT(md, HasSubstr("\n### Encoder families\n"));
  EXPECT_THAT(md,
              HasSubstr("\n### Command-buffer phases (top 3 of 3 by hf2q GPU µs/tok; label coverage 92.7%)\n"));
  EXPECT_THAT(md, HasSubstr("not a kernel dispatch"));
}

TEST(MarkdownReport, AttackTargetInBold) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(md,
              HasSubstr("**Attack target: `xl_>=80us`** (+772.9 µs/tok, p = 0.008); likely prefill "
                        "mul\\_mm\\_id / lm\\_head / large blits\n"));
  Report r = testdata::Iter22();
  r.comparison->attack_target.reset();
  EXPECT_THAT(RenderMarkdown(r), HasSubstr("**Attack target: none** (no bucket regressed)"));
}

TEST(MarkdownReport, BucketAndTotalCells) {
  std::string md = RenderMarkdown(testdata::Iter22());
  auto rows = TableAfter(md, "### Buckets");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(
      rows[4],
      "| `xl_>=80us` | 42.1 | 194.23 | 9703.2 | 2.0 | 6875.60 | 8930.3 | +772.9 | +8.7% | 0.008 |");
  EXPECT_EQ(rows[3],
            "| `lg_32_80us` | 0.3 | 52.17 | 14.8 | 0.0 | 0.00 | 0.0 | +14.8 | n/a | 0.008 |");
  EXPECT_EQ(rows[5], "| **TOTAL** | 44.2 |  | 9735.6 | 3.3 |  | 8937.5 | +798.1 | +8.9% | 0.008 |");
  // p-values say how many trials they rest on.
  EXPECT_THAT(md, HasSubstr("| Δ µs/tok | Δ% | p (n = 5/5) |\n"));
  EXPECT_THAT(
      md,
      HasSubstr("Total GPU time **9735.6 vs 8937.5 µs/tok, Δ +798.1 (+8.9%)**, p = 0.008 (n = 5/5 "
                "trials)"));
}

TEST(MarkdownReport, FamiliesSortedByDeltaAndPhasesTopTen) {
  Report r = testdata::Iter22();
  for (int i = 0; i < 12; ++i) {
    std::string name = "phase." + std::to_string(i);
    r.comparison->phases.push_back(testdata::D(name, 10.0 + i, 0.0));
  }
  std::string md = RenderMarkdown(r);
  auto families = TableAfter(md, "### Encoder families");
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].rfind("| `blit` |", 0), 0u);
  auto phases = TableAfter(md, "### Command-buffer phases");
  ASSERT_EQ(phases.size(), 10u);
  EXPECT_EQ(phases[0],
            "| `layer.attn_moe_ffn` | 39.38 | 7779.8 | 0.00 | 0.0 | +7779.8 | n/a | 0.008 |");
  EXPECT_EQ(phases[3].rfind("| `phase.11` |", 0), 0u);  // the largest of the extra phases
  EXPECT_THAT(md, HasSubstr("### Command-buffer phases (top 10 of 15 by hf2q GPU µs/tok"));
  EXPECT_LE(SplitLines(md).size(), 60u);
}

TEST(MarkdownReport, PipesInLabelsAreEscaped) {
  Report r = testdata::Iter22();
  r.comparison->phases.push_back(testdata::D("a|b`c", 1.0, 0.0));
  std::string md = RenderMarkdown(r);
  EXPECT_THAT(md, HasSubstr("| `a\\|b'c` |"));
  ExpectConsistentTables(md);
}

TEST(MarkdownReport, EngineOnly) {
  std::string md = RenderMarkdown(testdata::EngineOnly());
  EXPECT_THAT(md, HasSubstr("## perfgate: hf2q, GPU µs per decode token (no baseline)"));
  EXPECT_THAT(md, Not(HasSubstr("Attack target")));
  EXPECT_THAT(md, Not(HasSubstr("Δ")));
  auto rows = TableAfter(md, "### Buckets");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[5], "| **TOTAL** | 44.2 |  | 9735.6 |");
}

TEST(MarkdownReport, PerTrialAndDiagnostics) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(
      md,
      HasSubstr("- hf2q: per-trial GPU µs/tok 9768.9, 9697.5, 9741.1, 9520.9, 9735.6; diagnostics "
                "`attr.unpaired_end` ×3\n"));
  EXPECT_THAT(md,
              HasSubstr("- llama: per-trial GPU µs/tok 8944.5, 8937.5, 8935.0, 8973.8, 8917.9\n"));
}

TEST(MarkdownReport, TraceJsonFamiliesAreKernelFamilies) {
  const std::string metal = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(metal, HasSubstr("### Encoder families\n"));
  EXPECT_THAT(metal, HasSubstr("_A submission is one GPU execution-point pair (about one encoder)"));

  const std::string json = RenderMarkdown(testdata::Iter22FromTraceJson());
  EXPECT_THAT(json, HasSubstr("### Kernel families\n"));
  EXPECT_THAT(json, HasSubstr("| Family | hf2q kern/tok | hf2q µs/tok | llama kern/tok |"));
  EXPECT_THAT(json, HasSubstr("_A dispatch is one GPU kernel event (memcpy and memset included)."));
  EXPECT_THAT(json, Not(HasSubstr("Encoder families")));
  EXPECT_THAT(json, Not(HasSubstr("execution-point pair")));
  EXPECT_THAT(json, HasSubstr(" µs/tok. Kernels/tok "));
  EXPECT_THAT(metal, HasSubstr(" µs/tok. Submissions/tok "));
  EXPECT_THAT(RenderMarkdown(testdata::EngineOnly()), HasSubstr(" submissions/tok, median of "));
}

}  // namespace
}  // namespace perfgate::report
