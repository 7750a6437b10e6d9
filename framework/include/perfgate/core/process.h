// Running an external program: the one way perfgate calls a tool (xctrace, git, xcrun).
//
// RunProcess spawns argv directly (no shell), in its own process group, with a chosen
// environment and working directory, stdin from /dev/null, and stdout and stderr
// captured through pipes with size limits (stdout may go to a file instead). When the
// timeout passes, or the caller's cancel flag is raised, the whole process group gets
// `terminate_signal`, then SIGKILL after `kill_grace_ms`; grandchildren that still hold
// the pipes after the program exits are killed too, so a call never hangs on them.
// The result reports how the program ended: its exit status, the signal that ended it,
// and whether perfgate stopped it.
//
// POSIX only (Linux, macOS). Elsewhere RunProcess returns process.unsupported.
#ifndef PERFGATE_CORE_PROCESS_H_
#define PERFGATE_CORE_PROCESS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate {

// What to run and how. Defaults: inherit the environment and working directory, no
// timeout, 16 MiB of stdout and 1 MiB of stderr kept.
struct ProcessOptions {
  // The program and its arguments. argv[0] without a '/' is looked up in PATH (the
  // PATH the child will see); it is never passed to a shell.
  std::vector<std::string> argv;

  // Start from perfgate's own environment (true) or from an empty one (false), then
  // remove `unset_env` and set `set_env` (NAME, VALUE), in that order.
  bool inherit_env = true;
  std::vector<std::string> unset_env;
  std::vector<std::pair<std::string, std::string>> set_env;

  // The child's working directory; "" keeps perfgate's.
  std::string working_directory;

  // Wall-clock limit in milliseconds; 0 means none. When it passes, the process group
  // receives `terminate_signal`, then SIGKILL `kill_grace_ms` later if anything in it
  // is still alive or still holds the pipes.
  int64_t timeout_ms = 0;
  int terminate_signal = 15;  // SIGTERM; xctrace record is stopped with SIGINT (2)
  int64_t kill_grace_ms = 2000;

  // Bytes of stdout and stderr kept; what comes beyond is read and dropped, and the
  // result says so (stdout_truncated, stderr_truncated).
  size_t max_stdout_bytes = size_t{16} << 20;
  size_t max_stderr_bytes = size_t{1} << 20;
  // When set, stdout is written to this file (created or truncated) instead of being
  // kept in memory; max_stdout_bytes still caps what is written.
  std::string stdout_path;

  // Raised by another thread or a signal handler to stop the program early (the
  // process group gets the same treatment as on a timeout). May be null.
  const std::atomic<bool>* cancel = nullptr;

  // Called about every `heartbeat_ms` while the program runs (e.g. to print
  // progress), with the milliseconds elapsed since it started. Unused when 0 or empty.
  int64_t heartbeat_ms = 0;
  std::function<void(int64_t elapsed_ms)> heartbeat;
};

// How a program ended. Exactly one of `exited` and `signaled` is true.
struct ProcessResult {
  bool exited = false;    // it returned from main or called exit()
  int exit_code = -1;     // valid when exited
  bool signaled = false;  // a signal ended it
  int term_signal = 0;    // valid when signaled, e.g. 9 for SIGKILL

  bool timed_out = false;  // perfgate stopped it because timeout_ms passed
  bool cancelled = false;  // perfgate stopped it because *cancel was raised
  // Members of its process group still held stdout or stderr after it ended, and were
  // killed with SIGKILL.
  bool killed_stragglers = false;

  std::string stdout_text;  // empty when stdout_path was given
  std::string stderr_text;
  uint64_t stdout_bytes = 0;  // every byte the program wrote to stdout, kept or not
  uint64_t stderr_bytes = 0;
  bool stdout_truncated = false;
  bool stderr_truncated = false;

  int64_t elapsed_ms = 0;  // from spawn to the end of the program and its pipes

  // Exited with status 0, not stopped by perfgate, output complete.
  bool ok() const { return exited && exit_code == 0 && !timed_out && !cancelled && !stdout_truncated; }
  // One phrase: "exited with status 3", "killed by signal 6 (SIGABRT)",
  // "timed out after 2.0 s (stopped with SIGTERM)".
  std::string Describe() const;
};

// Runs a program to completion (or until perfgate stops it). A program that cannot be
// started is an error: process.bad_argv (empty argv), process.not_found (not in PATH or
// no such file), process.spawn_failed (fork, exec or chdir failed, with the reason),
// io.write_failed (stdout_path cannot be created). Every one is ErrorKind::kEnvironment.
// A program that starts and then fails, crashes or times out is a ProcessResult, not an
// error: see CheckProcessSucceeded.
StatusOr<ProcessResult> RunProcess(const ProcessOptions& options);

// OK when result.ok(); otherwise an ErrorKind::kEnvironment error that names `what`
// (e.g. "xctrace record") and says how it ended, followed by the last lines of its
// stderr. Codes: process.timeout, process.cancelled, process.signaled,
// process.exit_status, process.output_too_large.
Status CheckProcessSucceeded(const ProcessResult& result, std::string_view what);

// The file `name` would run as, searched in `path_list` (colon-separated; the current
// PATH when nullopt) when it has no '/'; nullopt when there is no such executable file.
std::optional<std::string> FindExecutable(std::string_view name, std::optional<std::string> path_list = std::nullopt);

// `word` as one POSIX shell word, for commands perfgate prints to be pasted: as it is
// when it holds only letters, digits and _./:=@%+,-, else in single quotes ('it'\''s').
std::string ShellQuote(const std::string& word);

// A signal's name, e.g. "SIGKILL" for 9; "signal 42" for one without a name here.
std::string SignalName(int signal);

}  // namespace perfgate

#endif  // PERFGATE_CORE_PROCESS_H_
