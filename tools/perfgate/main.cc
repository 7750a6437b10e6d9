// perfgate: GPU trace attribution and perf gates from the command line.
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "perfgate/core/diagnostics.h"

namespace perfgate::cli {

int ReportError(const Status& status) {
  std::cerr << status.ToString() << '\n';
  return status.kind() == ErrorKind::kEnvironment ? kExitEnvironment : kExitBadInput;
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

}  // namespace
}  // namespace perfgate::cli

int main(int argc, char** argv) {
  using namespace perfgate::cli;
  CLI::App app{"perfgate: GPU trace attribution and perf-regression gates.\n"
               "Exit codes: 0 ok, 1 check failed, 2 bad input or usage, 3 tool or environment failure."};
  app.require_subcommand(1);
  int exit_code = kExitOk;
  RegisterXctraceCommands(app, &exit_code);
  RegisterAttributeCommand(app, &exit_code);
#ifdef PERFGATE_HAVE_ANE_COMMAND
  RegisterAneCommand(app, &exit_code);
#endif
#ifdef PERFGATE_HAVE_RECORD_COMMAND
  RegisterRecordCommand(app, &exit_code);
#endif
  RegisterDiagnosticsCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  return exit_code;
}
