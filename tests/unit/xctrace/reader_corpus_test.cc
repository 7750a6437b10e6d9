// Conformance over the real third-party exports in shared/corpus/xctrace, read in place.
#include <gtest/gtest.h>

#include <filesystem>

#include "perfgate/xctrace/reader.h"
#include "support/corpus.h"

namespace perfgate::xctrace {
namespace {

Document ReadStrict(const std::string& path) {
  auto r = ReadExportFile(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

TEST(XctraceCorpus, EveryRealExportDecodesStrictlyWithoutAnomalies) {
  PERFGATE_CORPUS_FILE_OR_SKIP(xctrace_dir, "xctrace");
  const std::string dir = testing_support::CorpusDir();
  int exports = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir + "/xctrace")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".xml" || path.find(".toc.") != std::string::npos ||
        path.find("-toc.") != std::string::npos) {
      continue;
    }
    SCOPED_TRACE(path);
    Document d = ReadStrict(path);
    EXPECT_EQ(d.table_count(), 1u);
    EXPECT_TRUE(d.diagnostics().empty());
    ++exports;
  }
  EXPECT_EQ(exports, 8);
}

TEST(XctraceCorpus, JsExecutionPoints) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-gpu-execution-points.EXCERPT.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 58u);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("timestamp")).AsInt64(), 329899666);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("slot-id")).AsUint64(), 1594567233u);
  EXPECT_EQ(*t.cell(3, *t.ColumnIndex("channel-id")).AsUint64(), 1193048u);  // a ref to id 11
  int starts = 0, ends = 0, sentinels = 0;
  for (size_t r = 0; r < t.row_count(); ++r) {
    uint64_t fn = *t.cell(r, *t.ColumnIndex("function")).AsUint64();
    starts += fn == 1;
    ends += fn == 2;
    sentinels += t.cell(r, *t.ColumnIndex("note")).is_sentinel();
    EXPECT_EQ(*t.cell(r, *t.ColumnIndex("accelerator-id")).AsUint64(), kNoId);
  }
  EXPECT_EQ(starts + ends, 58);
  EXPECT_EQ(sentinels, starts);  // note is a sentinel on start rows, an empty string on ends
}

TEST(XctraceCorpus, JsDriverProcessRefResolvesThroughNestedLabel) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 22u);
  size_t process = *t.ColumnIndex("process");
  // Row 1's process is first written inside event-label > thread; row 3 brings the
  // second process the same way. Every row's top-level process cell must resolve.
  int backboardd = 0, solo = 0;
  for (size_t r = 0; r < t.row_count(); ++r) {
    Value p = t.cell(r, process);
    ASSERT_FALSE(p.is_null()) << r;
    int64_t pid = *p.Find("pid").AsInt64();
    if (p.fmt() == "backboardd (75)" && pid == 75) ++backboardd;
    if (p.fmt() == "SOLO: Unicorn Run (3539)" && pid == 3539) ++solo;
  }
  EXPECT_EQ(backboardd, 7);  // 7 + 15 top-level refs, definitions all nested
  EXPECT_EQ(solo, 15);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("duration")).AsInt64(), 197584);
  EXPECT_EQ(t.cell(0, *t.ColumnIndex("gpu")).text(), "A18 Pro");
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("object-id")).AsUint64(), kNoId);
}

TEST(XctraceCorpus, JsDriverBlankNarrativeTextIsOneSpace) {
  // Row 1's lane is <formatted-label id="20" fmt=" "><narrative-text id="21" fmt=" ">
  // </narrative-text></formatted-label> (grep 'id="21"' in the file): the narrative's
  // text is one space, not an empty string.
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/JSama99-Solo/Phase12-iPhone16Pro-metal-driver.EXCERPT.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  Value lane = t.cell(0, *t.ColumnIndex("lane"));
  EXPECT_EQ(lane.fmt(), " ");
  EXPECT_EQ(lane.text(), "");
  ASSERT_EQ(lane.child_count(), 1u);
  EXPECT_EQ(lane.child(0).tag(), "narrative-text");
  EXPECT_EQ(lane.child(0).text(), " ");
}

TEST(XctraceCorpus, XqNarrativeRefsBackToSameRowAndSentinels) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/xctrace-query-mcp-server/display-vsyncs-interval.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 10u);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("duration")).AsInt64(), 1);  // the constant 1 ns "duration"
}

TEST(XctraceCorpus, XpTimeProfileBacktraces) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/xctraceprof/time-profile.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 105u);
  // Every top-level process cell refs a process nested in the thread cell.
  size_t process = *t.ColumnIndex("process");
  for (size_t r = 0; r < t.row_count(); ++r) {
    EXPECT_EQ(*t.cell(r, process).Find("pid").AsInt64(), 23369) << r;
  }
  PERFGATE_CORPUS_FILE_OR_SKIP(cpu, "xctrace/xctraceprof/cpu-profile.xml");
  EXPECT_EQ(ReadStrict(cpu).table(0).row_count(), 584u);
}

TEST(XctraceCorpus, ProbeCliGpuIntervalsWithoutIds) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "xctrace/probe-cli/metal-system-trace.metal-gpu-intervals.xml");
  Document d = ReadStrict(path);
  Table t = d.table(0);
  ASSERT_EQ(t.row_count(), 2u);
  EXPECT_EQ(t.columns()[15].name, "Commmand Buffer Id");  // Apple's typo, kept
  EXPECT_EQ(t.columns()[17].engineering_type, "uint64");
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("start")).AsInt64(), 358223833);
  EXPECT_EQ(*t.cell(0, *t.ColumnIndex("duration")).AsInt64(), 6083);
}

}  // namespace
}  // namespace perfgate::xctrace
