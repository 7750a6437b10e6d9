// The Metal source: loading a trial's xctrace exports from disk (a trial directory,
// one XML file, or a .trace bundle exported through xctrace on macOS).
#include <filesystem>
#include <optional>

#include <unistd.h>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/core/jobs.h"
#include "perfgate/core/process.h"
#include "perfgate/xctrace/recorder.h"

namespace perfgate::attribution {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kExecutionPoints = xctrace::ExecutionPoint::kSchema;
constexpr std::string_view kShaderTimeline = xctrace::ShaderProfilerInterval::kSchema;

// Finds `schema` among the documents; nullopt when no document holds it.
std::optional<xctrace::Table> FindIn(const std::vector<xctrace::Document>& docs, std::string_view schema) {
  for (const auto& d : docs) {
    if (auto t = d.FindTable(schema)) return t;
  }
  return std::nullopt;
}

template <typename Row, typename ReadFn>
Status ReadOptional(const std::vector<xctrace::Document>& docs, ReadFn read, Diagnostics* diagnostics,
                    std::optional<std::vector<Row>>* out) {
  std::optional<xctrace::Table> t = FindIn(docs, Row::kSchema);
  if (!t) return Status();
  auto rows = read(*t, diagnostics);
  if (!rows.ok()) return rows.status();
  *out = std::move(rows).value();
  return Status();
}

// Exports a .trace bundle's tables with xctrace into a fresh temporary trial
// directory (macOS; elsewhere xctrace is missing and this says so).
StatusOr<std::string> ExportTraceBundle(const std::string& trace, int run_number) {
  auto xctrace = xctrace::LocateXctrace();
  if (!xctrace.ok()) {
    return Status::Error("attr.trace_bundle",
                         "reading a .trace bundle needs `xctrace export` (macOS): " + xctrace.status().message() +
                             "; export its tables into a trial directory first",
                         {trace}, ErrorKind::kEnvironment);
  }
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec) / ("perfgate-export-" + std::to_string(::getpid()) + "-" +
                                                fs::path(trace).stem().string());
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  auto run = [&](std::vector<std::string> args, const fs::path& out) -> Status {
    ProcessOptions options;
    options.argv = xctrace->argv;
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.stdout_path = out.string();
    options.max_stdout_bytes = size_t{4} << 30;  // exports run to hundreds of MB
    options.timeout_ms = 10 * 60 * 1000;
    auto r = RunProcess(options);
    if (!r.ok()) return r.status();
    return CheckProcessSucceeded(*r, "xctrace export");
  };
  PERFGATE_RETURN_IF_ERROR(run({"export", "--input", trace, "--toc"}, dir / "toc.xml"));
  for (const std::string& schema : xctrace::DefaultRecordTables()) {
    const std::string xpath = "/trace-toc/run[@number=\"" + std::to_string(run_number) + "\"]/data/table[@schema=\"" +
                              schema + "\"]";
    PERFGATE_RETURN_IF_ERROR(run({"export", "--input", trace, "--xpath", xpath}, dir / (schema + ".xml")));
  }
  return dir.string();
}

}  // namespace

namespace {

// The schemas a trial directory may hold, one `<schema>.xml[.gz]` file each.
constexpr std::string_view kTrialSchemas[] = {kExecutionPoints,
                                              xctrace::EncoderRow::kSchema,
                                              xctrace::SubmissionMapRow::kSchema,
                                              xctrace::ShaderRow::kSchema,
                                              kShaderTimeline,
                                              xctrace::GpuInterval::kSchema};

// Reads the exports of a trial directory, or the one XML file that is the trial.
StatusOr<std::vector<xctrace::Document>> ReadTrialDocuments(const std::string& path, int run) {
  std::vector<xctrace::Document> docs;
  std::error_code ec;
  xctrace::ReadOptions options;
  options.run = run;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return Status::Error("io.not_found", "no such trial file or directory", {path});
    auto doc = xctrace::ReadExportFile(path, options);
    if (!doc.ok()) return doc.status();
    docs.push_back(std::move(doc).value());
    return docs;
  }
  std::vector<std::pair<std::string, std::string>> files;  // schema, file
  for (std::string_view schema : kTrialSchemas) {
    fs::path file = fs::path(path) / (std::string(schema) + ".xml");
    if (!fs::exists(file, ec)) file += ".gz";
    if (fs::exists(file, ec)) files.emplace_back(schema, file.string());
  }
  // The tables are independent documents: decoded on every core, kept in schema
  // order, the first failure in that order reported.
  std::vector<std::optional<StatusOr<xctrace::Document>>> read(files.size());
  ParallelFor(files.size(), [&](size_t i) {
    xctrace::ReadOptions table_options = options;
    table_options.expected_schema = files[i].first;
    read[i] = xctrace::ReadExportFile(files[i].second, table_options);
  });
  for (auto& doc : read) {
    if (!doc->ok()) return doc->status();
    docs.push_back(std::move(*doc).value());
  }
  return docs;
}

StatusOr<TrialTables> TablesOf(const std::string& path, const std::vector<xctrace::Document>& docs);

}  // namespace

StatusOr<TrialTables> LoadTrial(const std::string& path) { return LoadTrial(path, 0); }

StatusOr<TrialTables> LoadTrial(const std::string& path, int run) {
  std::error_code ec;
  if (fs::is_directory(path, ec) && fs::path(path).extension() == ".trace") {
    auto exported = ExportTraceBundle(path, run > 0 ? run : 1);
    if (!exported.ok()) return exported.status();
    auto t = LoadTrial(*exported, 0);
    if (t.ok()) t->path = path;
    return t;
  }
  auto docs = ReadTrialDocuments(path, run);
  if (!docs.ok()) return docs.status();
  return TablesOf(path, *docs);
}

namespace {

// The typed tables attribution reads, from the documents of one trial.
StatusOr<TrialTables> TablesOf(const std::string& path, const std::vector<xctrace::Document>& docs) {
  TrialTables t;
  t.path = path;
  std::optional<xctrace::Table> points = FindIn(docs, kExecutionPoints);
  if (!points) {
    return Status::Error("xctrace.missing_table",
                         "the trial has no " + std::string(kExecutionPoints) +
                             " table (expected " + std::string(kExecutionPoints) + ".xml in a trial directory)",
                         {path});
  }
  auto rows = xctrace::ReadExecutionPoints(*points, &t.diagnostics);
  if (!rows.ok()) return rows.status();
  t.execution_points = std::move(rows).value();
  PERFGATE_RETURN_IF_ERROR(ReadOptional(docs, xctrace::ReadEncoderRows, &t.diagnostics, &t.encoders));
  PERFGATE_RETURN_IF_ERROR(ReadOptional(docs, xctrace::ReadSubmissionMap, &t.diagnostics, &t.submission_map));
  PERFGATE_RETURN_IF_ERROR(ReadOptional(docs, xctrace::ReadShaderList, &t.diagnostics, &t.shaders));
  PERFGATE_RETURN_IF_ERROR(ReadOptional(docs, xctrace::ReadGpuIntervals, &t.diagnostics, &t.gpu_intervals));
  if (auto timeline = FindIn(docs, kShaderTimeline)) {
    t.shader_timeline_rows = static_cast<int64_t>(timeline->row_count());
  }
  for (const auto& d : docs) t.diagnostics.Merge(d.diagnostics());
  return t;
}

}  // namespace

}  // namespace perfgate::attribution
