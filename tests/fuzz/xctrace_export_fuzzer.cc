// Fuzzes the xctrace export reader (ReadExportBuffer) in strict and lenient mode, and
// what `perfgate table` and `perfgate attribute` do next with a document that reads:
// the JSON and CSV table dumps, every Metal table view, and Metal attribution.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/table_dump.h"

namespace {

using namespace perfgate;

void DumpTables(const xctrace::Document& doc) {
  fuzz::NullStream out;
  for (size_t i = 0; i < doc.table_count(); ++i) {
    xctrace::Table table = doc.table(i);
    (void)xctrace::WriteTableJson(doc, table, out);  // a Status: output_too_large is fine here
    (void)xctrace::WriteTableCsv(doc, table, out);
    if (table.row_count() > 0) (void)table.RowLocation(table.row_count() - 1);
  }
}

// Each view with diagnostics (lenient) and without (every anomaly is an error).
template <typename Row>
void ReadView(const xctrace::Document& doc) {
  Diagnostics diagnostics;
  (void)xctrace::ReadMetalTable<Row>(doc, &diagnostics);
  (void)xctrace::ReadMetalTable<Row>(doc, nullptr);
}

template <typename Row>
bool ReadInto(const xctrace::Document& doc, Diagnostics* diagnostics, std::optional<std::vector<Row>>* out) {
  if (!doc.FindTable(Row::kSchema)) return true;
  auto rows = xctrace::ReadMetalTable<Row>(doc, diagnostics);
  if (!rows.ok()) return false;
  *out = std::move(rows).value();
  return true;
}

// The tables attribution::LoadTrial would build from this one document, attributed.
void Attribute(const xctrace::Document& doc) {
  attribution::TrialTables tables;
  auto points = xctrace::ReadMetalTable<xctrace::ExecutionPoint>(doc, &tables.diagnostics);
  if (!points.ok()) return;
  tables.execution_points = std::move(points).value();
  if (!ReadInto(doc, &tables.diagnostics, &tables.encoders) ||
      !ReadInto(doc, &tables.diagnostics, &tables.submission_map) ||
      !ReadInto(doc, &tables.diagnostics, &tables.shaders) ||
      !ReadInto(doc, &tables.diagnostics, &tables.gpu_intervals)) {
    return;
  }
  attribution::AttributionOptions options;
  options.tokens = 1;
  options.all_processes = true;
  (void)attribution::SummarizeTrial(tables, options);
  options.seed_compat = true;
  (void)attribution::SummarizeTrial(tables, options);
}

void Exercise(const xctrace::Document& doc) {
  DumpTables(doc);
  ReadView<xctrace::ExecutionPoint>(doc);
  ReadView<xctrace::GpuInterval>(doc);
  ReadView<xctrace::EncoderRow>(doc);
  ReadView<xctrace::SubmissionMapRow>(doc);
  ReadView<xctrace::ShaderRow>(doc);
  ReadView<xctrace::CommandBufferSubmission>(doc);
  ReadView<xctrace::DriverInterval>(doc);
  ReadView<xctrace::ShaderProfilerInterval>(doc);
  Attribute(doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::AsString(data, size);
  for (xctrace::ReadMode mode : {xctrace::ReadMode::kStrict, xctrace::ReadMode::kLenient}) {
    xctrace::ReadOptions options;
    options.mode = mode;
    auto doc = xctrace::ReadExportBuffer(bytes, "fuzz.xml", options);
    if (!doc.ok()) {
      (void)doc.status().ToString();
      continue;
    }
    Exercise(*doc);
  }
  return 0;
}
