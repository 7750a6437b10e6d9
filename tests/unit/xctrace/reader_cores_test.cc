// One core against two: the export reader parses a large table's next chunk on a
// second core, checks each half of the buffer there, and the typed views decode each
// half of a large table there. Every generated variant must read the same either way:
// the same cells (the table's JSON dump, byte for byte), the same typed rows, the
// same diagnostics (codes, counts, first places and details) and the same errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/table_dump.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::xctrace {
namespace {

// PERFGATE_JOBS set for the scope (the reader asks for it at each read).
class Jobs {
 public:
  explicit Jobs(const char* n) {
    if (const char* old = std::getenv("PERFGATE_JOBS")) old_ = old;
    setenv("PERFGATE_JOBS", n, 1);
  }
  ~Jobs() {
    if (old_) {
      setenv("PERFGATE_JOBS", old_->c_str(), 1);
    } else {
      unsetenv("PERFGATE_JOBS");
    }
  }

 private:
  std::optional<std::string> old_;
};

std::string DiagnosticsText(const Diagnostics& d) {
  std::ostringstream o;
  for (const Diagnostics::Entry& e : d.Entries()) {
    o << e.code << ' ' << e.count << ' ' << e.first_location.line << ':' << e.first_location.column << ' '
      << e.first_detail << '\n';
  }
  return o.str();
}

// Everything a read gives: the error, or every table's JSON dump and diagnostics,
// then the typed execution points (every field) and the typed views' row counts.
std::string Reading(const std::string& bytes, ReadMode mode) {
  ReadOptions options;
  options.mode = mode;
  auto doc = ReadExportBuffer(bytes, "g.xml", options);
  if (!doc.ok()) return "error " + doc.status().ToString();
  std::ostringstream o;
  o << DiagnosticsText(doc->diagnostics());
  for (size_t t = 0; t < doc->table_count(); ++t) {
    if (Status s = WriteTableJson(*doc, doc->table(t), o); !s.ok()) o << s.ToString();
  }
  Diagnostics typed;
  if (auto points = ReadMetalTable<ExecutionPoint>(*doc, &typed); points.ok()) {
    for (const ExecutionPoint& p : *points) {
      o << p.row << ' ' << p.timestamp_ns << ' ' << p.channel_id << ' ' << p.function << ' ' << p.submission.value
        << ' ' << p.slot_id.value_or(0) << ' ' << p.accelerator_id.has_value() << '\n';
    }
  } else {
    o << points.status().ToString() << '\n';
  }
  auto count = [&](auto rows) { o << (rows.ok() ? std::to_string(rows->size()) : rows.status().ToString()) << '\n'; };
  count(ReadMetalTable<GpuInterval>(*doc, &typed));
  count(ReadMetalTable<EncoderRow>(*doc, &typed));
  count(ReadMetalTable<SubmissionMapRow>(*doc, &typed));
  o << DiagnosticsText(typed);
  return o.str();
}

void ExpectTheSameOnOneAndTwoCores(const std::string& bytes, ReadMode mode = ReadMode::kStrict) {
  std::string one, two;
  {
    Jobs jobs("1");
    one = Reading(bytes, mode);
  }
  {
    Jobs jobs("2");
    two = Reading(bytes, mode);
  }
  ASSERT_FALSE(one.empty());
  EXPECT_TRUE(one == two) << "one core and two cores differ (" << one.size() << " against " << two.size()
                          << " bytes of reading)";
}

TEST(XctraceCores, EveryMetalTableReadsTheSameOnOneAndTwoCores) {
  // 8,500 rows: past the typed views' split (8,192 rows) and over more than one 1 MiB
  // chunk for most schemas; written without ids too for the tables Reading types.
  for (const std::string& schema : gen::MetalSchemaNames()) {
    SCOPED_TRACE(schema);
    auto table = gen::RandomMetalTable(schema, 8500, 11);
    ASSERT_TRUE(table.has_value());
    const bool typed = schema == ExecutionPoint::kSchema || schema == GpuInterval::kSchema ||
                       schema == EncoderRow::kSchema || schema == SubmissionMapRow::kSchema;
    for (bool intern : {true, false}) {
      if (!intern && !typed) continue;
      gen::WriteOptions options;
      options.intern = intern;
      ExpectTheSameOnOneAndTwoCores(gen::WriteTable(*table, options));
    }
  }
}

TEST(XctraceCores, BulkExportsReadTheSameOnOneAndTwoCores) {
  ExpectTheSameOnOneAndTwoCores(gen::GenerateExecutionPointsExport(6'000'000, 5));
  ExpectTheSameOnOneAndTwoCores(gen::GenerateEncodersListExport(6'000'000, 5));
}

// Null required values in both halves of a large table: lenient reading counts them,
// and the first detail is the first row's, on two cores as on one; strict reading
// stops at that row either way.
TEST(XctraceCores, TypedDiagnosticsOfBothHalvesMergeInRowOrder) {
  std::vector<gen::ExecutionPointRow> rows;
  for (int i = 0; i < 10000; ++i) {
    rows.push_back(gen::ExecutionPointRow::Start(1000 + 10 * i, 0x123457, 500 + i));
    rows.push_back(gen::ExecutionPointRow::End(1005 + 10 * i, 0x123457, 500 + i));
  }
  gen::Table table = gen::ExecutionPointsTable(rows);
  for (size_t r : {size_t{15000}, size_t{3}, size_t{19999}, size_t{9999}}) table.rows[r][0] = gen::Cell::Sentinel();
  const std::string bytes = gen::WriteTable(table);
  ExpectTheSameOnOneAndTwoCores(bytes, ReadMode::kLenient);
  ExpectTheSameOnOneAndTwoCores(bytes, ReadMode::kStrict);
  Jobs jobs("2");
  const std::string lenient = Reading(bytes, ReadMode::kLenient);
  EXPECT_NE(lenient.find("xctrace.null_required_value 4 "), std::string::npos) << lenient.substr(0, 400);
}

TEST(XctraceCores, EveryAnomalyGivesTheSameErrorOnOneAndTwoCores) {
  for (const gen::Anomaly& a : gen::AllAnomalies()) {
    SCOPED_TRACE(a.name);
    ExpectTheSameOnOneAndTwoCores(a.bytes);
    ExpectTheSameOnOneAndTwoCores(a.bytes, ReadMode::kLenient);
  }
}

}  // namespace
}  // namespace perfgate::xctrace
