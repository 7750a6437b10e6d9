#include "perfgate/core/diagnostics.h"

#include <gtest/gtest.h>

#include <set>

namespace perfgate {
namespace {

TEST(DiagnosticCatalogue, CodesAreUniqueAndDescribed) {
  std::set<std::string_view> codes;
  for (const auto& d : DiagnosticCatalogue()) {
    EXPECT_TRUE(codes.insert(d.code).second) << d.code;
    EXPECT_FALSE(d.summary.empty()) << d.code;
    EXPECT_EQ(d.summary.back(), '.') << d.code;
  }
  ASSERT_NE(FindDiagnostic("xctrace.dangling_ref"), nullptr);
  EXPECT_EQ(FindDiagnostic("xctrace.dangling_ref")->severity, Severity::kError);
  EXPECT_EQ(FindDiagnostic("attr.unpaired_end")->severity, Severity::kWarning);
  EXPECT_EQ(FindDiagnostic("no.such.code"), nullptr);
}

TEST(Diagnostics, CountsKeepTheFirstOccurrence) {
  Diagnostics d;
  EXPECT_TRUE(d.empty());
  d.Add("attr.unpaired_end", {"a.xml", 4, 2}, "first");
  d.Add("attr.unpaired_end", {"a.xml", 9, 1}, "second");
  d.Add("xctrace.dangling_ref", {"a.xml", 1, 1}, "dangling");
  d.AddCount("attr.leftover_start", 5);
  d.AddCount("attr.other_process", 0);
  EXPECT_EQ(d.Count("attr.unpaired_end"), 2);
  EXPECT_EQ(d.Count("attr.leftover_start"), 5);
  EXPECT_FALSE(d.Has("attr.other_process"));
  EXPECT_EQ(d.ErrorCount(), 1);
  auto entries = d.Entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].code, "attr.leftover_start");  // sorted by code
  EXPECT_EQ(entries[1].first_detail, "first");
  EXPECT_EQ(entries[1].first_location.line, 4);
}

TEST(Diagnostics, MergeAddsCounts) {
  Diagnostics a, b;
  a.Add("attr.unpaired_end");
  b.AddCount("attr.unpaired_end", 3);
  b.Add("attr.duplicate_start");
  a.Merge(b);
  EXPECT_EQ(a.Count("attr.unpaired_end"), 4);
  EXPECT_EQ(a.Count("attr.duplicate_start"), 1);
}

TEST(DiagnosticsDeathTest, UncataloguedCodeAborts) {
  Diagnostics d;
  EXPECT_DEATH(d.Add("made.up"), "not catalogued");
}

}  // namespace
}  // namespace perfgate
