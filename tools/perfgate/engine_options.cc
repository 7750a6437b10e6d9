#include "engine_options.h"

#include <algorithm>
#include <map>

#include "commands.h"
#include "perfgate/core/names.h"

namespace perfgate::cli {
namespace {

// A per-engine setting given as NAME=VALUE, or a bare VALUE for every engine.
std::map<std::string, std::string> PerEngine(const std::vector<std::string>& items, std::string* all) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    std::string name, value;
    if (SplitAssignment(item, &name, &value)) {
      out[name] = value;
    } else {
      *all = item;
    }
  }
  return out;
}

// The value for `engine`: its own ENGINE=VALUE, else the bare VALUE, else "".
std::string ForEngine(const std::vector<std::string>& items, const std::string& engine) {
  std::string all;
  const auto by_engine = PerEngine(items, &all);
  auto it = by_engine.find(engine);
  return it != by_engine.end() ? it->second : all;
}

Status CheckNames(const char* option, const std::vector<std::string>& items, const std::vector<std::string>& engines,
                  const std::string& given_with) {
  std::string ignored;
  for (const auto& [name, _] : PerEngine(items, &ignored)) {
    if (std::find(engines.begin(), engines.end(), name) != engines.end()) continue;
    return Usage(std::string(option) + " " + name + "=...: no engine '" + name + "' was given with " + given_with +
                 " (engines: " + ListNames(engines, "") + "); a value that holds '=' is written ENGINE=VALUE");
  }
  return Status();
}

// Applies "N" or "auto:LABEL" (empty: keep the default).
Status ApplyTokens(const std::string& spec, attribution::AttributionOptions* options) {
  if (spec.empty()) return Status();
  if (spec.rfind("auto", 0) == 0) {
    if (options->seed_compat) return Usage("--tokens auto:LABEL is not available with --seed-compat");
    PERFGATE_ASSIGN_OR_RETURN(options->token_label, attribution::ParseTokenLabel(spec));
    return Status();
  }
  try {
    size_t used = 0;
    long long n = std::stoll(spec, &used);
    if (used != spec.size() || n <= 0) throw std::invalid_argument("");
    options->tokens = n;
  } catch (const std::exception&) {
    return Usage("--tokens '" + spec + "': expected a positive count, auto:NAME, auto-prefix:TEXT or auto-regex:RE");
  }
  return Status();
}

// Parses a non-negative integer of `option`; false when `spec` is not one.
bool ParseId(const std::string& spec, int64_t* out) {
  if (spec.empty() || spec.find_first_not_of("0123456789") != std::string::npos || spec.size() > 18) return false;
  *out = std::stoll(spec);
  return true;
}

// Applies "PREFIX" or "pid:N" (empty: keep the default).
Status ApplyProcess(const std::string& spec, attribution::AttributionOptions* options) {
  if (spec.rfind("pid:", 0) != 0) {
    options->process_prefix = spec;
    return Status();
  }
  int64_t pid = 0;
  if (!ParseId(spec.substr(4), &pid)) return Usage("--process '" + spec + "': expected pid:N with N a process id");
  options->process_id = pid;
  return Status();
}

// Applies "N" (empty: every device, an error when the work ran on several).
Status ApplyDevice(const std::string& spec, attribution::AttributionOptions* options) {
  if (spec.empty()) return Status();
  int64_t device = 0;
  if (!ParseId(spec, &device)) return Usage("--device '" + spec + "': expected a device index (0, 1, ...)");
  options->device = device;
  return Status();
}

// The options given per engine, VALUE or ENGINE=VALUE, each repeatable: stated once for
// adding them and for checking the engine names they are given with.
struct PerEngineOption {
  const char* flag;
  std::vector<std::string> EngineOptionArgs::*values;
  const char* help;
};

constexpr PerEngineOption kPerEngineOptions[] = {
    {"--tokens", &EngineOptionArgs::tokens,
     "decode tokens per trial, VALUE or ENGINE=VALUE: N, or auto:NAME, auto-prefix:TEXT, "
     "auto-regex:RE to count a per-token label (command buffer, annotation) in the trace"},
    {"--process", &EngineOptionArgs::process,
     "the target process, PREFIX of its name (or of its last path component) or pid:N, or ENGINE=... "
     "(default: the engine name for Metal traces; for trace-event JSON and nsys every process, and kernels "
     "of several processes are an error)"},
    {"--device", &EngineOptionArgs::device,
     "the GPU whose work is kept, N or ENGINE=N (default: the only one; work on several devices "
     "without a choice is an error)"},
    {"--window", &EngineOptionArgs::window,
     "decode window, SPEC or ENGINE=SPEC: label:NAME, label-prefix:TEXT, label-regex:RE "
     "(ECMAScript, the whole name), time:START_NS:END_NS or skip:N"},
};

}  // namespace

void AddEngineOptions(CLI::App* cmd, EngineOptionArgs* args, bool with_seed_compat) {
  for (const PerEngineOption& o : kPerEngineOptions) cmd->add_option(o.flag, args->*o.values, o.help);
  cmd->add_flag("--lenient", args->lenient,
                "trace-event JSON: count malformed events (json.bad_event) and read on instead of stopping at "
                "the first (refused for Metal and nsys trials)");
  cmd->add_option("--run", args->run,
                  "the recording run to read from xctrace exports that hold several (default: refuse them)")
      ->check(PositiveInt());
  cmd->add_flag("--all-processes", args->all_processes,
                "keep and sum every process's work, counted as attr.mixed_processes (not with --process)");
  if (with_seed_compat) {
    cmd->add_flag("--seed-compat", args->seed_compat, "reproduce the seed script's numbers exactly");
  }
  cmd->add_option("--buckets", args->buckets, "duration bands NAME:LO_NS:HI_NS,... (last HI empty)");
  cmd->add_option("--kernel-families", args->kernel_families, "JSON table of kernel-family prefix rules");
}

void AddCountersOption(CLI::App* cmd, EngineOptionArgs* args) {
  cmd->add_option("--counters", args->counters,
                  "the engine's own counter report (hf2q generate --benchmark) for an engine of one trial, FILE or "
                  "ENGINE=FILE (a recording's trials carry theirs as trial-K/counters.txt)");
}

std::string CountersFor(const EngineOptionArgs& args, const std::string& engine) {
  return ForEngine(args.counters, engine);
}

Status Usage(std::string message) { return Status::Error("cli.usage", std::move(message), {}, ErrorKind::kUsage); }

bool SplitAssignment(const std::string& s, std::string* name, std::string* value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return false;
  *name = s.substr(0, eq);
  *value = s.substr(eq + 1);
  return true;
}

Status CheckEngineNames(const EngineOptionArgs& args, const std::vector<std::string>& engines,
                        const std::string& given_with) {
  for (const PerEngineOption& o : kPerEngineOptions) {
    PERFGATE_RETURN_IF_ERROR(CheckNames(o.flag, args.*o.values, engines, given_with));
  }
  return CheckNames("--counters", args.counters, engines, given_with);
}

StatusOr<attribution::AttributionOptions> BaseOptions(const EngineOptionArgs& args) {
  attribution::AttributionOptions base;
  base.seed_compat = args.seed_compat;
  base.all_processes = args.all_processes;
  base.lenient = args.lenient;
  base.run = args.run;
  if (args.seed_compat) base.tokens = 64;  // the seed's --n-tokens default
  if (!args.buckets.empty()) {
    auto b = attribution::ParseBuckets(args.buckets);
    if (!b.ok()) return b.status();
    base.buckets = *b;
  }
  if (!args.kernel_families.empty()) {
    auto k = attribution::LoadKernelFamilies(args.kernel_families);
    if (!k.ok()) return k.status();
    base.kernel_families = *k;
  }
  return base;
}

StatusOr<attribution::AttributionOptions> EngineOptions(const EngineOptionArgs& args,
                                                        const attribution::AttributionOptions& base,
                                                        const std::string& engine) {
  attribution::AttributionOptions options = base;
  PERFGATE_RETURN_IF_ERROR(ApplyProcess(ForEngine(args.process, engine), &options));
  if (args.all_processes && (!options.process_prefix.empty() || options.process_id)) {
    return Usage("--all-processes and --process for engine '" + engine +
                 "' contradict each other: keep every process, or choose one");
  }
  PERFGATE_RETURN_IF_ERROR(ApplyDevice(ForEngine(args.device, engine), &options));
  PERFGATE_RETURN_IF_ERROR(ApplyTokens(ForEngine(args.tokens, engine), &options));
  const std::string window_spec = ForEngine(args.window, engine);
  if (!window_spec.empty()) {
    if (args.seed_compat) return Usage("--window is not available with --seed-compat");
    auto parsed = attribution::ParseWindow(window_spec);
    if (!parsed.ok()) return parsed.status();
    options.window = *parsed;
  }
  return options;
}

}  // namespace perfgate::cli
