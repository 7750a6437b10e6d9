// The attribution options `perfgate attribute` and `perfgate new-suite` share, with one
// spelling and one meaning: --tokens, --process, --device and --window per engine
// (VALUE for every engine, or ENGINE=VALUE for one), and --all-processes, --lenient,
// --run, --buckets and --kernel-families for all of them.
#ifndef PERFGATE_TOOLS_PERFGATE_ENGINE_OPTIONS_H_
#define PERFGATE_TOOLS_PERFGATE_ENGINE_OPTIONS_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/core/status.h"

namespace perfgate::cli {

// The options as given on the command line.
struct EngineOptionArgs {
  std::vector<std::string> tokens;   // N | auto:LABEL, or ENGINE=...
  std::vector<std::string> process;  // PREFIX | pid:N, or ENGINE=...
  std::vector<std::string> device;   // N, or ENGINE=N
  bool lenient = false;              // trace-event JSON: count malformed events, read on
  std::vector<std::string> window;   // label:NAME | time:START_NS:END_NS | skip:N, or ENGINE=...
  bool all_processes = false;
  bool seed_compat = false;          // attribute only
  std::string buckets;               // NAME:LO_NS:HI_NS,...
  std::string kernel_families;       // a JSON file of prefix rules
  int run = 0;
  std::vector<std::string> counters;  // attribute only: FILE or ENGINE=FILE, a trial's counter report
};

// Adds the options to `cmd`; --seed-compat only when `with_seed_compat`.
void AddEngineOptions(CLI::App* cmd, EngineOptionArgs* args, bool with_seed_compat);

// Adds --counters (FILE, or ENGINE=FILE): the engine's counter report for an engine
// of one trial, in place of (or without) a counters.txt in its trial directory.
void AddCountersOption(CLI::App* cmd, EngineOptionArgs* args);

// The --counters file for `engine` ("" when none is given).
std::string CountersFor(const EngineOptionArgs& args, const std::string& engine);

// A usage error (exit 2) with the code cli.usage.
Status Usage(std::string message);

// Splits "NAME=VALUE"; false when there is no '=' or either side is empty.
bool SplitAssignment(const std::string& s, std::string* name, std::string* value);

// Every ENGINE= of --tokens, --process, --device, --window and --counters names one of `engines`: a typo
// would otherwise leave that engine on the defaults. `given_with` says where engines
// are named ("--trace").
Status CheckEngineNames(const EngineOptionArgs& args, const std::vector<std::string>& engines,
                        const std::string& given_with);

// The options every engine starts from: method, buckets, kernel-family rules and run.
StatusOr<attribution::AttributionOptions> BaseOptions(const EngineOptionArgs& args);

// One engine's options: `base` with its --process, --tokens and --window.
StatusOr<attribution::AttributionOptions> EngineOptions(const EngineOptionArgs& args,
                                                        const attribution::AttributionOptions& base,
                                                        const std::string& engine);

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_ENGINE_OPTIONS_H_
