// `perfgate toks-ratio` (seam: filled by the issue-15 work).
#include "commands.h"

namespace perfgate::cli {

void RegisterToksCommand(CLI::App& /*app*/, int* /*exit_code*/) {}

}  // namespace perfgate::cli
