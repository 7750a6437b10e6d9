// `perfgate bisect`: which commit made a figure regress. Drives git bisect in the
// user's repository; at each commit builds, records and lets the one judge mark it
// (perfgate/bisect/session.h), keeping the recordings for the next run.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "engine_options.h"
#include "interrupt.h"
#include "perfgate/bisect/report.h"
#include "perfgate/bisect/session.h"
#include "perfgate/golden/golden.h"
#include "report_output.h"

namespace perfgate::cli {
namespace {

struct BisectArgs {
  bisect::BisectOptions options;
  bisect::Recipe recipe;
  std::string repo = ".";
  std::string work;
  std::string log;
  std::string engine = "engine";
  std::optional<double> tolerance_pct;
  std::string policy_golden;  // --policy-from
  double timeout_s = 0;
  EngineOptionArgs engine_options;
  OutputOptions out;
};

// The read options of --engine and the attribution options.
StatusOr<bisect::ReadOptions> ReadOptionsOf(const BisectArgs& args) {
  PERFGATE_RETURN_IF_ERROR(CheckEngineNames(args.engine_options, {args.engine}, "--engine"));
  PERFGATE_ASSIGN_OR_RETURN(attribution::AttributionOptions base, BaseOptions(args.engine_options));
  bisect::ReadOptions read;
  read.engine = args.engine;
  PERFGATE_ASSIGN_OR_RETURN(read.attribution, EngineOptions(args.engine_options, base, args.engine));
  return read;
}

// --work, else perfgate-bisect/ in the repository's git directory: kept across
// checkouts, out of the work tree and of `git clean`.
StatusOr<std::string> WorkDir(const BisectArgs& args, bisect::GitRepository& git) {
  // Absolute: the record command runs in the repository, not here.
  if (!args.work.empty()) return std::filesystem::absolute(args.work).string();
  PERFGATE_ASSIGN_OR_RETURN(std::string common, git.CommonDir());
  return common + "/perfgate-bisect";
}

Status WriteLog(const BisectArgs& args, const bisect::Workspace& workspace, const std::string& log) {
  const std::string kept = workspace.RecipeDir() + "/bisect.log";
  PERFGATE_RETURN_IF_ERROR(WriteTextFile(kept, log));
  if (!args.log.empty()) PERFGATE_RETURN_IF_ERROR(WriteTextFile(args.log, log));
  std::cerr << "bisect log: " << (args.log.empty() ? kept : args.log)
            << " (git bisect replay reads it)\n";
  return Status();
}

// The policy --policy-from's golden gives the metric (--metric, which it needs).
Status ReadGoldenPolicy(BisectArgs* args) {
  if (args->policy_golden.empty()) return Status();
  if (args->options.metric.empty()) return Usage("--policy-from needs --metric: the golden value whose policy to take");
  PERFGATE_ASSIGN_OR_RETURN(golden::GoldenFile golden, golden::ReadGolden(args->policy_golden));
  const auto found = golden.values.find(args->options.metric);
  if (found == golden.values.end()) {
    return Status::Error("bisect.unknown_metric", "the golden holds no value '" + args->options.metric +
                                                      "' (known: " + bisect::FigureNames(golden) + ")",
                         {args->policy_golden, 0, 0}, ErrorKind::kUsage);
  }
  args->options.policy = found->second.policy;
  return Status();
}

int ExitOf(const bisect::BisectResult& result) {
  return result.proven() ? kExitOk : kExitCheckFailed;
}

// The options as the bisect takes them; usage errors.
Status CompleteOptions(BisectArgs* args) {
  PERFGATE_ASSIGN_OR_RETURN(args->options.read, ReadOptionsOf(*args));
  if (args->tolerance_pct) args->options.tolerance = *args->tolerance_pct / 100;
  PERFGATE_RETURN_IF_ERROR(ReadGoldenPolicy(args));
  if (args->options.max_trials < args->options.trials) return Usage("--max-trials must be at least --trials");
  args->recipe.timeout_ms = static_cast<int64_t>(args->timeout_s * 1000);
  args->options.progress = [](const std::string& line) { std::cerr << line << '\n'; };
  return Status();
}

// The log and the report of a finished bisect; its exit code.
int Finish(const BisectArgs& args, const bisect::Workspace& workspace, const bisect::BisectResult& result) {
  const Status logged = WriteLog(args, workspace, result.log);
  if (!logged.ok()) return ReportError(logged);
  const Status written = WriteDocument(args.out, bisect::BisectDocument(result), {"text", "markdown", "json"});
  if (!written.ok()) return ReportError(written);
  return ExitOf(result);
}

int RunBisectCommand(BisectArgs args) {
  const Status options = CompleteOptions(&args);
  if (!options.ok()) return ReportError(options);
  InterruptGuard guard(/*once=*/false);
  bisect::GitRepository git(args.repo);
  const Status ready = git.CheckReady();  // before the default --work, which is in the git directory
  if (!ready.ok()) return ReportError(ready);
  auto work = WorkDir(args, git);
  if (!work.ok()) return ReportError(work.status());
  bisect::Workspace workspace(*work, args.recipe, &InterruptFlag());
  auto result = bisect::RunBisect(git, workspace, args.options, &InterruptFlag());
  if (!result.ok() && result.status().code() == "bisect.interrupted") {
    std::cerr << "perfgate bisect: interrupted; git bisect was reset and the recordings are kept in "
              << workspace.RecipeDir() << ": run the same command again to go on\n";
    return kExitInterrupted;
  }
  if (!result.ok()) return ReportError(result.status());
  return Finish(args, workspace, *result);
}

void AddOptions(CLI::App* cmd, BisectArgs* args) {
  cmd->add_option("--good", args->options.good_ref, "A commit (any git revision) where the figure is good")
      ->required();
  cmd->add_option("--bad", args->options.bad_ref, "A later commit where it has regressed")->required();
  cmd->add_option("--record", args->recipe.record,
                  "Shell command that writes one recording into $PERFGATE_BISECT_OUT (run in the repository)")
      ->required();
  cmd->add_option("--build", args->recipe.build,
                  "Shell command that builds the checked-out commit; a failure skips the commit");
  cmd->add_option("--engine", args->engine, "The engine's name in the recordings (default: engine)");
  cmd->add_option("--metric", args->options.metric,
                  "The figure to bisect, a golden path (default: the total GPU µs per token, or tg tok/s)");
  cmd->add_option("--tolerance", args->tolerance_pct,
                  "Minimum effect in percent of the good side (default: the figure's gate policy)")
      ->check(Percentage());
  cmd->add_option("--policy-from", args->policy_golden,
                  "A golden file whose value of --metric gives the policy (default: the catalogue's)");
  cmd->add_option("--alpha", args->options.alpha, "The rank test's significance level (default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--trials", args->options.trials, "Samples per commit before its first verdict (default 5)")
      ->check(PositiveInt());
  cmd->add_option("--max-trials", args->options.max_trials,
                  "The most samples an uncertain commit gets before it is reported uncertain (default 30)")
      ->check(PositiveInt());
  cmd->add_option("--repo", args->repo, "The git repository (default: the working directory)");
  cmd->add_option("--work", args->work,
                  "Where recordings are kept per commit (default: perfgate-bisect/ in the git directory)");
  cmd->add_option("--log", args->log, "Also write the bisect log (git bisect replay reads it) here");
  cmd->add_option("--timeout", args->timeout_s, "Seconds each build or record command may run (default: none)")
      ->check(Seconds());
}

}  // namespace

void RegisterBisectCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BisectArgs>();
  CLI::App* cmd = app.add_subcommand("bisect", "Find the commit that made a figure regress (drives git bisect)");
  AddOptions(cmd, args.get());
  AddEngineOptions(cmd, &args->engine_options, /*with_seed_compat=*/false);
  AddOutputOptions(cmd, &args->out, {"text", "markdown", "json"});
  cmd->callback([args, exit_code] { *exit_code = RunBisectCommand(*args); });
}

}  // namespace perfgate::cli
