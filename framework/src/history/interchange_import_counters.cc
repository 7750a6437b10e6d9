// A counter-report history (hf2q's metrics_baseline.txt) as runs: one per report, its
// numeric counters as the catalogue's "counters/<key>" figures of one engine.
#include <cctype>
#include <optional>

#include "history/interchange_internal.h"
#include "perfgate/counters/report.h"
#include "perfgate/history/record.h"
#include "perfgate/metrics/catalogue.h"

namespace perfgate::history::interchange {
namespace {

constexpr std::string_view kCounterScope = "counters/";

bool IsAsciiDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "2026-04-10" at `i` of `line`: a valid month and day, touching no other digit.
bool IsDateAt(const std::string& line, size_t i) {
  if (i + 10 > line.size()) return false;
  if ((i > 0 && IsAsciiDigit(line[i - 1])) || (i + 10 < line.size() && IsAsciiDigit(line[i + 10]))) return false;
  for (size_t k = 0; k < 10; ++k) {
    if ((k == 4 || k == 7) ? line[i + k] != '-' : !IsAsciiDigit(line[i + k])) return false;
  }
  const int month = std::stoi(line.substr(i + 5, 2));
  const int day = std::stoi(line.substr(i + 8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// The first date the report's header writes ("# Captured 2026-04-10, ..."), as a time.
std::optional<std::string> HeaderDate(const counters::CounterReport& report) {
  for (const std::string& line : report.header) {
    for (size_t i = 0; i + 10 <= line.size(); ++i) {
      if (IsDateAt(line, i)) return line.substr(i, 10) + "T00:00:00Z";
    }
  }
  return std::nullopt;
}

// Each report's time: its header's date, else its neighbour's (the previous dated
// report's, else the next one's: a history is in time order), else `fallback`.
std::vector<std::string> ReportTimes(const counters::CounterHistory& history, const std::string& fallback) {
  const size_t n = history.reports.size();
  std::vector<std::optional<std::string>> before(n), after(n);
  for (size_t i = 0; i < n; ++i) {
    before[i] = HeaderDate(history.reports[i]);
    if (!before[i] && i > 0) before[i] = before[i - 1];
  }
  for (size_t i = n; i-- > 0;) {
    after[i] = HeaderDate(history.reports[i]);
    if (!after[i] && i + 1 < n) after[i] = after[i + 1];
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(before[i] ? *before[i] : after[i] ? *after[i] : fallback);
  return out;
}

// What makes a report that report, for its run key: title, header and values as written.
std::string ReportContent(const counters::CounterReport& report) {
  std::string out = report.title + "\n";
  for (const std::string& line : report.header) out += "# " + line + "\n";
  for (const counters::CounterValue& v : report.values) out += v.key + ": " + v.text + "\n";
  return out;
}

// The report as one trial of an engine: its numbers as counters, its other values as text.
attribution::EngineSummary ReportEngine(const std::string& engine, const counters::CounterReport& report) {
  attribution::EngineSummary e;
  e.name = engine;
  for (const counters::CounterValue& v : report.values) {
    if (v.number) {
      e.counters[v.key] = {attribution::TrialMedian{*v.number, {*v.number}}, v.is_integer, {v.text}};
    } else {
      e.counter_text[v.key] = v.text;
    }
  }
  return e;
}

// The catalogue's counter figures of the report, with their policies' directions.
std::vector<Figure> CounterFigures(const std::string& engine, const counters::CounterReport& report) {
  golden::GoldenFile golden = metrics::EngineGolden(ReportEngine(engine, report));
  for (auto it = golden.values.begin(); it != golden.values.end();) {
    it = it->first.rfind(kCounterScope, 0) == 0 ? std::next(it) : golden.values.erase(it);
  }
  return FiguresOf(engine, golden);
}

std::string JoinHeaderLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

Run ReportRun(const counters::CounterReport& report, RunContext context, const std::string& engine) {
  Run run;
  context.meta["title"] = report.title;
  context.meta["counters.header"] = JoinHeaderLines(report.header);
  context.meta["import.line"] = std::to_string(report.location.line);
  for (const counters::CounterValue& v : report.values) {
    if (v.number) continue;
    context.meta["counters." + v.key] = v.text;
    if (v.key == "hardware" && context.device.empty()) context.device = v.text;
  }
  run.context = std::move(context);
  run.figures = CounterFigures(engine, report);
  return run;
}

}  // namespace

StatusOr<std::vector<Run>> CounterHistoryRuns(std::string_view text, const std::string& path,
                                              const RunContext& base, const std::string& engine) {
  auto history = counters::ParseCounterHistory(text, path);
  if (!history.ok()) {
    const Status& s = history.status();
    return BadImport("neither a perfgate JSON report nor a counter-report history (" + s.code() + ": " +
                         s.message() + ")",
                     s.location());
  }
  const std::vector<std::string> times = ReportTimes(*history, base.time);
  std::vector<std::string> contents;
  for (const auto& r : history->reports) contents.push_back(ReportContent(r));
  const std::vector<int> occurrences = Occurrences(contents);
  std::vector<Run> runs;
  for (size_t i = 0; i < history->reports.size(); ++i) {
    RunContext context = base;
    context.time = times[i];
    Run run = ReportRun(history->reports[i], std::move(context), engine);
    run.key = ImportRunKey(ImportKind::kCounterHistory, run.context, engine, contents[i], occurrences[i]);
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace perfgate::history::interchange
