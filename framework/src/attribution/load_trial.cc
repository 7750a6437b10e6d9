// Loading a trial's exported tables from disk.
#include <algorithm>
#include <filesystem>

#include <unistd.h>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/core/process.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/json_trace/trial.h"
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
StatusOr<std::string> ExportTraceBundle(const std::string& trace) {
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
    const std::string xpath = "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" + schema + "\"]";
    PERFGATE_RETURN_IF_ERROR(run({"export", "--input", trace, "--xpath", xpath}, dir / (schema + ".xml")));
  }
  return dir.string();
}

}  // namespace

StatusOr<TrialTables> LoadTrial(const std::string& path) {
  std::vector<xctrace::Document> docs;
  std::error_code ec;
  if (fs::is_directory(path, ec) && fs::path(path).extension() == ".trace") {
    auto exported = ExportTraceBundle(path);
    if (!exported.ok()) return exported.status();
    auto t = LoadTrial(*exported);
    if (t.ok()) t->path = path;
    return t;
  }
  if (fs::is_directory(path, ec)) {
    for (std::string_view schema :
         {kExecutionPoints, xctrace::EncoderRow::kSchema, xctrace::SubmissionMapRow::kSchema,
          xctrace::ShaderRow::kSchema, kShaderTimeline, xctrace::GpuInterval::kSchema}) {
      fs::path file = fs::path(path) / (std::string(schema) + ".xml");
      if (!fs::exists(file, ec)) file += ".gz";
      if (!fs::exists(file, ec)) continue;
      xctrace::ReadOptions options;
      options.expected_schema = std::string(schema);
      auto doc = xctrace::ReadExportFile(file.string(), options);
      if (!doc.ok()) return doc.status();
      docs.push_back(std::move(doc).value());
    }
  } else if (fs::exists(path, ec)) {
    // (a .trace bundle is a directory: handled below)
    auto doc = xctrace::ReadExportFile(path);
    if (!doc.ok()) return doc.status();
    docs.push_back(std::move(doc).value());
  } else {
    return Status::Error("io.not_found", "no such trial file or directory", {path});
  }

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

namespace {

// Natural order: runs of digits compare by value, so trial-2.json.gz precedes
// trial-10.json whatever the names around the numbers. Equal values ("01", "1") fall
// back to bytes, which keeps the order total.
bool NaturalLess(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (!digit(a[i]) || !digit(b[j])) {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
      continue;
    }
    while (i < a.size() && a[i] == '0') ++i;
    while (j < b.size() && b[j] == '0') ++j;
    size_t a_end = i;
    size_t b_end = j;
    while (a_end < a.size() && digit(a[a_end])) ++a_end;
    while (b_end < b.size() && digit(b[b_end])) ++b_end;
    if (a_end - i != b_end - j) return a_end - i < b_end - j;
    if (const int c = a.compare(i, a_end - i, b, j, b_end - j); c != 0) return c < 0;
    i = a_end;
    j = b_end;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

}  // namespace

bool IsTraceJsonTrial(const std::string& path) { return json_trace::LooksLikeTraceJson(path); }

StatusOr<TrialSummary> AttributeTrial(const std::string& path, const AttributionOptions& options) {
  if (IsTraceJsonTrial(path)) {
    auto s = json_trace::SummarizeJsonTrialFile(path, options);
    if (s.ok()) s->source = "trace_json";
    return s;
  }
  auto tables = LoadTrial(path);
  if (!tables.ok()) return tables.status();
  return SummarizeTrial(*tables, options);
}

StatusOr<std::vector<std::string>> ExpandTrialPaths(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::Error("io.not_found", "no such trial file or directory", {path});
  if (IsTraceJsonTrial(path)) return std::vector<std::string>{path};
  if (!fs::is_directory(path, ec) || fs::path(path).extension() == ".trace") {
    return std::vector<std::string>{path};
  }
  const std::string marker = std::string(kExecutionPoints) + ".xml";
  // A trial whose recording failed holds only its INCOMPLETE marker: it is still a
  // trial, and CheckTrialComplete refuses it rather than letting it vanish.
  auto is_trial = [&](const fs::path& dir) {
    return fs::exists(dir / marker, ec) || fs::exists(dir / (marker + ".gz"), ec) ||
           fs::exists(dir / std::string(xctrace::kIncompleteMarkerFile), ec);
  };
  if (is_trial(path)) {
    PERFGATE_RETURN_IF_ERROR(xctrace::CheckTrialComplete(path));
    return std::vector<std::string>{path};
  }
  std::vector<std::string> trials;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const fs::path& p = entry.path();
    if (!entry.is_directory()) {
      if (IsTraceJsonTrial(p.string())) trials.push_back(p.string());
    } else if (p.extension() == ".trace" || is_trial(p)) {
      trials.push_back(p.string());
    } else {
      for (const char* name : {"trace.json", "trace.json.gz"}) {
        if (fs::exists(p / name, ec)) trials.push_back((p / name).string());
      }
    }
  }
  for (const std::string& t : trials) {
    if (fs::is_directory(t, ec)) PERFGATE_RETURN_IF_ERROR(xctrace::CheckTrialComplete(t));
  }
  if (trials.empty()) {
    return Status::Error("attr.no_trials",
                         "neither a trial directory (no " + marker + "[.gz]), a trace-event JSON file, nor a "
                         "recording of trial subdirectories",
                         {path});
  }
  std::sort(trials.begin(), trials.end(), NaturalLess);
  return trials;
}

}  // namespace perfgate::attribution
