// Private pieces of the recorder (perfgate/xctrace/recorder.h): the host facts that go
// into meta.json (recorder_host.cc), the bundle's files and resume states
// (recorder_bundle.cc), and the backend interface through which one loop (planning,
// resume, --force, interleaving, INCOMPLETE markers: recorder.cc) records with xctrace
// (recorder_xctrace.cc) or with the CUDA tracer (src/cuda/recorder.cc).
#ifndef PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_
#define PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/text_input.h"
#include "perfgate/core/process.h"
#include "perfgate/core/status.h"
#include "perfgate/xctrace/recorder.h"

namespace perfgate::xctrace::internal {

// Facts about the machine a trial ran on. Empty strings when unknown.
struct HostInfo {
  std::string host;        // gethostname()
  std::string chip;        // macOS: machdep.cpu.brand_string ("Apple M3 Max"); Linux: cpuinfo model name
  std::string os_version;  // "macOS 15.1 (24B83)", or "Linux 6.1.0-18-amd64"
};
HostInfo ReadHostInfo();

// The git commit checked out in `directory`, and whether tracked files differ from it;
// nullopt when git is missing or the directory is not in a work tree.
struct GitInfo {
  std::string commit;
  bool dirty = false;
};
std::optional<GitInfo> ReadGitInfo(const std::string& directory);

// The first line of `xctrace version`, e.g. "xctrace version 16.0 (16A242d)"; "" when
// it fails.
std::string ReadXctraceVersion(const XctraceCommand& xctrace);

// The current UTC time as ISO 8601 with milliseconds, e.g. "2026-11-30T09:00:00.539Z".
std::string NowIso8601();

// What a trial directory holds before recording.
enum class TrialState {
  kAbsent,      // no directory, or an empty one: record
  kIncomplete,  // INCOMPLETE marker: redo
  kComplete,    // a complete perfgate bundle of this recording: skip
  kMismatch,    // a complete perfgate bundle of another recording: refuse unless forced
  kForeign,     // files that are not a perfgate bundle, or a damaged one: refuse unless forced
};
struct TrialCheck {
  TrialState state = TrialState::kAbsent;
  std::string detail;  // why kMismatch / kForeign / kIncomplete
};

// The fields of meta.json that must agree for a complete xctrace trial to be reused:
// engine, command (as run), tokens and template.
nlohmann::json IdentityOf(const EngineRecordSpec& spec, const RecordOptions& options);
// Files a complete trial must hold: for each entry, one of its alternatives.
using RequiredFiles = std::vector<std::vector<std::string>>;
TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity,
                        const RequiredFiles& required_files);
// The files of a complete xctrace trial: the required tables' exports.
RequiredFiles XctraceTrialFiles();
// InspectTrial of an xctrace trial.
TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity);

// meta.json's text. Strings that are not UTF-8 (a path, a host name, a tool's stderr in
// an error message) become U+FFFD instead of throwing.
std::string MetaText(const nlohmann::json& meta);

using ::perfgate::internal::WriteFileAtomic;
// Writes the INCOMPLETE marker with a reason, and meta.json with "complete": false.
Status MarkIncomplete(const std::string& trial_dir, const std::string& reason, const nlohmann::json& meta);

using Clock = std::chrono::steady_clock;
int64_t MillisSince(Clock::time_point start);
// "1.5 s".
std::string Seconds(int64_t ms);
// argv as a shell would read it, for logs and messages.
std::string Quote(const std::vector<std::string>& argv);
bool Cancelled(const RecordOptions& options);

// Progress lines on the caller's stream, stamped with the time since the start.
class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out), start_(Clock::now()) {}
  void Line(const std::string& text) const;

 private:
  std::ostream* out_;
  Clock::time_point start_;
};

// One trial being recorded, as a backend sees it: the directory exists and holds the
// INCOMPLETE marker and meta.json ("complete": false).
struct TrialInProgress {
  const EngineRecordSpec& spec;  // {tokens} replaced, process prefix defaulted
  const RecordOptions& options;
  const Progress& progress;
  int trial;  // 1-based
  int job;    // its place in the call's recording order, 1-based
  int jobs;
  std::string dir;
  std::string label;                         // "hf2q trial 1/3"
  nlohmann::json& meta;                      // the trial's meta.json, written by the loop
  std::vector<std::string>& missing_tables;  // optional tables absent (xctrace)

  void Line(const std::string& text) const { progress.Line(label + ": " + text); }
  // record.interrupted, located at the trial.
  Status Interrupted() const;
  // Runs a program of the trial (cancel and heartbeat from the options), keeping its
  // output and outcome in the trial's `log_name` (when given) whatever the outcome.
  // record.interrupted when cancelled; otherwise the result, for the caller to judge.
  StatusOr<ProcessResult> Run(ProcessOptions process, const std::string& what, const std::string& log_name) const;
};

// What differs between recorders: how one trial is recorded, and what identifies and
// completes a trial. The loop owns everything else.
class Backend {
 public:
  virtual ~Backend() = default;
  // The meta.json fields that must agree for a complete trial to be reused.
  virtual nlohmann::json Identity(const EngineRecordSpec& spec, const RecordOptions& options) const = 0;
  // The files a complete trial holds (a complete meta.json without them is damaged).
  virtual RequiredFiles CompleteTrialFiles() const = 0;
  // The tool, for the first progress line: "xctrace /usr/bin/xctrace (PATH)".
  virtual std::string Describe() const = 0;
  // The backend's fields of every trial's meta.json (besides the identity).
  virtual nlohmann::json MetaFields(const RecordOptions& options) const = 0;
  // Records the trial into trial.dir, adding what it learns to trial.meta.
  virtual Status RecordTrial(const TrialInProgress& trial) const = 0;
};

// record.bad_spec (ErrorKind::kUsage).
Status BadSpec(std::string message);
// The checks every call gets (engines, trials, times, output directory).
Status ValidateCall(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                    const std::string& out_dir);

// Records options.trials trials of every engine through `backend`, interleaved, with
// resume and force (see RecordInterleaved). The caller has validated the call.
StatusOr<RecordingResult> RecordTrials(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                                       const std::string& out_dir, const Backend& backend);

}  // namespace perfgate::xctrace::internal

#endif  // PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_
