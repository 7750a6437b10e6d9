// Recording Metal System Traces with xctrace and exporting them into recording bundles.
//
// A recording bundle is what attribution reads (attribution::LoadTrial):
//
//   OUT/<engine>/trial-K/
//     <schema>.xml      one `xctrace export --xpath` document per exported table
//     toc.xml           the `xctrace export --toc` document
//     meta.json         engine, command, tokens, trial, times, host, chip, OS, xctrace
//                       version, template, git commit, TOC summary, row counts
//     trial-K.trace     the raw trace (unless RecordOptions::keep_trace is false)
//     xctrace-record.log   what `xctrace record` printed (stdout, stderr, how it ended)
//     INCOMPLETE        present while the trial is being recorded and after it failed
//
// Per trial the recorder runs, through the process runner (core/process.h):
//
//   xctrace record --template 'Metal System Trace' --no-prompt --output …/trial-K.trace
//                  [--time-limit T] [--env NAME=VALUE …] --launch -- CMD ARGS…
//   xctrace export --input …/trial-K.trace --toc
//   xctrace export --input …/trial-K.trace
//                  --xpath '/trace-toc/run[@number="1"]/data/table[@schema="S"]'   (per table)
//
// and validates every export: at least one <node>, the expected schema, a document the
// reader accepts, and rows of the target process (fail loudly when it recorded
// nothing). A trial that fails or is interrupted keeps its INCOMPLETE marker and a
// meta.json with "complete": false; it is never left looking complete. Running again
// resumes: complete trials that match are skipped, incomplete ones are redone, and a
// complete trial recorded with another engine, command or token count is refused
// unless `force` is set.
//
// CUDA programs are recorded through the same loop (resume, force, interleaving,
// markers) by perfgate/cuda/recorder.h.
//
// xctrace exists only on macOS with Xcode. Everywhere else (and in perfgate's own
// tests) PERFGATE_XCTRACE can point at a stand-in executable with the same command
// line. Nothing here has run on a Mac yet.
#ifndef PERFGATE_XCTRACE_RECORDER_H_
#define PERFGATE_XCTRACE_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::xctrace {

// File names inside a trial directory.
inline constexpr std::string_view kIncompleteMarkerFile = "INCOMPLETE";
inline constexpr std::string_view kMetaFile = "meta.json";
inline constexpr std::string_view kTocFile = "toc.xml";
// meta.json's "format_version"; bumped when its meaning changes.
inline constexpr int kBundleFormatVersion = 1;

// The tables exported by default: every table attribution reads
// (metal-gpu-execution-points, metal-gpu-submission-to-command-buffer-id,
// metal-application-encoders-list, metal-shader-profiler-shader-list,
// metal-shader-profiler-intervals, metal-gpu-intervals).
const std::vector<std::string>& DefaultRecordTables();
// The two that are always exported and must be in the TOC: the execution points (the
// GPU time) and the submission map (the target-process filter).
const std::vector<std::string>& RequiredRecordTables();

// How to run xctrace: the program (and any leading arguments), and how it was found.
struct XctraceCommand {
  std::vector<std::string> argv;  // e.g. {"/Applications/Xcode.app/…/usr/bin/xctrace"}
  std::string found_by;           // "PERFGATE_XCTRACE", "xcrun" or "PATH"
};

// Finds xctrace: the PERFGATE_XCTRACE environment variable (a path, or a name looked up
// in PATH; when it is set and wrong that is the error, with no fallback), then
// `xcrun --find xctrace`, then `xctrace` in PATH. Error: record.no_xctrace
// (ErrorKind::kEnvironment, so the CLI exits 3), saying what was tried.
StatusOr<XctraceCommand> LocateXctrace();

// Why traces cannot be recorded here, or nullopt when xctrace was found. For fixtures
// that skip with this reason when no stored recording exists.
std::optional<std::string> WhyRecordingImpossible();

// One engine to record.
struct EngineRecordSpec {
  // The bundle's directory name (letters, digits, '.', '_' and '-'); also the default
  // process-name prefix of the target.
  std::string engine;
  // The program xctrace launches and its arguments. Every "{tokens}" in an argument is
  // replaced by `tokens`, so the count is written once.
  std::vector<std::string> command;
  // The decode tokens one run of `command` generates (> 0); recorded in meta.json and
  // checked on resume. perfgate does not count them here.
  int64_t tokens = 0;
  // Rows of processes whose name starts with this are the target's; "" means `engine`.
  std::string process_prefix;
  // Environment variables for the launched command (`xctrace record --env NAME=VALUE`).
  // Only their names go into meta.json.
  std::vector<std::pair<std::string, std::string>> environment;
};

// How to record. The defaults suit a real Mac; tests shorten the timeouts.
struct RecordOptions {
  // Trials per engine (1..1000): trial-1 … trial-N.
  int trials = 3;
  // Pause between consecutive recordings (not before the first), to let the GPU cool.
  int64_t cooldown_ms = 0;
  // xctrace record --time-limit; 0 records until the command exits.
  int64_t time_limit_ms = 0;
  // Tables to export. Empty: DefaultRecordTables(), where a table other than the
  // required two that is absent from the TOC is reported by name (progress and
  // meta.json "missing_tables") and skipped. Non-empty: these tables, each required;
  // the required two are added when not listed.
  std::vector<std::string> tables;
  // Redo trials whose complete bundle disagrees with this recording (engine, command,
  // tokens, template) or that are not perfgate bundles, and remove
  // trial directories beyond `trials`. Without it those are refused before anything
  // is recorded (record.bundle_mismatch, record.not_a_bundle, record.extra_trials).
  bool force = false;
  // xctrace record --template.
  std::string template_name = "Metal System Trace";
  // Keep trial-K.trace in the trial directory (it can be large); false deletes it once
  // the tables are exported.
  bool keep_trace = true;
  // Limits per xctrace call. record_timeout_ms 0: time_limit_ms + 5 minutes, or 30
  // minutes without a time limit. On a timeout xctrace record gets SIGINT (it then
  // saves the trace), exports get SIGTERM, and the process group SIGKILL after
  // kill_grace_ms.
  int64_t record_timeout_ms = 0;
  int64_t export_timeout_ms = 10 * 60 * 1000;
  int64_t kill_grace_ms = 10 * 1000;
  // An export larger than this is an error (record.export_too_large).
  uint64_t max_export_bytes = uint64_t{4} << 30;
  // Progress lines (trial k/N, phase, elapsed) go here; null for silence.
  std::ostream* progress = nullptr;
  // Raised (e.g. from a SIGINT handler) to stop: the running xctrace is stopped, the
  // trial stays INCOMPLETE, and RecordInterleaved returns record.interrupted.
  const std::atomic<bool>* cancel = nullptr;
  // Directory whose git commit goes into meta.json; "" means the current directory.
  std::string source_directory;
};

// One trial of the recording, recorded now or found complete.
struct RecordedTrial {
  std::string engine;
  int trial = 0;                            // 1-based, as in trial-K
  std::string path;                         // OUT/<engine>/trial-K
  bool resumed = false;                     // it was already complete and was not recorded again
  int64_t elapsed_ms = 0;                   // recording and export time (0 when resumed)
  std::vector<std::string> missing_tables;  // optional tables absent from the TOC
};

struct RecordingResult {
  std::string out_dir;
  // In recording order: trial 1 of every engine, then trial 2, …
  std::vector<RecordedTrial> trials;
  // OUT/<engine> for each engine, in spec order: what attribution::ExpandTrialPaths reads.
  std::vector<std::string> engine_dirs;
};

// Records `options.trials` trials of every engine into OUT/<engine>/trial-K/,
// interleaved (engine 1 trial 1, engine 2 trial 1, …, engine 1 trial 2, …) so that drift
// of the machine hits every engine alike. Stops at the first failure (fail closed); the
// failed trial stays INCOMPLETE and a later call resumes. Errors (ErrorKind
// kEnvironment unless noted; the location is the trial directory):
//   record.bad_spec (kUsage)         no engine, a bad or repeated name, an empty
//                                    command, tokens or trials out of range
//   record.no_xctrace                xctrace not found (see LocateXctrace)
//   record.bundle_mismatch, record.not_a_bundle, record.extra_trials (kUsage)
//                                    refused before recording; `force` redoes them
//   process.timeout, process.signaled, process.exit_status, process.not_found, …
//                                    an xctrace call failed (core/process.h)
//   record.interrupted               options.cancel was raised
//   record.no_trace                  xctrace record exited 0 but wrote no trace
//   record.bad_toc                   the TOC export is empty or unreadable
//   record.target_failed             the TOC says the launched command exited non-zero
//   record.missing_table             a required table is not in the TOC (named)
//   record.empty_export              an export has no <node> (names the schema)
//   record.bad_export                an export the reader rejects (its error inside)
//   record.export_too_large          an export over max_export_bytes
//   record.no_target_rows            no execution points, or no submission of the
//                                    target process (names the processes seen)
//   io.write_failed                  a bundle file could not be written
StatusOr<RecordingResult> RecordInterleaved(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                                            const std::string& out_dir);

// OK when `trial_dir` is not marked incomplete; otherwise record.incomplete_bundle
// (ErrorKind::kInput) with the marker's reason. Loaders call this to refuse a trial
// that a failed or interrupted recording left behind.
Status CheckTrialComplete(const std::string& trial_dir);

}  // namespace perfgate::xctrace

#endif  // PERFGATE_XCTRACE_RECORDER_H_
