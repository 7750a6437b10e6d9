// tok/s ratio gates per cell, their tables and goldens (perfgate/toks/ratio.h).
#include "perfgate/toks/ratio.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <utility>

#include "perfgate/core/names.h"
#include "perfgate/gates/judge.h"
#include "perfgate/metrics/catalogue.h"
#include "core/lossless_json.h"
#include "core/text_cells.h"

namespace perfgate::toks {
namespace {

using text::Fixed;
using text::Left;
using text::MarkdownCell;
using text::Right;
using text::ShortestDouble;

std::vector<double> Scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double v : values) out.push_back(v * factor);
  return out;
}

// What the verdict adds when the rank test could not run: which side lacks samples.
std::string SamplesNote(const BenchTest& engine, const BenchTest& baseline) {
  if (!engine.samples_ts.empty() && !baseline.samples_ts.empty()) return "";
  const char* side = engine.samples_ts.empty() && baseline.samples_ts.empty() ? "neither side has"
                     : engine.samples_ts.empty()                              ? "the engine has no"
                                                                              : "the baseline has no";
  return std::string("; no rank test: ") + side +
         " per-repetition samples (a ratio of single figures: avg_ts where samples are missing)";
}

std::string SamplesN(const RatioVerdict& v) {
  const auto side = [](const std::vector<double>& s) { return s.empty() ? std::string("none") : std::to_string(s.size()); };
  return side(v.engine_samples) + " vs " + side(v.baseline_samples);
}

std::string VerdictCell(const RatioVerdict& v) { return v.pass ? "pass" : "FAIL"; }

std::string Floor(const RatioVerdict& v) { return ShortestDouble(v.floor); }
std::string Tolerance(const RatioVerdict& v) { return ShortestDouble(v.tolerance_pp) + " pp"; }

// The per-cell table's columns, and one verdict's row of typed cells.
std::vector<document::Column> RatioColumns() {
  using document::Align;
  return {{"cell", Align::kLeft},       {"test", Align::kLeft},      {"engine tok/s", Align::kRight},
          {"baseline tok/s", Align::kRight}, {"ratio", Align::kRight}, {"floor", Align::kRight},
          {"tolerance", Align::kRight}, {"verdict", Align::kLeft},   {"samples n", Align::kRight}};
}

std::vector<document::Cell> RatioRow(const RatioVerdict& v) {
  using document::Cell;
  return {Cell::Text(v.cell),
          Cell::Text(v.test),
          Cell::Fixed(v.engine_ts, 2),
          Cell::Fixed(v.baseline_ts, 2),
          Cell::Fixed(v.ratio, 4),
          Cell::Written(Floor(v), v.floor),
          Cell::Written(Tolerance(v), v.tolerance_pp),
          Cell::Text(VerdictCell(v)),
          Cell::Text(SamplesN(v))};
}

// The one tg test id (n_prompt 0) of a report, or "" when it holds none or several.
std::string OnlyTgTest(const BenchReport& report) {
  std::string id;
  for (const BenchTest& t : report.tests) {
    if (t.n_prompt != 0) continue;
    if (!id.empty() && id != t.id) return "";
    id = t.id;
  }
  return id;
}

// The test gated where none is named: the one tg test both reports hold (counted as
// toks.auto_test), else kDefaultTest.
std::string ChooseTest(const BenchReport& engine, const BenchReport& baseline, Diagnostics* diagnostics) {
  const std::string tg = OnlyTgTest(engine);
  if (tg.empty() || tg != OnlyTgTest(baseline)) return kDefaultTest;
  diagnostics->Add("toks.auto_test", {},
                   "neither --test nor the policy names a test: gated " + tg + ", the one tg test of both reports");
  return tg;
}

// Find(test), where an unknown test that nobody named says how to name one.
StatusOr<const BenchTest*> FindTest(const BenchReport& report, const std::string& test, bool named) {
  auto found = report.Find(test);
  if (found.ok() || named || found.status().code() != "toks.unknown_test") return found;
  return Status::Error(found.status().code(),
                       found.status().message() + "; no test was named (" + kDefaultTest +
                           " is the default where the reports do not hold one common tg test): choose one with "
                           "--test ID or a \"test\" key in the policy (top level or per cell)",
                       found.status().location(), ErrorKind::kUsage);
}

// A model as both sides name it: the file's base name without ".gguf".
std::string ModelStem(const std::string& model) {
  std::string stem = text::BaseName(model);
  const std::string_view gguf = ".gguf";
  if (stem.size() > gguf.size() && stem.compare(stem.size() - gguf.size(), gguf.size(), gguf) == 0) {
    stem.resize(stem.size() - gguf.size());
  }
  return stem;
}

// Counts toks.model_mismatch when both tests name a model and the names differ.
void CheckModels(const BenchTest& engine, const BenchTest& baseline, Diagnostics* diagnostics) {
  if (engine.model.empty() || baseline.model.empty() || ModelStem(engine.model) == ModelStem(baseline.model)) return;
  diagnostics->Add("toks.model_mismatch", engine.location,
                   "the engine ran model '" + engine.model + "', llama-bench '" + baseline.model + "' (" +
                       FormatLocation(baseline.location) + ")");
}

// The table's notes on a cell's diagnostics, one line each.
std::vector<std::string> DiagnosticNotes(const RatioVerdict& v) {
  std::vector<std::string> out;
  for (const Diagnostics::Entry& e : v.diagnostics.Entries()) {
    std::string line = e.code + " x" + std::to_string(e.count) + " (" + std::string(SeverityName(e.severity)) +
                       "): " + e.first_detail;
    if (!e.first_location.path.empty()) line += " (first at " + FormatLocation(e.first_location) + ")";
    out.push_back(std::move(line));
  }
  return out;
}

nlohmann::ordered_json DiagnosticsJson(const Diagnostics& diagnostics) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Diagnostics::Entry& e : diagnostics.Entries()) {
    out.push_back({{"code", e.code},
                   {"severity", SeverityName(e.severity)},
                   {"count", e.count},
                   {"first_detail", e.first_detail},
                   {"first_location", e.first_location.path.empty() ? "" : FormatLocation(e.first_location)}});
  }
  return out;
}

}  // namespace

StatusOr<RatioVerdict> JudgeRatio(const std::string& cell, const BenchReport& engine, const BenchReport& baseline,
                                  const std::string& test, double floor, double tolerance_pp) {
  RatioVerdict v;
  v.test = test.empty() ? ChooseTest(engine, baseline, &v.diagnostics) : test;
  v.cell = cell.empty() ? v.test : cell;
  PERFGATE_ASSIGN_OR_RETURN(const BenchTest* e, FindTest(engine, v.test, !test.empty()));
  PERFGATE_ASSIGN_OR_RETURN(const BenchTest* b, FindTest(baseline, v.test, !test.empty()));
  v.diagnostics.Merge(engine.diagnostics);
  v.diagnostics.Merge(baseline.diagnostics);
  CheckModels(*e, *b, &v.diagnostics);
  v.engine_ts = e->MedianTs();
  v.baseline_ts = b->MedianTs();
  v.ratio = v.engine_ts / v.baseline_ts;
  v.floor = floor;
  v.tolerance_pp = tolerance_pp;
  v.engine_samples = e->samples_ts;
  v.baseline_samples = b->samples_ts;
  v.has_samples = !e->samples_ts.empty() && !b->samples_ts.empty();
  // In ratio units: the engine's repetitions over the baseline's median, and the
  // baseline's own spread around its median scaled to the floor (JudgeLimit's
  // reference, whose median is the limit).
  const std::vector<double> current =
      e->samples_ts.empty() ? std::vector<double>{v.ratio} : Scaled(e->samples_ts, 1 / v.baseline_ts);
  const std::vector<double> reference = v.has_samples ? Scaled(b->samples_ts, floor / v.baseline_ts) : std::vector<double>{};
  const gates::Policy policy = gates::Policy::Noisy(0, tolerance_pp / 100, gates::Direction::kHigherIsBetter);
  const metrics::MetricId id{"toks", v.cell, "ratio"};
  gates::LimitVerdict judged = gates::JudgeLimit(id.GoldenPath(), v.ratio, current, floor, policy, reference, "floor");
  v.pass = judged.pass;
  v.verdict = std::move(judged.verdict);
  v.verdict.explanation += SamplesNote(*e, *b);
  return v;
}

StatusOr<std::vector<RatioVerdict>> JudgePolicy(const RatioPolicy& policy, const std::string& reports_dir,
                                                const std::string& test, const RunFilter& runs) {
  namespace fs = std::filesystem;
  std::vector<RatioVerdict> out;
  for (const RatioCell& cell : policy.cells) {
    const std::string dir = reports_dir + "/" + cell.name;
    const std::string engine_path = dir + "/engine.json";
    std::vector<std::string> baselines;
    for (const char* name : {"llama-bench.json", "llama-bench.jsonl", "llama-bench.md", "llama-bench.csv",
                             "llama-bench.sqlite"}) {
      std::error_code ec;
      if (fs::exists(dir + "/" + name, ec)) baselines.push_back(name);
    }
    // Two baselines beside each other: the one read would decide the verdict.
    if (baselines.size() > 1) {
      return Status::Error("toks.ambiguous_report",
                           "cell '" + cell.name + "' holds " + ListNames(baselines) + " in " + FormatPath(dir) +
                               ": keep the one llama-bench run to judge against",
                           cell.location);
    }
    const std::string baseline_path = baselines.empty() ? std::string() : dir + "/" + baselines.front();
    std::error_code ec;
    if (!fs::exists(engine_path, ec) || baseline_path.empty()) {
      return Status::Error("toks.missing_report",
                           "cell '" + cell.name + "' needs " + FormatPath(engine_path) + " and " +
                               FormatPath(dir + "/llama-bench.json") + " (or .jsonl, .md, .csv, .sqlite); missing: " +
                               (fs::exists(engine_path, ec) ? FormatPath(dir + "/llama-bench.json")
                                                            : FormatPath(engine_path)),
                           cell.location);
    }
    PERFGATE_ASSIGN_OR_RETURN(BenchReport engine, ReadBenchReport(engine_path));
    PERFGATE_ASSIGN_OR_RETURN(BenchReport baseline, ReadBenchReport(baseline_path, runs));
    PERFGATE_ASSIGN_OR_RETURN(
        RatioVerdict v, JudgeRatio(cell.name, engine, baseline, test.empty() ? policy.TestOf(cell, "") : test,
                                   cell.ratio_floor, policy.tolerance_pp));
    out.push_back(std::move(v));
  }
  return out;
}

document::Document RatioDocument(const std::vector<RatioVerdict>& verdicts) {
  document::Table table{"toks_ratio", RatioColumns(), {}};
  document::List notes;
  for (const RatioVerdict& v : verdicts) table.rows.push_back(RatioRow(v));
  for (const RatioVerdict& v : verdicts) {
    if (!v.pass || !v.has_samples) notes.items.push_back({v.pass ? "note" : "FAIL", v.cell + ": " + v.verdict.explanation, !v.pass});
    for (const std::string& note : DiagnosticNotes(v)) notes.items.push_back({"note", v.cell + ": " + note, false});
  }
  document::Document d;
  d.blocks.push_back(std::move(table));
  if (!notes.items.empty()) d.blocks.push_back(std::move(notes));
  d.blocks.push_back(document::Paragraph{
      "legend: ratio = engine tok/s / baseline tok/s (medians of the repetitions); a cell fails when its ratio is "
      "more than the tolerance (percentage points) below its floor; samples n = repetitions engine vs baseline"});
  d.json = FormatRatioJson(verdicts);
  return d;
}

std::string FormatRatioJson(const std::vector<RatioVerdict>& verdicts) {
  using json = nlohmann::ordered_json;
  bool pass = true;
  json cells = json::array();
  for (const RatioVerdict& v : verdicts) {
    pass = pass && v.pass;
    cells.push_back({{"cell", v.cell},
                     {"test", v.test},
                     {"engine_ts", v.engine_ts},
                     {"baseline_ts", v.baseline_ts},
                     {"ratio", v.ratio},
                     {"ratio_floor", v.floor},
                     {"tolerance_pp", v.tolerance_pp},
                     {"pass", v.pass},
                     {"verdict", gates::VerdictWord(v.verdict)},
                     {"has_samples", v.has_samples},
                     {"p_value", v.verdict.p_value ? json(*v.verdict.p_value) : json(nullptr)},
                     {"engine_samples_ts", v.engine_samples},
                     {"baseline_samples_ts", v.baseline_samples},
                     {"explanation", v.verdict.explanation},
                     {"diagnostics", DiagnosticsJson(v.diagnostics)}});
  }
  return text::RenderLosslessJson({{"schema", "perfgate.toks_ratio/1"}, {"pass", pass}, {"cells", cells}});
}

namespace {

// An engine's tok/s as a golden value: noisy 5 %, higher is better.
golden::GoldenValue EngineTsValue(double ts, std::vector<double> samples) {
  golden::GoldenValue engine;
  engine.value = ts;
  engine.policy = gates::Policy::Noisy(0.05, 0, gates::Direction::kHigherIsBetter);
  engine.samples = std::move(samples);
  return engine;
}

}  // namespace

golden::GoldenFile RatioGolden(const std::vector<RatioVerdict>& verdicts, std::map<std::string, std::string> context) {
  golden::GoldenFile g;
  g.context = std::move(context);
  for (const RatioVerdict& v : verdicts) {
    const auto path = [&](const char* quantity) { return metrics::MetricId{"toks", v.cell, quantity}.GoldenPath(); };
    golden::GoldenValue ratio;
    ratio.value = v.ratio;
    ratio.policy = gates::Policy::Noisy(0, v.tolerance_pp / 100, gates::Direction::kHigherIsBetter);
    ratio.samples = Scaled(v.engine_samples, 1 / v.baseline_ts);
    golden::GoldenValue engine = EngineTsValue(v.engine_ts, v.engine_samples);
    golden::GoldenValue baseline;
    baseline.value = v.baseline_ts;
    baseline.policy = gates::Policy::Noisy(0.05, 0, gates::Direction::kBoth);
    baseline.policy.gated = false;
    baseline.policy.reason = "the baseline's speed is recorded, not the engine's to keep";
    baseline.samples = v.baseline_samples;
    g.values[path("ratio")] = std::move(ratio);
    g.values[path("engine_ts")] = std::move(engine);
    g.values[path("baseline_ts")] = std::move(baseline);
    g.context[path("test")] = v.test;
    g.context[path("ratio_floor")] = ShortestDouble(v.floor);
  }
  return g;
}

golden::GoldenFile BenchGolden(const BenchReport& report) {
  golden::GoldenFile g;
  std::map<std::string, int> runs;  // a test id measured for several models
  for (const BenchTest& t : report.tests) ++runs[t.id];
  for (const BenchTest& t : report.tests) {
    const std::string part = runs[t.id] > 1 ? t.id + " (" + t.model + ")" : t.id;
    g.values[metrics::MetricId{"toks", part, "engine_ts"}.GoldenPath()] = EngineTsValue(t.MedianTs(), t.samples_ts);
  }
  return g;
}

}  // namespace perfgate::toks
