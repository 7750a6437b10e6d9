#include "install_prefix.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include <unistd.h>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

namespace perfgate::cli {
namespace {

namespace fs = std::filesystem;

// `path` with its links resolved, "" when it does not name an existing file.
std::string RealPath(const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec || !fs::is_regular_file(real, ec)) return "";
  return real.string();
}

bool HasPackage(const fs::path& libdir) {
  std::error_code ec;
  return fs::exists(libdir / "cmake" / "PerfGate" / "PerfGateConfig.cmake", ec);
}

std::string FromOperatingSystem() {
#if defined(__linux__)
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) return RealPath(exe);
#elif defined(__APPLE__)
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);  // asks for the size
  std::vector<char> buffer(size + 1, '\0');
  if (_NSGetExecutablePath(buffer.data(), &size) == 0) return RealPath(buffer.data());  // may be a link
#endif
  return "";
}

}  // namespace

std::string InstallPrefixOf(const std::string& executable) {
  if (executable.empty()) return "";
  const fs::path bin = fs::path(executable).parent_path();
  if (bin.filename() != "bin") return "";
  const fs::path prefix = bin.parent_path();
  for (const char* libdir : {"lib", "lib64"}) {
    if (HasPackage(prefix / libdir)) return prefix.string();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(prefix / libdir, ec)) {  // lib/<multiarch>/cmake/...
      if (HasPackage(entry.path())) return prefix.string();
    }
  }
  return "";
}

std::string ResolveArgv0(const std::string& argv0, const std::string& path_env) {
  if (argv0.empty()) return "";
  if (argv0.find('/') != std::string::npos) return RealPath(argv0);
  size_t begin = 0;
  while (begin <= path_env.size()) {
    size_t end = path_env.find(':', begin);
    if (end == std::string::npos) end = path_env.size();
    const std::string dir = path_env.substr(begin, end - begin);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / argv0;  // "" in PATH is "."
    const std::string found = RealPath(candidate);
    if (!found.empty() && access(candidate.c_str(), X_OK) == 0) return found;
    begin = end + 1;
  }
  return "";
}

std::string RunningExecutable(const std::string& argv0) {
  const std::string exe = FromOperatingSystem();
  if (!exe.empty()) return exe;
  const char* path = std::getenv("PATH");
  return ResolveArgv0(argv0, path ? path : "");
}

}  // namespace perfgate::cli
