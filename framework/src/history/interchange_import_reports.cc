// Golden files and perfgate's per-kernel and tok/s-ratio JSON reports as one run each.
#include "history/interchange_internal.h"
#include "perfgate/golden/golden.h"
#include "perfgate/history/record.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/toks/ratio.h"

namespace perfgate::history::interchange {
namespace {

using nlohmann::json;

// Which way a kernel report's figure gets worse, as its golden policy says
// (kernel_report/metrics.cc): times up, the wall-clock tok/s down, calls and counts
// either way.
Worse KernelReportWorse(const std::string& quantity) {
  if (quantity == "wall_clock_tok_per_sec_median") return Worse::kDown;
  const bool ns = quantity.size() >= 3 && quantity.compare(quantity.size() - 3, 3, "_ns") == 0;
  if (quantity.rfind("us_", 0) == 0 || ns || quantity == "wall_clock_ms_per_token_median") {
    return Worse::kUp;
  }
  return Worse::kBoth;
}

// The level rows a kernel report's figures give: per kernel and per family, calls and
// µs per token.
void AddKernelLevels(const std::string& engine, const std::vector<Figure>& figures, std::vector<LevelRow>* out) {
  std::map<std::pair<std::string, std::string>, LevelRow> rows;
  for (const Figure& f : figures) {
    auto id = metrics::MetricId::FromGoldenPath(f.metric);
    if (!id.ok() || (id->scope != "kernels" && id->scope != "families")) continue;
    const bool kernel = id->scope == "kernels";
    const std::string calls = kernel ? "calls_per_token_median" : "calls_per_token";
    const std::string us = kernel ? "us_per_token_median" : "us_per_token";
    if (id->quantity != calls && id->quantity != us) continue;
    LevelRow& row = rows[{id->scope, id->part}];
    row.engine = engine;
    row.level = id->scope;
    row.name = id->part;
    (id->quantity == calls ? row.calls_per_token : row.us_per_token) = f.median;
  }
  for (auto& [key, row] : rows) out->push_back(std::move(row));
}

// One side of a kernel report: its figures, level rows and metadata.
Status AddKernelReportSide(const json& side, const std::string& pointer, const std::string& role,
                           const JsonFields& fields, Run* run) {
  const std::string name = JsonFields::Text(side, "name");
  if (name.empty()) return fields.Error(pointer, pointer + " names no engine ('name')");
  PERFGATE_ASSIGN_OR_RETURN(const json* figures, fields.Object(side, pointer, "figures"));
  std::vector<Figure> out;
  for (const auto& [path, value] : figures->items()) {
    const std::string at = JsonFields::Child(JsonFields::Child(pointer, "figures"), path);
    if (!value.is_number()) return fields.Error(at, at + " is no number (null: not finite)");
    const size_t slash = path.rfind('/');
    out.push_back({name, path, value.get<double>(), {}, KernelReportWorse(path.substr(slash + 1))});
  }
  AddKernelLevels(name, out, &run->levels);
  run->figures.insert(run->figures.end(), out.begin(), out.end());
  auto metadata = side.find("metadata");
  if (metadata != side.end() && metadata->is_object()) {
    for (const auto& [key, value] : metadata->items()) {
      if (value.is_string()) run->context.meta[role + "." + key] = value.get<std::string>();
    }
  }
  run->context.meta[role + ".name"] = name;
  return Status();
}

// What the verdict JSON keeps of a cell, back as the verdict RatioGolden reads.
StatusOr<toks::RatioVerdict> CellVerdict(const json& cell, const std::string& at, const JsonFields& fields) {
  if (!cell.is_object()) return fields.Error(at, at + " is no object");
  toks::RatioVerdict v;
  v.cell = JsonFields::Text(cell, "cell");
  v.test = JsonFields::Text(cell, "test");
  if (v.cell.empty()) return fields.Error(at, at + " names no cell ('cell')");
  PERFGATE_ASSIGN_OR_RETURN(v.engine_ts, fields.Number(cell, at, "engine_ts"));
  PERFGATE_ASSIGN_OR_RETURN(v.baseline_ts, fields.Number(cell, at, "baseline_ts"));
  PERFGATE_ASSIGN_OR_RETURN(v.ratio, fields.Number(cell, at, "ratio"));
  PERFGATE_ASSIGN_OR_RETURN(v.floor, fields.Number(cell, at, "ratio_floor"));
  PERFGATE_ASSIGN_OR_RETURN(v.tolerance_pp, fields.Number(cell, at, "tolerance_pp"));
  PERFGATE_ASSIGN_OR_RETURN(v.engine_samples, fields.Numbers(cell, at, "engine_samples_ts"));
  PERFGATE_ASSIGN_OR_RETURN(v.baseline_samples, fields.Numbers(cell, at, "baseline_samples_ts"));
  if (!(v.baseline_ts > 0)) {
    return fields.Error(JsonFields::Child(at, "baseline_ts"), "a baseline tok/s that is not positive");
  }
  return v;
}

}  // namespace

StatusOr<std::vector<Run>> GoldenRuns(std::string_view text, const std::string& path, RunContext base,
                                      const ImportOptions& options) {
  auto golden = golden::ParseGolden(std::string(text), path);
  if (!golden.ok()) {
    const Status& s = golden.status();
    return BadImport("a golden file that does not read (" + s.code() + ": " + s.message() + ")", s.location());
  }
  auto own = [&](const char* key) {
    auto it = golden->context.find(key);
    return it == golden->context.end() ? std::string() : it->second;
  };
  const std::string engine = ImportEngine(options, own("engine"));
  if (base.commit.empty()) base.commit = own("commit");
  base.perfgate_version = own("perfgate_version");
  for (const auto& [key, value] : golden->context) base.meta.emplace(key, value);
  Run run;
  run.context = std::move(base);
  run.figures = FiguresOf(engine, *golden);
  run.key = ImportRunKey(ImportKind::kGolden, run.context, engine, text, 0);
  return std::vector<Run>{std::move(run)};
}

StatusOr<std::vector<Run>> KernelReportRuns(const json& root, const JsonFields& fields, RunContext base,
                                            std::string_view text) {
  Run run;
  run.context = std::move(base);
  PERFGATE_ASSIGN_OR_RETURN(const json* engine, fields.Object(root, "", "engine"));
  PERFGATE_RETURN_IF_ERROR(AddKernelReportSide(*engine, "/engine", "engine", fields, &run));
  if (root.contains("baseline")) {
    PERFGATE_ASSIGN_OR_RETURN(const json* baseline, fields.Object(root, "", "baseline"));
    PERFGATE_RETURN_IF_ERROR(AddKernelReportSide(*baseline, "/baseline", "baseline", fields, &run));
  }
  RunContext& c = run.context;
  auto meta = [&c](const char* key) {
    auto it = c.meta.find(key);
    return it == c.meta.end() ? std::string() : it->second;
  };
  if (c.commit.empty()) c.commit = meta("engine.commit");
  if (c.device.empty()) c.device = meta("engine.device");
  run.key = ImportRunKey(ImportKind::kKernelReport, run.context, "", text, 0);
  return std::vector<Run>{std::move(run)};
}

StatusOr<std::vector<Run>> ToksRatioRuns(const json& root, const JsonFields& fields, RunContext base,
                                         const std::string& engine, std::string_view text) {
  PERFGATE_ASSIGN_OR_RETURN(const json* cells, fields.Array(root, "", "cells"));
  std::vector<toks::RatioVerdict> verdicts;
  for (size_t i = 0; i < cells->size(); ++i) {
    PERFGATE_ASSIGN_OR_RETURN(toks::RatioVerdict v, CellVerdict((*cells)[i], "/cells/" + std::to_string(i), fields));
    verdicts.push_back(std::move(v));
  }
  if (verdicts.empty()) return fields.Error("/cells", "the verdict holds no cell");
  const golden::GoldenFile golden = toks::RatioGolden(verdicts, {});
  for (const auto& [key, value] : golden.context) base.meta.emplace(key, value);
  Run run;
  run.context = std::move(base);
  run.figures = FiguresOf(engine, golden);
  run.key = ImportRunKey(ImportKind::kToksRatio, run.context, engine, text, 0);
  return std::vector<Run>{std::move(run)};
}

}  // namespace perfgate::history::interchange
