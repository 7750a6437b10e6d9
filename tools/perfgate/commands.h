// The `perfgate` CLI's subcommands. Each Register* adds one subcommand to the app and
// stores the exit code of its run in *exit_code (0 ok, 1 check failed, 2 bad input or
// usage, 3 environment or tool failure).
#ifndef PERFGATE_TOOLS_PERFGATE_COMMANDS_H_
#define PERFGATE_TOOLS_PERFGATE_COMMANDS_H_

#include <CLI/CLI.hpp>

#include "perfgate/core/status.h"

namespace perfgate::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitEnvironment = 3;

// Prints the error in compiler form on stderr and returns its exit code.
int ReportError(const Status& status);

// Adds --max-input-bytes and --max-gzip-ratio to a subcommand that reads input; each,
// when given, sets the process's InputLimits (perfgate/core/input_limits.h).
void AddInputLimitOptions(CLI::App* cmd);

// --jobs N: the threads that read trials (perfgate/core/jobs.h; default every core, env PERFGATE_JOBS).
void AddJobsOption(CLI::App* cmd);

// Writes `text` to the file `path` (io.write_failed, an environment failure, when it
// cannot), the one writer of every subcommand's --output/--out.
Status WriteTextFile(const std::string& path, const std::string& text);

// A report's destination: standard output for "" or "-", else the file `path`
// (WriteTextFile), saying "wrote: PATH" on stderr.
Status WriteOutput(const std::string& path, const std::string& text);

// A check for a count option: a whole number from 1 to INT_MAX.
CLI::Validator PositiveInt();

// A check for an option in seconds: a finite number from 0 to 10^7.
CLI::Validator Seconds();

// A check for a percentage threshold: a finite number, 0 or more.
CLI::Validator Percentage();

// A row-count option's value, N (a whole number from 1) or "all" (SIZE_MAX); anything
// else is a usage error naming `flag`.
StatusOr<size_t> ParseRowCount(const std::string& flag, const std::string& value);

void RegisterXctraceCommands(CLI::App& app, int* exit_code);
void RegisterAttributeCommand(CLI::App& app, int* exit_code);
void RegisterNewSuiteCommand(CLI::App& app, int* exit_code);  // cmd_new_suite.cc
void RegisterAneCommand(CLI::App& app, int* exit_code);     // cmd_ane.cc
void RegisterRecordCommand(CLI::App& app, int* exit_code);  // cmd_record.cc
void RegisterHistoryCommand(CLI::App& app, int* exit_code);       // cmd_history.cc: counter-report histories
void RegisterKernelReportCommand(CLI::App& app, int* exit_code);  // cmd_kernel_report.cc: per-kernel timing reports
void RegisterToksCommand(CLI::App& app, int* exit_code);          // cmd_toks.cc: tok/s ratio gates
void RegisterDiffCommand(CLI::App& app, int* exit_code);          // cmd_diff.cc: what changed between two recordings
void RegisterBisectCommand(CLI::App& app, int* exit_code);        // cmd_bisect.cc: which commit made a figure regress

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_COMMANDS_H_
