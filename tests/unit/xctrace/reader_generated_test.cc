// The reader against the project's generator: every adversarial document gives its
// exact error and location, and generated Metal tables round-trip.
#include <gtest/gtest.h>

#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::xctrace {
namespace {

TEST(XctraceReaderGenerated, EveryAnomalyGivesItsCodeAndLocation) {
  const auto anomalies = gen::AllAnomalies();
  ASSERT_GE(anomalies.size(), 20u);
  for (const gen::Anomaly& a : anomalies) {
    SCOPED_TRACE(a.name + ": " + a.description);
    auto r = ReadExportBuffer(a.bytes, "a.xml");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), a.expected_code);
    EXPECT_EQ(r.status().location().line, a.line);
    EXPECT_EQ(r.status().location().column, a.column);
  }
}

TEST(XctraceReaderGenerated, LenientModeCountsInsteadOfFailing) {
  // Anomalies that leave a readable document: lenient reads succeed and count the code.
  for (const char* name : {"dangling_ref", "forward_ref", "duplicate_id", "ref_tag_mismatch", "arity_short",
                           "arity_long", "type_mismatch", "id_and_ref", "bad_id", "missing_schema",
                           "empty_export", "huge_number", "negative_uint", "uint32_overflow", "unknown_element"}) {
    SCOPED_TRACE(name);
    auto a = gen::FindAnomaly(name);
    ASSERT_TRUE(a.has_value());
    ReadOptions options;
    options.mode = ReadMode::kLenient;
    auto r = ReadExportBuffer(a->bytes, "a.xml", options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GE(r->diagnostics().Count(a->expected_code), 1);
  }
}

TEST(XctraceReaderGenerated, EveryMetalTableRoundTrips) {
  for (const std::string& schema : gen::MetalSchemaNames()) {
    SCOPED_TRACE(schema);
    auto table = gen::RandomMetalTable(schema, 300, 7);
    ASSERT_TRUE(table.has_value());
    for (bool intern : {true, false}) {
      gen::WriteOptions options;
      options.intern = intern;
      auto doc = ReadExportBuffer(gen::WriteTable(*table, options), "g.xml");
      ASSERT_TRUE(doc.ok()) << doc.status().ToString();
      ASSERT_EQ(doc->table_count(), 1u);
      EXPECT_EQ(doc->table(0).schema(), schema);
      EXPECT_EQ(doc->table(0).row_count(), 300u);
      EXPECT_TRUE(doc->diagnostics().empty());
    }
  }
}

TEST(XctraceReaderGenerated, ReorderedAndExtraColumnsGiveTheSameTypedRows) {
  std::vector<gen::ExecutionPointRow> rows;
  for (int i = 0; i < 50; ++i) {
    rows.push_back(gen::ExecutionPointRow::Start(1000 + 10 * i, 0x123457, 500 + i));
    rows.push_back(gen::ExecutionPointRow::End(1005 + 10 * i, 0x123457, 500 + i));
  }
  gen::Table plain = gen::ExecutionPointsTable(rows);
  gen::Table shuffled = plain;
  ASSERT_TRUE(gen::PermuteColumns(&shuffled, {6, 4, 2, 0, 1, 3, 5}));
  gen::InsertColumn(&shuffled, 3, {"future-column", "Future", "uint64"}, gen::Uint64(77));
  auto a = ReadExportBuffer(gen::WriteTable(plain), "a.xml");
  auto b = ReadExportBuffer(gen::WriteTable(shuffled), "b.xml");
  ASSERT_TRUE(a.ok() && b.ok());
  Diagnostics da, db;
  auto pa = ReadExecutionPoints(a->table(0), &da);
  auto pb = ReadExecutionPoints(b->table(0), &db);
  ASSERT_TRUE(pa.ok() && pb.ok());
  ASSERT_EQ(pa->size(), 100u);
  ASSERT_EQ(pb->size(), 100u);
  for (size_t i = 0; i < pa->size(); ++i) {
    EXPECT_EQ((*pa)[i].timestamp_ns, (*pb)[i].timestamp_ns);
    EXPECT_EQ((*pa)[i].function, (*pb)[i].function);
    EXPECT_EQ((*pa)[i].submission, (*pb)[i].submission);
  }
  EXPECT_EQ((*pb)[99].timestamp_ns, 1495);
  EXPECT_EQ((*pb)[99].submission.value, 549u);
}

TEST(XctraceReaderGenerated, BulkExportsDecodeCompletely) {
  size_t rows = 0;
  auto doc = ReadExportBuffer(gen::GenerateExecutionPointsExport(2'000'000, 3, &rows), "bulk.xml");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->table(0).row_count(), rows);
  size_t enc_rows = 0;
  auto enc = ReadExportBuffer(gen::GenerateEncodersListExport(2'000'000, 3, &enc_rows), "enc.xml");
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  Diagnostics d;
  auto typed = ReadEncoderRows(enc->table(0), &d);
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(typed->size(), enc_rows);
  EXPECT_TRUE(d.empty());
}

}  // namespace
}  // namespace perfgate::xctrace
