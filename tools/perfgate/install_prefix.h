// Where the running perfgate is installed, so that `new-suite` can print the
// -DCMAKE_PREFIX_PATH its suite needs. Split from the command so the prefix logic is
// tested on injected paths.
#ifndef PERFGATE_TOOLS_PERFGATE_INSTALL_PREFIX_H_
#define PERFGATE_TOOLS_PERFGATE_INSTALL_PREFIX_H_

#include <string>

namespace perfgate::cli {

// <prefix> when `executable` is <prefix>/bin/<name> and the CMake package lies beside it
// (<prefix>/lib, lib64 or lib/<multiarch> holding cmake/PerfGate/PerfGateConfig.cmake);
// "" otherwise (a build tree).
std::string InstallPrefixOf(const std::string& executable);

// The real path (links resolved) of the program started as `argv0`: a name with a '/'
// is taken from the current directory, a bare name is looked up in `path_env` (PATH's
// value) as a shell does. "" when it is not found.
std::string ResolveArgv0(const std::string& argv0, const std::string& path_env);

// The running program's real path: /proc/self/exe on Linux, _NSGetExecutablePath on
// macOS, else (or when those fail) ResolveArgv0(argv0, $PATH). "" when none works.
std::string RunningExecutable(const std::string& argv0);

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_INSTALL_PREFIX_H_
