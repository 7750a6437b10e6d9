// The attribution report in Markdown: a CI job summary whose pipe tables keep their
// columns, with the detail folded away.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "support/report_render.h"
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

// The lines outside <details> elements: what a CI job summary shows unopened.
std::vector<std::string> Unfolded(const std::string& md) {
  std::vector<std::string> shown;
  bool folded = false;
  for (const auto& l : SplitLines(md)) {
    if (l.rfind("<details>", 0) == 0) folded = true;
    if (!folded) shown.push_back(l);
    if (l == "</details>") folded = false;
  }
  return shown;
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
  EXPECT_EQ(TableAfter(md, "### Side-by-side bucketed attribution").size(), 7u);  // 5 buckets, TOTAL, busy
  ExpectConsistentTables(RenderMarkdown(testdata::EngineOnly()));
}

TEST(MarkdownReport, FitsACiSummary) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_EQ(md.rfind("## perfgate GPU attribution per decode token (Metal System Trace): hf2q vs llama\n", 0), 0u);
  // The method, the inputs, the registry and the per-trial figures are folded away.
  EXPECT_THAT(md, HasSubstr("\n<details><summary>Method</summary>\n"));
  EXPECT_THAT(md, HasSubstr("\n<details><summary>Inputs</summary>\n"));
  EXPECT_THAT(md, HasSubstr("\n<details><summary>Per-trial GPU time</summary>\n"));
  const std::vector<std::string> shown = Unfolded(md);
  EXPECT_LE(shown.size(), 100u);
  EXPECT_LT(shown.size(), SplitLines(md).size() / 2);
  EXPECT_THAT(md, HasSubstr("\n### Side-by-side bucketed attribution (medians across trials)\n"));
  EXPECT_THAT(md, HasSubstr("\n### Per-encoder-family GPU time (submissions joined to encoders)\n"));
  EXPECT_THAT(md, HasSubstr("\n### Per-command-buffer-phase GPU time (command-buffer labels, numeric parts removed)\n"));
  EXPECT_THAT(md, HasSubstr("not a kernel dispatch"));
}

TEST(MarkdownReport, AttackTargetInBold) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(md, HasSubstr("\n- **Attack target** xl\\_\\>=80us: Δ +772.9 µs/tok (+8.7%), p = 0.008, the bucket with "
                            "the largest positive Δµs/tok; likely kernel class: prefill mul\\_mm\\_id / lm\\_head / "
                            "large blits.\n"));
  Report r = testdata::Iter22();
  r.comparison->attack_target.reset();
  EXPECT_THAT(RenderMarkdown(r), HasSubstr("\n- **Attack target:** none (no bucket regressed).\n"));
}

TEST(MarkdownReport, BucketAndTotalCells) {
  std::string md = RenderMarkdown(testdata::Iter22());
  auto rows = TableAfter(md, "### Side-by-side bucketed attribution");
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(
      rows[4],
      "| `xl_>=80us` | 42.1 | 194.23 | 9703.2 | 2.0 | 6875.60 | 8930.3 | +772.9 | +8.7% | 0.008 |");
  EXPECT_EQ(rows[3],
            "| `lg_32_80us` | 0.3 | 52.17 | 14.8 | 0.0 | 0.00 | 0.0 | +14.8 | n/a | 0.008 |");
  EXPECT_EQ(rows[5], "| **TOTAL** | 44.2 | - | 9735.6 | 3.3 | - | 8937.5 | +798.1 | +8.9% | 0.008 |");
  EXPECT_EQ(rows[6], "| **busy (union)** |  |  | 9735.6 |  |  | 8937.5 | +798.1 | +8.9% |  |");
  // Each side's columns carry its name; the p-values say how many trials they rest on.
  EXPECT_THAT(md, HasSubstr("| bucket | hf2q (engine) sub/tok | hf2q (engine) p50 µs/sub |"));
  EXPECT_THAT(md, HasSubstr("over per-trial values, n = 5 vs 5 trials."));
  EXPECT_THAT(md, HasSubstr("\n- **Total GPU time:** 9735.6 vs 8937.5 µs/tok, Δ +798.1 (+8.9%), p = 0.008 (n = 5/5 "
                            "trials)."));
}

TEST(MarkdownReport, FamiliesSortedByDeltaAndPhasesByEngineTime) {
  Report r = testdata::Iter22();
  for (int i = 0; i < 12; ++i) {
    std::string name = "phase." + std::to_string(i);
    r.comparison->phases.push_back(testdata::D(name, 10.0 + i, 0.0));
  }
  std::string md = RenderMarkdown(r);
  auto families = TableAfter(md, "### Per-encoder-family");
  ASSERT_EQ(families.size(), 3u);  // and TOTAL
  EXPECT_EQ(families[0].rfind("| `blit` |", 0), 0u);
  auto phases = TableAfter(md, "### Per-command-buffer-phase");
  ASSERT_EQ(phases.size(), 16u);  // every phase, then TOTAL
  EXPECT_EQ(phases[0],
            "| `layer.attn_moe_ffn` | 39.38 | 39.38 | 7779.8 | 197.6 | 0.00 | 0.0 | +7779.8 | 0.008 |");
  EXPECT_EQ(phases[3].rfind("| `phase.11` |", 0), 0u);  // the largest of the extra phases
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
  EXPECT_EQ(md.rfind("## perfgate GPU attribution per decode token (Metal System Trace): hf2q\n", 0), 0u);
  EXPECT_THAT(md, HasSubstr("no baseline, so no attack target."));
  EXPECT_THAT(md, Not(HasSubstr("Δµs/tok")));
  auto rows = TableAfter(md, "### hf2q-only partial attribution");
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[5], "| **TOTAL** | 44.2 | - | 9735.6 |");
}

TEST(MarkdownReport, PerTrialAndDiagnostics) {
  std::string md = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(md, HasSubstr("\n- hf2q per-trial gpu µs/tok (summed): 9768.9, 9697.5, 9741.1, 9520.9, 9735.6 "
                            "(spread 2.6%)\n"));
  EXPECT_THAT(md, HasSubstr("\n- llama per-trial gpu µs/tok (summed): 8944.5, 8937.5, 8935.0, 8973.8, 8917.9 "
                            "(spread 0.6%)\n"));
  EXPECT_THAT(TableAfter(md, "### Diagnostics"),
              ::testing::ElementsAre("| hf2q | `attr.unpaired_end` | warning | 3 | An execution-point end has no open "
                                     "start for its submission. |"));
}

TEST(MarkdownReport, TraceJsonFamiliesAreKernelFamilies) {
  const std::string metal = RenderMarkdown(testdata::Iter22());
  EXPECT_THAT(metal, HasSubstr("### Per-encoder-family GPU time"));
  EXPECT_THAT(metal, HasSubstr("\nA submission is one GPU execution-point pair (about one encoder)"));

  const std::string json = RenderMarkdown(testdata::Iter22FromTraceJson());
  EXPECT_THAT(json, HasSubstr("### Per-kernel-family GPU time"));
  EXPECT_THAT(json, HasSubstr("| family | hf2q kern/tok | hf2q gpu µs/tok | llama kern/tok |"));
  EXPECT_THAT(json, HasSubstr("\nA dispatch is one GPU kernel event (memcpy and memset included)."));
  EXPECT_THAT(json, Not(HasSubstr("encoder-family")));
  EXPECT_THAT(json, Not(HasSubstr("execution-point pair")));
  EXPECT_THAT(json, HasSubstr(" µs/tok. Kernels/tok "));
  EXPECT_THAT(metal, HasSubstr(" µs/tok. Submissions/tok "));
  EXPECT_THAT(RenderMarkdown(testdata::EngineOnly()), HasSubstr(" submissions/tok, median of "));
}

}  // namespace
}  // namespace perfgate::report
