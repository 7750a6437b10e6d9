// Building the run a gate appends, and appending it where PERFGATE_HISTORY (or the
// caller) says. Writing never changes a verdict; a store that cannot be written fails
// the run under CI and is a warning elsewhere.
#ifndef PERFGATE_HISTORY_RECORD_H_
#define PERFGATE_HISTORY_RECORD_H_

#include <map>
#include <string>
#include <vector>

#include "perfgate/attribution/summary.h"
#include "perfgate/core/environment.h"
#include "perfgate/core/status.h"
#include "perfgate/golden/golden.h"
#include "perfgate/history/run.h"

namespace perfgate::history {

// The environment variable that names the store; unset, empty or "OFF" (any case):
// no history is written.
inline constexpr const char* kHistoryEnv = "PERFGATE_HISTORY";

// The store `explicit_location` names, else PERFGATE_HISTORY's; "" when history is off.
std::string HistoryLocation(const std::string& explicit_location, const EnvLookup& env = ProcessEnv);

// This run's context: the time now (UTC), the commit and branch (PERFGATE_COMMIT and
// PERFGATE_BRANCH, else the CI service's variables, else git in the working
// directory), the machine (PERFGATE_MACHINE, else the host name), perfgate's version.
RunContext CurrentContext(const std::string& suite, const std::string& test, const EnvLookup& env = ProcessEnv);

// Every value of `golden` (a catalogue's figures of one engine, with their samples) as
// figures of `engine`; the policy's better direction gives the worse one.
std::vector<Figure> FiguresOf(const std::string& engine, const golden::GoldenFile& golden);

// The level tables of an engine: buckets (items and µs per token), families, phases and
// kernels (calls and GPU µs per token).
std::vector<LevelRow> LevelsOf(const attribution::EngineSummary& engine);

// A new run (a fresh key) of `context`, without figures yet.
Run NewRun(RunContext context);

// Adds an engine's recording meta.json (flattened, as bundle::ReadTrialMeta gives it) to
// the run's meta as "<engine>.<key>", and takes the run's device from it where the run
// names none: PERFGATE_DEVICE, else gpu.name, device, gpu or chip.
void AddMeta(Run* run, const std::string& engine, const std::map<std::string, std::string>& meta,
             const EnvLookup& env = ProcessEnv);

// Adds an attributed engine's catalogue figures and level tables to `run`, under `name`.
void AddEngine(Run* run, const std::string& name, const attribution::EngineSummary& engine);

// Appends `run` to the store at `location`, saying `history: appended run N to ...`
// on stderr. A failure is returned under CI (CiVariable), else printed as a warning
// and OK: the history is a record, never the verdict.
Status AppendToHistory(const std::string& location, const Run& run, const EnvLookup& env = ProcessEnv);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_RECORD_H_
