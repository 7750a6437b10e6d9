// Loading a trial's exported tables from disk.
#include <algorithm>
#include <filesystem>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/reader.h"

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

}  // namespace

StatusOr<TrialTables> LoadTrial(const std::string& path) {
  std::vector<xctrace::Document> docs;
  std::error_code ec;
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
    if (fs::path(path).extension() == ".trace") {
      return Status::Error("attr.trace_bundle",
                           "reading a .trace bundle needs `xctrace export` (macOS); export its tables into a "
                           "trial directory first (see `perfgate record`)",
                           {path}, ErrorKind::kEnvironment);
    }
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

StatusOr<std::vector<std::string>> ExpandTrialPaths(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::Error("io.not_found", "no such trial file or directory", {path});
  if (!fs::is_directory(path, ec)) return std::vector<std::string>{path};
  const std::string marker = std::string(kExecutionPoints) + ".xml";
  auto is_trial = [&](const fs::path& dir) {
    return fs::exists(dir / marker, ec) || fs::exists(dir / (marker + ".gz"), ec);
  };
  if (is_trial(path)) return std::vector<std::string>{path};
  std::vector<std::string> trials;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_directory() && is_trial(entry.path())) trials.push_back(entry.path().string());
    if (entry.path().extension() == ".trace") trials.push_back(entry.path().string());
  }
  if (trials.empty()) {
    return Status::Error("attr.no_trials",
                         "neither a trial directory (no " + marker + "[.gz]) nor a recording of trial subdirectories",
                         {path});
  }
  // Natural order, so trial-10 follows trial-9.
  std::sort(trials.begin(), trials.end(), [](const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
  });
  return trials;
}

}  // namespace perfgate::attribution
