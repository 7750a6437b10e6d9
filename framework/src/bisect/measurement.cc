#include "perfgate/bisect/measurement.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "core/string_util.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/kernel_report/metrics.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"
#include "perfgate/stats/summary.h"
#include "perfgate/toks/bench_report.h"
#include "perfgate/toks/ratio.h"

namespace perfgate::bisect {
namespace {

namespace fs = std::filesystem;

// What a reader counted, as notes ("attr.unlabelled × 12: ..."): the report shows them.
void NoteDiagnostics(const Diagnostics& diagnostics, std::vector<std::string>* notes) {
  for (const Diagnostics::Entry& e : diagnostics.Entries()) {
    notes->push_back(e.code + " x " + std::to_string(e.count) + (e.first_detail.empty() ? "" : ": " + e.first_detail));
  }
}

StatusOr<Measurement> ReadTrace(const std::string& dir, const ReadOptions& options) {
  PERFGATE_ASSIGN_OR_RETURN(bundle::Recording recording, bundle::DiscoverTrials(dir));
  PERFGATE_RETURN_IF_ERROR(bundle::RequireOneSource(dir, recording.trials));
  const sources::TraceSource& source = *recording.trials.front().source;
  const attribution::AttributionOptions attribution =
      sources::WithDefaultProcessFilter(source, options.engine, options.attribution);
  PERFGATE_ASSIGN_OR_RETURN(attribution::EngineSummary engine,
                            bundle::AttributeTrials(options.engine, recording.trials, attribution));
  Measurement m;
  m.kind = RecordingKind::kTrace;
  m.figures = metrics::AllFigures(engine);
  m.side = diff::SideOf(engine);
  for (const std::string& ignored : recording.ignored) m.notes.push_back(ignored + " is no trial: not read");
  NoteDiagnostics(engine.diagnostics, &m.notes);
  return m;
}

StatusOr<Measurement> ReadKernelReportFile(const std::string& file, const ReadOptions& options) {
  kernel_report::ReadOptions read;
  read.tokens = options.attribution.tokens;
  PERFGATE_ASSIGN_OR_RETURN(kernel_report::KernelReport report, kernel_report::ReadKernelReport(file, read));
  report.name = options.engine;
  Measurement m;
  m.kind = RecordingKind::kKernelReport;
  m.figures = kernel_report::ReportGolden(report);
  m.side = diff::SideOf(report);
  NoteDiagnostics(report.diagnostics, &m.notes);
  return m;
}

StatusOr<Measurement> ReadBenchFile(const std::string& file) {
  PERFGATE_ASSIGN_OR_RETURN(toks::BenchReport report, toks::ReadBenchReport(file));
  Measurement m;
  m.kind = RecordingKind::kBenchReport;
  m.figures = toks::BenchGolden(report);
  NoteDiagnostics(report.diagnostics, &m.notes);
  return m;
}

// The recording's one file, or "" when the directory holds more (or a directory).
std::string LoneFile(const std::string& dir, size_t* entries) {
  std::error_code ec;
  std::string file;
  *entries = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    ++*entries;
    if (e.is_regular_file(ec)) file = e.path().string();
  }
  return *entries == 1 ? file : "";
}

StatusOr<Measurement> ReadOne(const std::string& dir, const ReadOptions& options) {
  // perfgate record writes OUT/<engine>/trial-N.
  std::error_code ec;
  const fs::path engine_dir = fs::path(dir) / options.engine;
  if (!options.engine.empty() && fs::is_directory(engine_dir, ec)) return ReadTrace(engine_dir.string(), options);
  size_t entries = 0;
  const std::string file = LoneFile(dir, &entries);
  if (entries == 0) {
    return Status::Error("bisect.empty_recording", "the record command wrote nothing into this directory",
                         {dir, 0, 0});
  }
  if (file.empty() || sources::SniffSource(file) != nullptr) return ReadTrace(dir, options);
  if (kernel_report::LooksLikeKernelReport(file)) return ReadKernelReportFile(file, options);
  StatusOr<Measurement> bench = ReadBenchFile(file);
  if (bench.ok()) return bench;
  return Status::Error("bisect.unknown_recording",
                       "no trace, per-kernel report or llama-bench report (read as llama-bench: " +
                           bench.status().ToString() + ")",
                       {file, 0, 0});
}

// Appends `more`'s trials of each item to `into`'s: a side that lacks an item counts 0
// for it in each of its trials, as diff::SideOf counts a trial without an item.
void AppendItems(std::vector<diff::Item>* into, size_t into_trials, const std::vector<diff::Item>& more,
                 size_t more_trials) {
  for (diff::Item& item : *into) {
    const auto found = std::find_if(more.begin(), more.end(), [&](const diff::Item& m) { return m.name == item.name; });
    const std::vector<double> zeros(more_trials, 0.0);
    const diff::Item& add = found != more.end() ? *found : diff::Item{item.name, {}, zeros, zeros, std::nullopt};
    item.calls_per_token.insert(item.calls_per_token.end(), add.calls_per_token.begin(), add.calls_per_token.end());
    item.us_per_token.insert(item.us_per_token.end(), add.us_per_token.begin(), add.us_per_token.end());
  }
  for (const diff::Item& m : more) {
    const bool known = std::any_of(into->begin(), into->end(), [&](const diff::Item& i) { return i.name == m.name; });
    if (known) continue;
    diff::Item item = m;
    item.calls_per_token.insert(item.calls_per_token.begin(), into_trials, 0.0);
    item.us_per_token.insert(item.us_per_token.begin(), into_trials, 0.0);
    into->push_back(std::move(item));
  }
}

void AppendTrials(diff::Side* into, const diff::Side& more) {
  into->total_us_per_token.insert(into->total_us_per_token.end(), more.total_us_per_token.begin(),
                                  more.total_us_per_token.end());
  // A level one side lacks counts 0 for each of its items in that side's trials.
  for (const diff::LevelItems& level : more.levels) {
    auto found = std::find_if(into->levels.begin(), into->levels.end(),
                              [&](const diff::LevelItems& l) { return l.level == level.level; });
    if (found == into->levels.end()) {
      into->notes.push_back(std::string("level ") + diff::LevelName(level.level) + " is missing from a recording");
      found = into->levels.insert(into->levels.end(), diff::LevelItems{level.level, level.word, level.calls_word, {}});
    }
    AppendItems(&found->items, into->trials, level.items, more.trials);
  }
  for (diff::LevelItems& level : into->levels) {
    const bool in_more = std::any_of(more.levels.begin(), more.levels.end(),
                                     [&](const diff::LevelItems& l) { return l.level == level.level; });
    if (in_more) continue;
    into->notes.push_back(std::string("level ") + diff::LevelName(level.level) + " is missing from a recording");
    AppendItems(&level.items, into->trials, {}, more.trials);
  }
  std::sort(into->levels.begin(), into->levels.end(),
            [](const diff::LevelItems& a, const diff::LevelItems& b) { return a.level < b.level; });
  for (auto it = into->figures.begin(); it != into->figures.end();) {
    const auto add = more.figures.find(it->first);
    if (add == more.figures.end()) {
      into->notes.push_back(it->first + " is missing from a recording: not compared");
      it = into->figures.erase(it);
      continue;
    }
    it->second.insert(it->second.end(), add->second.begin(), add->second.end());
    ++it;
  }
  into->trials += more.trials;
}

}  // namespace

std::string FigureNames(const golden::GoldenFile& figures) {
  std::string known;
  for (const auto& [name, _] : figures.values) known += (known.empty() ? "" : ", ") + name;
  return known.empty() ? "none" : known;
}

std::vector<double> SamplesOrValue(const golden::GoldenValue& value) {
  return value.samples.empty() ? std::vector<double>{value.value} : value.samples;
}

const char* RecordingKindName(RecordingKind kind) {
  switch (kind) {
    case RecordingKind::kTrace: return "trace";
    case RecordingKind::kKernelReport: return "kernel report";
    case RecordingKind::kBenchReport: return "llama-bench report";
  }
  return "trace";
}

StatusOr<Measurement> ReadRecording(const std::string& dir, const ReadOptions& options) {
  PERFGATE_ASSIGN_OR_RETURN(Measurement m, ReadOne(dir, options));
  m.recordings = 1;
  if (m.side) m.side->paths = {dir};
  return m;
}

Status Merge(Measurement* into, const Measurement& more) {
  if (into->kind != more.kind) {
    return Status::Error("bisect.mixed_recordings", std::string("a recording is a ") + RecordingKindName(more.kind) +
                                                        ", an earlier one of the same commit a " +
                                                        RecordingKindName(into->kind));
  }
  for (auto& [name, value] : into->figures.values) {
    const auto add = more.figures.values.find(name);
    if (add == more.figures.values.end()) {
      into->notes.push_back(name + " is missing from recording " + std::to_string(into->recordings + 1));
      continue;
    }
    std::vector<double> samples = SamplesOrValue(value);
    const std::vector<double> extra = SamplesOrValue(add->second);
    samples.insert(samples.end(), extra.begin(), extra.end());
    value.value = stats::Median(samples);
    value.samples = std::move(samples);
  }
  for (const auto& [name, value] : more.figures.values) {
    if (into->figures.values.emplace(name, value).second) {
      into->notes.push_back(name + " is missing from the first " + std::to_string(into->recordings) + " recording(s)");
    }
  }
  if (into->side && more.side) AppendTrials(&*into->side, *more.side);
  into->notes.insert(into->notes.end(), more.notes.begin(), more.notes.end());
  into->recordings += more.recordings;
  return Status();
}

StatusOr<std::string> DefaultMetric(const Measurement& measurement) {
  switch (measurement.kind) {
    case RecordingKind::kTrace: return std::string("gpu_us_per_token");
    case RecordingKind::kKernelReport: return std::string("us_per_token");
    case RecordingKind::kBenchReport: break;
  }
  std::vector<std::string> tg;
  for (const auto& [name, _] : measurement.figures.values) {
    if (StartsWith(name, "toks/tg")) tg.push_back(name);
  }
  if (tg.size() == 1) return tg.front();
  const std::string tg128 = metrics::MetricId{"toks", "tg128", "engine_ts"}.GoldenPath();
  if (measurement.figures.values.count(tg128) > 0) return tg128;
  return Status::Error("bisect.unknown_metric",
                       "the llama-bench report has no tg128 test and not exactly one tg test: name one with "
                       "--metric (known: " + FigureNames(measurement.figures) + ")",
                       {}, ErrorKind::kUsage);
}

StatusOr<MetricSamples> SamplesOf(const Measurement& measurement, const std::string& metric) {
  const auto found = measurement.figures.values.find(metric);
  if (found == measurement.figures.values.end()) {
    return Status::Error("bisect.unknown_metric",
                         "no figure '" + metric + "' in the " + RecordingKindName(measurement.kind) +
                             " (known: " + FigureNames(measurement.figures) + ")",
                         {}, ErrorKind::kUsage);
  }
  return MetricSamples{SamplesOrValue(found->second), found->second.policy};
}

}  // namespace perfgate::bisect
