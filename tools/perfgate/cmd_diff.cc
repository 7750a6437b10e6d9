// `perfgate diff A B`: what changed from recording A to recording B, at every level
// both have, ranked by how much of the change each item explains; with --fail-on a
// gate of its own.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "engine_options.h"
#include "report_output.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/names.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gates/judge.h"
#include "perfgate/kernel_report/report.h"
#include "perfgate/report/diff_formats.h"

namespace perfgate::cli {
namespace {

struct DiffArgs {
  std::string before, after;
  std::vector<std::string> names;  // --names A,B
  EngineOptionArgs engine;
  OutputOptions out;  // --format, --output
  std::string rows = std::to_string(report::kDefaultDiffRows);
  double fail_on = -1;  // < 0: not given
  int min_trials = 1;
  std::vector<std::string> levels;  // --level: only these levels (empty: all)
};

// The attribution flags given, by name: per-kernel reports take none of them.
std::vector<std::string> AttributionFlagsGiven(const DiffArgs& args) {
  const EngineOptionArgs& e = args.engine;
  std::vector<std::string> given;
  // --tokens is a stats report's token count (and an error for a JSON report).
  const std::pair<const char*, bool> flags[] = {
      {"--process", !e.process.empty()},
      {"--device", !e.device.empty()},       {"--window", !e.window.empty()},
      {"--lenient", e.lenient},              {"--all-processes", e.all_processes},
      {"--buckets", !e.buckets.empty()},     {"--kernel-families", !e.kernel_families.empty()},
      {"--run", e.run != 0},                 {"--min-trials", args.min_trials != 1}};
  for (const auto& [flag, set] : flags) {
    if (set) given.push_back(flag);
  }
  return given;
}

// A per-kernel timing report (llama.cpp's phase0 build, hf2q's candle backend, nsys
// stats output) rather than a trace.
bool IsKernelReport(const std::string& path) { return kernel_report::LooksLikeKernelReport(path); }

// The default names: each path's last component, or its last two where those agree
// (decode_q4_0/hf2q against decode_q4_0_regressed/hf2q).
std::pair<std::string, std::string> DefaultNames(const std::string& a, const std::string& b) {
  auto last = [](const std::filesystem::path& p, int parts) {
    std::filesystem::path clean = p.lexically_normal();
    if (clean.filename().empty()) clean = clean.parent_path();
    std::string name = clean.filename().string();
    if (parts == 2 && !clean.parent_path().filename().empty()) name = clean.parent_path().filename().string() + "/" + name;
    return name;
  };
  std::string na = last(a, 1), nb = last(b, 1);
  if (na == nb) na = last(a, 2), nb = last(b, 2);
  if (na == nb) na += " (A)", nb += " (B)";
  return {na, nb};
}

// The name a Metal trace's process is matched by when --process gives none (as for
// `perfgate attribute --trace ENGINE=PATH`): the engine directory's name, that is the
// path's last component, or its parent's for a trial (trial-K, or a file in one).
std::string EngineDirectoryName(const std::string& path) {
  std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (std::filesystem::is_regular_file(p)) p = p.parent_path();
  if (p.filename().string().rfind("trial-", 0) == 0 && !p.parent_path().empty()) p = p.parent_path();
  return p.filename().string();
}

StatusOr<diff::Side> ReadSide(const DiffArgs& args, const std::string& path, bool kernel_report,
                              const std::string& name, const attribution::AttributionOptions& base) {
  if (kernel_report) {
    auto options = EngineOptions(args.engine, base, name);
    if (!options.ok()) return options.status();
    if (!options->token_label.text.empty()) {
      return Usage("--tokens auto: counts tokens in a trace; a per-kernel report takes a number");
    }
    kernel_report::ReadOptions read;
    read.tokens = options->tokens;
    auto r = kernel_report::ReadKernelReport(path, read);
    if (!r.ok()) return r.status();
    r->name = name;
    return diff::SideOf(*r);
  }
  auto recording = bundle::DiscoverTrials(path);
  if (!recording.ok()) return recording.status();
  for (const std::string& ignored : recording->ignored) std::cerr << "note: not a trial, ignored: " << FormatPath(ignored) << '\n';
  PERFGATE_RETURN_IF_ERROR(bundle::RequireTrials(path, *recording, args.min_trials));
  PERFGATE_RETURN_IF_ERROR(bundle::RequireOneSource(path, recording->trials));
  auto options = EngineOptions(args.engine, base, name);
  if (!options.ok()) return options.status();
  auto engine = bundle::AttributeTrials(EngineDirectoryName(path), recording->trials, *options);
  if (!engine.ok()) return engine.status();
  engine->name = name;
  return diff::SideOf(*engine);
}

// --level NAME...: only those levels; an unknown name, or one neither side has, is
// an error listing what there is.
StatusOr<diff::Diff> KeepLevels(const DiffArgs& args, diff::Diff d) {
  if (args.levels.empty()) return d;
  std::vector<diff::LevelDiff> kept;
  for (const std::string& name : args.levels) {
    auto level = diff::LevelFromName(name);
    if (!level.ok()) return Usage("--level: " + level.status().message());
    const diff::LevelDiff* found = d.Find(*level);
    if (found == nullptr) {
      std::vector<std::string> present;
      for (const diff::LevelDiff& l : d.levels) present.push_back(diff::LevelName(l.level));
      return Usage("--level " + name + ": the two sides do not both have it (levels compared: " + ListNames(present) + ")");
    }
    kept.push_back(*found);
  }
  d.levels = std::move(kept);
  return d;
}

StatusOr<diff::Diff> BuildDiff(const DiffArgs& args) {
  std::pair<std::string, std::string> names = DefaultNames(args.before, args.after);
  if (!args.names.empty()) {
    if (args.names.size() != 2 || args.names[0].empty() || args.names[1].empty() || args.names[0] == args.names[1]) {
      return Usage("--names: expected two different names, A,B");
    }
    names = {args.names[0], args.names[1]};
  }
  PERFGATE_RETURN_IF_ERROR(CheckEngineNames(args.engine, {names.first, names.second}, "--names (or the paths)"));
  const bool before_report = IsKernelReport(args.before), after_report = IsKernelReport(args.after);
  const std::vector<std::string> flags = AttributionFlagsGiven(args);
  if (before_report && after_report && !flags.empty()) {
    return Usage("per-kernel timing reports hold figures, not traces: " + ListNames(flags, "") + " would change nothing");
  }
  auto base = BaseOptions(args.engine);
  if (!base.ok()) return base.status();
  auto before = ReadSide(args, args.before, before_report, names.first, *base);
  if (!before.ok()) return before.status();
  auto after = ReadSide(args, args.after, after_report, names.second, *base);
  if (!after.ok()) return after.status();
  diff::Diff d = diff::Compute(*before, *after);
  return KeepLevels(args, std::move(d));
}

// The formats of a diff: a table per level, so no CSV.
const std::vector<std::string> kDiffFormats = {"text", "markdown", "json", "svg"};

// --fail-on PCT: 1 when the total regressed by more than PCT percent.
int GateExit(const DiffArgs& args, const diff::Diff& d) {
  if (args.fail_on < 0) return kExitOk;
  const std::optional<double> pct = d.delta_total_pct();
  // The one judge: B's total against A's plus PCT % (no trials behind the means).
  const double limit = d.before_total + std::abs(d.before_total) * args.fail_on / 100.0;
  const bool regressed = !gates::JudgeLimit("total.gpu_us_per_token", d.after_total, {}, limit,
                                            gates::Policy::Noisy(0, 0, gates::Direction::kLowerIsBetter))
                              .pass;
  char change[64] = "no time before";
  if (pct) std::snprintf(change, sizeof change, "%+.2f %%", *pct);
  char totals[96];
  std::snprintf(totals, sizeof totals, "%.1f -> %.1f", d.before_total, d.after_total);
  std::cerr << "perfgate diff: total GPU us/token " << totals << " (" << change << "), "
            << (regressed ? "beyond" : "within") << " --fail-on " << args.fail_on << " %: "
            << (regressed ? "regressed" : "ok") << '\n';
  return regressed ? kExitCheckFailed : kExitOk;
}

int RunDiff(const DiffArgs& args) {
  auto rows = ParseRowCount("--rows", args.rows);
  if (!rows.ok()) return ReportError(rows.status());
  auto d = BuildDiff(args);
  if (!d.ok()) return ReportError(d.status());
  Status written = WriteDocument(args.out, report::DiffDocument(*d, *rows), kDiffFormats);
  if (!written.ok()) return ReportError(written);
  return GateExit(args, *d);
}

}  // namespace

void RegisterDiffCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand(
      "diff",
      "What changed from recording A to recording B: per duration bucket, family, phase and kernel name,\n"
      "the items added, removed and changed, ranked by |delta us/token| with their share of the total's\n"
      "change. A and B are anything perfgate reads: recordings of trials, one trial, one trace file, or a\n"
      "per-kernel timing report. Exit 0; with --fail-on PCT, 1 when the total regressed by more than PCT %.");
  cmd->add_option("A", args->before, "the reference: before, golden, baseline")->required();
  cmd->add_option("B", args->after, "what is compared with it: after, now, engine")->required();
  cmd->add_option("--names", args->names, "A,B: the sides' names (default: the paths' last components)")
      ->delimiter(',');
  AddOutputOptions(cmd, &args->out, kDiffFormats);
  cmd->add_option("--rows", args->rows, "rows per level in text, Markdown and SVG: N (default " + args->rows +
                                            ") or all; the JSON holds every change");
  cmd->add_option("--fail-on", args->fail_on, "exit 1 when B's total GPU time per token exceeds A's by more than PCT %")
      ->check(Percentage());
  cmd->add_option("--level", args->levels, "only this level (bucket, family, phase, kernel); repeatable");
  cmd->add_option("--min-trials", args->min_trials, "fail when a side has fewer trials (default 1)")
      ->check(PositiveInt());
  AddEngineOptions(cmd, &args->engine, /*with_seed_compat=*/false);
  AddInputLimitOptions(cmd);
  AddJobsOption(cmd);
  cmd->callback([args, exit_code] { *exit_code = RunDiff(*args); });
}

}  // namespace perfgate::cli
