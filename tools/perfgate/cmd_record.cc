// `perfgate record`: record a command's GPU work into a recording bundle that
// `perfgate attribute` reads: Metal System Traces with xctrace (the default), or CUDA
// traces with perfgate's CUPTI tracer (--backend cuda).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <iostream>
#include <memory>

#include "commands.h"
#include "interrupt.h"
#include "perfgate/cuda/recorder.h"
#include "perfgate/xctrace/recorder.h"

namespace perfgate::cli {
namespace {

struct RecordArgs {
  std::string backend = "xctrace";
  std::string tracer;
  // xctrace's own flags given on the command line, to refuse them with --backend cuda.
  std::vector<std::string> xctrace_flags_given;
  std::string engine;
  int trials = 3;
  int64_t tokens = 0;
  std::string out;
  double cooldown_s = 0;
  double time_limit_s = 0;
  std::vector<std::string> tables;
  std::string process;
  std::vector<std::string> env;
  double timeout_s = 0;
  double export_timeout_s = 600;
  bool discard_trace = false;
  bool force = false;
  std::vector<std::string> command;
};

Status Usage(std::string message) { return Status::Error("cli.usage", std::move(message), {}, ErrorKind::kUsage); }

int64_t Millis(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1000.0)); }

// The engine names OUT's subdirectory, so it must be one plain path component:
// "../x" or "a/b" would write outside the recordings directory.
Status CheckEngineName(const std::string& engine) {
  const bool plain = !engine.empty() && engine != "." && engine != ".." &&
                     std::none_of(engine.begin(), engine.end(), [](char c) {
                       return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
                     });
  if (plain) return Status();
  return Status::Error("cli.bad_engine_name",
                       "--engine '" + engine + "': an engine name is one directory name (no '/', not '.' or '..', "
                       "no control characters)",
                       {}, ErrorKind::kUsage);
}

// Flags that belong to the other backend are refused, never ignored.
Status CheckBackendFlags(const RecordArgs& args) {
  if (args.backend == "cuda" && !args.xctrace_flags_given.empty()) {
    return Usage(args.xctrace_flags_given.front() + " is an xctrace flag; --backend cuda does not take it");
  }
  if (args.backend != "cuda" && !args.tracer.empty()) return Usage("--tracer is for --backend cuda");
  return Status();
}

// Records through the backend asked for.
StatusOr<xctrace::RecordingResult> Record(const RecordArgs& args, const xctrace::EngineRecordSpec& spec,
                                          const xctrace::RecordOptions& options) {
  if (args.backend != "cuda") return xctrace::RecordInterleaved({spec}, options, args.out);
  return cuda::RecordInterleaved({spec}, cuda::RecordOptions(options, args.tracer), args.out);
}

int RunRecord(const RecordArgs& args) {
  if (Status s = CheckEngineName(args.engine); !s.ok()) return ReportError(s);
  if (Status s = CheckBackendFlags(args); !s.ok()) return ReportError(s);
  if (args.command.empty()) {
    return ReportError(Usage("no command to record: put it after `--`, e.g. perfgate record ... -- ./engine --n 64"));
  }
  xctrace::EngineRecordSpec spec;
  spec.engine = args.engine;
  spec.command = args.command;
  spec.tokens = args.tokens;
  spec.process_prefix = args.process;
  for (const std::string& e : args.env) {
    size_t eq = e.find('=');
    if (eq == std::string::npos || eq == 0) return ReportError(Usage("--env '" + e + "': expected NAME=VALUE"));
    spec.environment.emplace_back(e.substr(0, eq), e.substr(eq + 1));
  }
  xctrace::RecordOptions options;
  options.trials = args.trials;
  options.cooldown_ms = Millis(args.cooldown_s);
  options.time_limit_ms = Millis(args.time_limit_s);
  options.tables = args.tables;
  options.force = args.force;
  options.keep_trace = !args.discard_trace;
  options.record_timeout_ms = Millis(args.timeout_s);
  options.export_timeout_ms = Millis(args.export_timeout_s);
  options.progress = &std::cerr;
  // Ctrl-C stops xctrace and leaves the trial marked INCOMPLETE.
  InterruptGuard guard;
  options.cancel = &InterruptFlag();
  auto recorded = Record(args, spec, options);
  if (!recorded.ok()) return ReportError(recorded.status());
  int fresh = 0;
  for (const auto& t : recorded->trials) fresh += !t.resumed;
  std::cerr << "perfgate record: " << fresh << " trial(s) recorded, " << recorded->trials.size() - fresh
            << " kept; attribute with: perfgate attribute --trace " << args.engine << "="
            << recorded->engine_dirs.front() << '\n';
  std::cout << recorded->engine_dirs.front() << '\n';
  return kExitOk;
}

}  // namespace

void RegisterRecordCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RecordArgs>();
  auto* cmd = app.add_subcommand(
      "record",
      "Record a command's GPU work into OUT/ENGINE/trial-K/, as `perfgate attribute` reads it.\n"
      "--backend xctrace (default; macOS): Metal System Traces, exported as <schema>.xml, toc.xml and\n"
      "meta.json; xctrace is found through PERFGATE_XCTRACE, then `xcrun xctrace`, then PATH (exit 3 without it).\n"
      "--backend cuda: the command runs with perfgate's CUPTI tracer injected (CUDA_INJECTION64_PATH);\n"
      "trace.json.gz, meta.json, cupti/ and command.log per trial. The tracer is --tracer, else\n"
      "PERFGATE_CUPTI_TRACER, else libperfgate_cupti.so beside perfgate, else where this build put\n"
      "or installs it (exit 3 without it).\n"
      "Re-running resumes: complete trials are kept, incomplete ones redone.");
  cmd->add_option("--backend", args->backend, "what records: xctrace (default) or cuda")
      ->check(CLI::IsMember({"xctrace", "cuda"}));
  cmd->add_option("--tracer", args->tracer, "--backend cuda: the tracer library (default: PERFGATE_CUPTI_TRACER, "
                                            "then libperfgate_cupti.so beside perfgate, then the build's or install's)");
  cmd->add_option("--engine", args->engine, "the engine's name: OUT's subdirectory, and the default process prefix")
      ->required();
  cmd->add_option("--trials", args->trials, "trials to record (1..1000)")->required()->check(CLI::Range(1, 1000));
  cmd->add_option("--tokens", args->tokens,
                  "decode tokens one run of the command generates (recorded in meta.json; {tokens} in the command "
                  "is replaced by it)")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--out", args->out, "the recordings directory")->required();
  cmd->add_option("--cooldown", args->cooldown_s, "seconds to pause between trials (default 0)")
      ->check(Seconds());
  cmd->add_option("--time-limit", args->time_limit_s,
                  "xctrace: stop each recording after this many seconds (xctrace --time-limit)")
      ->check(Seconds());
  cmd->add_option("--tables", args->tables,
                  "xctrace: comma-separated tables to export, each required (default: the six attribution reads; absent "
                  "optional ones are reported). The execution points and the submission map are always exported.")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--process", args->process, "xctrace: process-name prefix of the target's rows (default: the engine name)");
  cmd->add_option("--env", args->env, "NAME=VALUE for the launched command (xctrace record --env, or the CUDA command's environment), repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--timeout", args->timeout_s,
                  "seconds one `xctrace record` (or one run of the CUDA command) may take (default: the time limit + 300, or 1800)")
      ->check(Seconds());
  cmd->add_option("--export-timeout", args->export_timeout_s, "xctrace: seconds one `xctrace export` may take (default 600)")
      ->check(Seconds() & CLI::PositiveNumber);
  cmd->add_flag("--discard-trace", args->discard_trace, "xctrace: delete trial-K.trace once its tables are exported");
  cmd->add_flag("--force", args->force,
                "redo trials recorded with another engine, command or token count, and remove trials beyond --trials");
  cmd->add_option("command", args->command, "the command to record and its arguments, after `--`");
  cmd->callback([args, exit_code, cmd] {
    for (const char* flag : {"--time-limit", "--tables", "--process", "--export-timeout", "--discard-trace"}) {
      if (cmd->count(flag) > 0) args->xctrace_flags_given.push_back(flag);
    }
    *exit_code = RunRecord(*args);
  });
}

}  // namespace perfgate::cli
