// perfgate: GPU trace attribution and perf gates from the command line.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "perfgate/core/diagnostics.h"
#include "perfgate/core/input_limits.h"
#include "perfgate/core/jobs.h"
#include "perfgate/core/version.h"

namespace perfgate::cli {

int ReportError(const Status& status) {
  // Without a file to name, the program is the location, as for CLI11's own errors.
  std::cerr << (status.location().path.empty() ? "perfgate: " : "") << status.ToString() << '\n';
  return status.kind() == ErrorKind::kEnvironment ? kExitEnvironment : kExitBadInput;
}

namespace {

// Applies one limit option to the process's InputLimits, over those of the
// environment (a bad environment value is refused here rather than overridden).
void SetLimit(const std::string& value, const char* option, uint64_t InputLimits::*field) {
  auto parsed = ParseByteCount(value, option);
  if (!parsed.ok()) throw CLI::ValidationError(parsed.status().message(), CLI::ExitCodes::ValidationError);
  auto limits = InputLimitsFromEnvironment();
  if (!limits.ok()) throw CLI::ValidationError(limits.status().message(), CLI::ExitCodes::ValidationError);
  InputLimits updated = *limits;
  if (auto current = CurrentInputLimits(); current.ok()) updated = *current;
  updated.*field = *parsed;
  SetInputLimits(updated);
}

}  // namespace

void AddInputLimitOptions(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
         "--max-input-bytes",
         [](const std::string& v) { SetLimit(v, "--max-input-bytes", &InputLimits::max_input_bytes); },
         "largest input file, on disk and inflated: BYTES with K/M/G/T (default 2G; env " +
             std::string(kMaxInputBytesEnv) + ")")
      ->type_name("BYTES");
  cmd->add_option_function<std::string>(
         "--max-gzip-ratio",
         [](const std::string& v) { SetLimit(v, "--max-gzip-ratio", &InputLimits::max_gzip_ratio); },
         "how many times its compressed size a .gz input may inflate to (default 100; env " +
             std::string(kMaxGzipRatioEnv) + ")")
      ->type_name("N");
}

void AddJobsOption(CLI::App* cmd) {
  cmd->add_option_function<int>(
         "--jobs,-j", [](int n) { SetJobs(n); },
         "threads that read and attribute trials, one trial each (default: every core; env " +
             std::string(kJobsEnv) + ")")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return Status::Error("io.write_failed", "cannot write", {path}, ErrorKind::kEnvironment);
  return Status();
}

Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return Status();
  }
  PERFGATE_RETURN_IF_ERROR(WriteTextFile(path, text));
  std::cerr << "wrote: " << FormatPath(path) << '\n';
  return Status();
}

CLI::Validator PositiveInt() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        long long v = 0;
        if (!CLI::detail::lexical_cast(text, v) || v < 1 || v > INT_MAX) {
          return "'" + text + "' is not a whole number from 1 to " + std::to_string(INT_MAX);
        }
        return "";
      },
      "N>0");
}

CLI::Validator Seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number of seconds";
        if (!std::isfinite(v) || v < 0 || v > 1e7) return "'" + text + "' must be between 0 and 10000000 seconds";
        return "";
      },
      "SECONDS");
}

CLI::Validator Percentage() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < 0) {
          return "'" + text + "': expected a finite percentage, 0 or more";
        }
        return "";
      },
      "PCT");
}

StatusOr<size_t> ParseRowCount(const std::string& flag, const std::string& value) {
  if (value == "all") return SIZE_MAX;
  size_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n == 0) {
    return Status::Error("cli.usage", flag + " '" + value + "': expected a positive row count or 'all'", {},
                         ErrorKind::kUsage);
  }
  return n;
}

namespace {

void RegisterDiagnosticsCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("diagnostics", "List every named anomaly perfgate counts");
  cmd->callback([exit_code] {
    for (const auto& d : DiagnosticCatalogue()) {
      std::cout << d.code << '\t' << SeverityName(d.severity) << '\t' << d.summary << '\n';
    }
    *exit_code = kExitOk;
  });
}

// The usage.<kind> code of a CLI11 parse error (by type: CLI11 names some errors
// after the subcommand that raised them).
std::string UsageCode(const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // CLI11 lists the extras after ": " (in no set order); any that reads as an
    // option makes it an unknown option.
    const std::string what = e.what();
    const size_t colon = what.find(": ");
    const std::string extras = colon == std::string::npos ? "" : " " + what.substr(colon + 2);
    return extras.find(" -") != std::string::npos ? "usage.unknown_option" : "usage.extra_argument";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) return "usage.missing_required";
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) return "usage.argument_count";
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return "usage.bad_number";
  if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) return "usage.bad_value";
  if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr ||
      dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
    return "usage.conflict";
  }
  return "usage.error";
}

// CLI11's own errors, in the compiler form every other error has.
int ReportParseError(const CLI::ParseError& e) {
  std::cerr << "perfgate: error[" << UsageCode(e) << "]: " << e.what() << " (run 'perfgate --help')\n";
  return kExitBadInput;
}

// The last line of defence: a library exception that escaped a subcommand, as an error.
int ReportException(const char* code, const std::string& what, ErrorKind kind) {
  return ReportError(Status::Error(code, what, {}, kind));
}

// A first argument that is neither --help nor a subcommand: CLI11 would only say that
// a subcommand is required.
Status CheckSubcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return Status();
  const std::string first = argv[1];
  if (first == "-h" || first == "--help" || first == "--version") return Status();
  if (first[0] == '-') {
    return Status::Error("usage.unknown_option", "no option '" + first + "' before the subcommand", {},
                         ErrorKind::kUsage);
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == first) return Status();
    names.push_back(sub->get_name());
  }
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return Status::Error("usage.unknown_command",
                       "no subcommand '" + first + "' (known: " + known + ")", {}, ErrorKind::kUsage);
}

int Run(CLI::App& app, int argc, char** argv, const int& exit_code) {
  if (Status s = CheckSubcommand(app, argc, argv); !s.ok()) {
    std::cerr << "perfgate: " << s.ToString() << " (run 'perfgate --help')\n";
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return ReportParseError(e);
  } catch (const std::filesystem::filesystem_error& e) {
    return ReportError(Status::Error("io.filesystem", e.what(), {e.path1().string()}));
  } catch (const nlohmann::json::exception& e) {
    return ReportException("json.error", e.what(), ErrorKind::kInput);
  } catch (const std::ios_base::failure& e) {
    return ReportException("io.read_failed", e.what(), ErrorKind::kInput);
  } catch (const std::bad_alloc&) {
    return ReportException("resource.out_of_memory", "out of memory", ErrorKind::kEnvironment);
  } catch (const std::exception& e) {
    return ReportException("internal.exception", e.what(), ErrorKind::kEnvironment);
  }
  return exit_code;
}

}  // namespace
}  // namespace perfgate::cli

int main(int argc, char** argv) {
  using namespace perfgate::cli;
  CLI::App app{"perfgate: GPU trace attribution and perf-regression gates.\n"
               "Exit codes: 0 ok, 1 check failed, 2 bad input or usage, 3 tool or environment failure."};
  app.require_subcommand(1);
  app.set_version_flag("--version", perfgate::VersionLine(), "Print the version and the commit perfgate was built from");
  int exit_code = kExitOk;
  RegisterXctraceCommands(app, &exit_code);
  RegisterAttributeCommand(app, &exit_code);
  RegisterDiffCommand(app, &exit_code);
  RegisterBisectCommand(app, &exit_code);
  RegisterNewSuiteCommand(app, &exit_code);
  RegisterHistoryCommand(app, &exit_code);
  RegisterKernelReportCommand(app, &exit_code);
  RegisterToksCommand(app, &exit_code);
#ifdef PERFGATE_HAVE_ANE_COMMAND
  RegisterAneCommand(app, &exit_code);
#endif
#ifdef PERFGATE_HAVE_RECORD_COMMAND
  RegisterRecordCommand(app, &exit_code);
#endif
  RegisterDiagnosticsCommand(app, &exit_code);
  return Run(app, argc, argv, exit_code);
}
