// Host facts for meta.json, and finding xctrace. macOS-only lookups (sysctl, xcrun)
// compile everywhere: sysctl is guarded, and xcrun is simply absent from PATH elsewhere.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "perfgate/core/process.h"
#include "xctrace/recorder_internal.h"
#include "string_util.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/utsname.h>
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

namespace perfgate::xctrace {
namespace {

std::string FirstLine(const std::string& s) { return std::string(TrimSpace(s.substr(0, s.find('\n')))); }

// Runs a short helper command; nullopt unless it exits 0.
std::optional<std::string> Capture(std::vector<std::string> argv, const std::string& directory = "") {
  ProcessOptions o;
  o.argv = std::move(argv);
  o.working_directory = directory;
  o.timeout_ms = 30 * 1000;
  o.kill_grace_ms = 1000;
  o.max_stdout_bytes = 1 << 20;
  o.set_env = {{"GIT_OPTIONAL_LOCKS", "0"}};
  auto r = RunProcess(o);
  if (!r.ok() || !r->ok()) return std::nullopt;
  return r->stdout_text;
}

#if defined(__APPLE__)
std::string Sysctl(const char* name) {
  size_t size = 0;
  if (sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return "";
  std::string value(size, '\0');
  if (sysctlbyname(name, value.data(), &size, nullptr, 0) != 0) return "";
  value.resize(size);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return std::string(TrimSpace(value));
}
#endif

}  // namespace

namespace internal {

HostInfo ReadHostInfo() {
  HostInfo h;
#if defined(__unix__) || defined(__APPLE__)
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.host = name;
#endif
#if defined(__APPLE__)
  h.chip = Sysctl("machdep.cpu.brand_string");
  std::string product = Sysctl("kern.osproductversion");
  std::string build = Sysctl("kern.osversion");
  if (!product.empty()) h.os_version = "macOS " + product + (build.empty() ? "" : " (" + build + ")");
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      h.chip = TrimSpace(line.substr(line.find(':') + 1));
      break;
    }
  }
#endif
#if defined(__unix__) || defined(__APPLE__)
  struct utsname u;
  if (uname(&u) == 0) {
    if (h.chip.empty()) h.chip = u.machine;
    if (h.os_version.empty()) h.os_version = std::string(u.sysname) + " " + u.release;
  }
#endif
  return h;
}

std::optional<GitInfo> ReadGitInfo(const std::string& directory) {
  if (!FindExecutable("git")) return std::nullopt;
  auto head = Capture({"git", "rev-parse", "--verify", "HEAD"}, directory);
  if (!head) return std::nullopt;
  GitInfo g;
  g.commit = FirstLine(*head);
  if (g.commit.empty()) return std::nullopt;
  auto status = Capture({"git", "status", "--porcelain", "--untracked-files=no"}, directory);
  g.dirty = status && !TrimSpace(*status).empty();
  return g;
}

std::string ReadXctraceVersion(const XctraceCommand& xctrace) {
  std::vector<std::string> argv = xctrace.argv;
  argv.push_back("version");
  auto out = Capture(std::move(argv));
  return out ? FirstLine(*out) : "";
}

std::string NowIso8601() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace internal

StatusOr<XctraceCommand> LocateXctrace() {
  const char* env = std::getenv("PERFGATE_XCTRACE");
  if (env != nullptr && *env != '\0') {
    if (auto path = FindExecutable(env)) return XctraceCommand{{*path}, "PERFGATE_XCTRACE"};
    return Status::Error(
        "record.no_xctrace",
        std::string("PERFGATE_XCTRACE=") + env + " is not an executable file (nor a program in PATH); fix or unset it",
        {}, ErrorKind::kEnvironment);
  }
  if (auto xcrun = FindExecutable("xcrun")) {
    if (auto found = Capture({*xcrun, "--find", "xctrace"})) {
      std::string path = FirstLine(*found);
      if (auto exe = FindExecutable(path); exe && path.find('/') != std::string::npos) {
        return XctraceCommand{{*exe}, "xcrun"};
      }
    }
  }
  if (auto path = FindExecutable("xctrace")) return XctraceCommand{{*path}, "PATH"};
  return Status::Error("record.no_xctrace",
                       "xctrace not found (tried PERFGATE_XCTRACE, `xcrun --find xctrace` and PATH). Metal "
                       "System Traces are recorded on macOS with Xcode installed; elsewhere set "
                       "PERFGATE_XCTRACE to a stand-in, or replay stored recordings",
                       {}, ErrorKind::kEnvironment);
}

std::optional<std::string> WhyRecordingImpossible() {
  auto x = LocateXctrace();
  if (x.ok()) return std::nullopt;
  return x.status().message();
}

}  // namespace perfgate::xctrace
