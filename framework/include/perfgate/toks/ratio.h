// tok/s ratio floors: engine tok/s over baseline (llama-bench) tok/s per cell, held to
// a floor with a tolerance in percentage points, the rule of hf2q's perf_baseline.json
// (a cell fails when its ratio drops more than tolerance_pp points below ratio_floor).
//
// The policy file is that file, read as is: {"cells": {"<cell>": {"ratio_floor": x}},
// "_tolerance_pp": t}. Keys starting with '_' are commentary (parsed, ignored), except
// _tolerance_pp; any other key the reader does not know is an error listing the known
// ones. perfgate's own optional keys: "test" at the top or in a cell (which llama-bench
// test the cell gates; by default the one tg test both reports hold, else tg128).
//
// The verdict is the one judge's limit check (gates::JudgeLimit) in ratio units: the
// median ratio against the floor, tolerance tolerance_pp / 100, higher is better. With
// per-repetition samples on both sides the rank test's p-value of the engine's ratios
// (e_i / baseline median) against the baseline's (b_i / baseline median, scaled to the
// floor) is attached; without them the verdict says it is a ratio of single figures.
#ifndef PERFGATE_TOKS_RATIO_H_
#define PERFGATE_TOKS_RATIO_H_

#include <map>
#include <string>
#include <vector>

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"
#include "perfgate/gates/verdict.h"
#include "perfgate/golden/golden.h"
#include "perfgate/document/document.h"
#include "perfgate/toks/bench_report.h"

namespace perfgate::toks {

// The test a cell gates when neither the policy nor the caller names one.
inline constexpr const char* kDefaultTest = "tg128";

struct RatioCell {
  std::string name;
  double ratio_floor = 0;
  std::string test;  // "" : the policy's test
  SourceLocation location;
};

struct RatioPolicy {
  std::string path;
  double tolerance_pp = 0;  // _tolerance_pp; 0 when the file has none
  bool has_tolerance = false;
  std::string test;              // the top-level "test", or "" (kDefaultTest)
  std::vector<RatioCell> cells;  // by name
  int commentary_keys = 0;       // '_' keys read and ignored, at every level

  // The test cell `cell` gates: its own, the policy's, or `fallback`.
  std::string TestOf(const RatioCell& cell, const std::string& fallback = kDefaultTest) const;
};

// Reads a policy file. Errors: toks.bad_policy (located at the key: an unknown key,
// listing the known ones; a cell without ratio_floor; a floor or tolerance that is not
// a finite number > 0 / >= 0; no cells), toks.bad_json, and the io.* errors.
StatusOr<RatioPolicy> ReadRatioPolicy(const std::string& path);
StatusOr<RatioPolicy> ParseRatioPolicy(const std::string& text, const std::string& path);

// One cell's gate.
struct RatioVerdict {
  std::string cell;  // the policy's cell, or the test id without a policy
  std::string test;
  double engine_ts = 0;    // median tok/s (avg_ts without samples)
  double baseline_ts = 0;
  double ratio = 0;        // engine_ts / baseline_ts
  double floor = 0;
  double tolerance_pp = 0;
  bool has_samples = false;  // per-repetition samples on both sides
  std::vector<double> engine_samples;    // tok/s per repetition
  std::vector<double> baseline_samples;
  bool pass = false;
  gates::MetricVerdict verdict;  // metric "toks/<cell>/ratio"; explanation in words
  // Both reports' diagnostics (toks.unknown_field), toks.model_mismatch (the two name
  // different models) and toks.auto_test (the test was chosen, not named).
  Diagnostics diagnostics;
};

// Judges engine over baseline for test `test` of both reports. An empty `test` gates
// the one tg test both reports hold (counted as toks.auto_test), else kDefaultTest; an
// empty `cell` names the cell by its test. Errors: those of BenchReport::Find (an
// unknown test lists the known ones; one nobody named also says how to name one).
StatusOr<RatioVerdict> JudgeRatio(const std::string& cell, const BenchReport& engine, const BenchReport& baseline,
                                  const std::string& test, double floor, double tolerance_pp);

// Every cell of `policy`, the reports found as `<reports_dir>/<cell>/engine.json` and
// `<reports_dir>/<cell>/llama-bench.json` (or `.jsonl`, `.md`, `.csv`, `.sqlite`). A missing report is an error
// (toks.missing_report) naming the files looked for. `test` overrides the policy's;
// where neither names one, each cell's test is chosen as JudgeRatio chooses it. `runs`
// selects the runs of each llama-bench report (ReadBenchReport).
StatusOr<std::vector<RatioVerdict>> JudgePolicy(const RatioPolicy& policy, const std::string& reports_dir,
                                                const std::string& test = "", const RunFilter& runs = {});

// The verdicts as a report document: the per-cell table (cell, test, engine tok/s,
// baseline tok/s, ratio, floor, tolerance, verdict, samples n); then the explanation of
// each cell that fails (FAIL) or has no samples (which says there was no rank test),
// and each cell's diagnostics (note); a legend; and FormatRatioJson as its data.
document::Document RatioDocument(const std::vector<RatioVerdict>& verdicts);
// Lossless JSON: {"schema": "perfgate.toks_ratio/1", "pass": b, "cells": [...]}, each
// cell with its "diagnostics" ([{code, severity, count, first_detail, first_location}]).
std::string FormatRatioJson(const std::vector<RatioVerdict>& verdicts);

// Golden values per cell (metric scope "toks", part = cell): ratio (noisy within the
// tolerance, higher is better, per-repetition ratios as samples), engine_ts (noisy 5 %,
// higher is better) and baseline_ts (recorded, not gated: the baseline's speed is not
// the engine's to keep).
golden::GoldenFile RatioGolden(const std::vector<RatioVerdict>& verdicts,
                               std::map<std::string, std::string> context = {});

// A report's own tok/s per test, without a baseline: toks/<test id>/engine_ts (noisy
// 5 %, higher is better, per-repetition samples), as RatioGolden names the engine's; a
// test measured for several models is toks/<test id> (<model>)/engine_ts for each.
golden::GoldenFile BenchGolden(const BenchReport& report);

}  // namespace perfgate::toks

#endif  // PERFGATE_TOKS_RATIO_H_
