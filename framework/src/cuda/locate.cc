// Whether CUDA programs can be recorded here: the driver and a GPU (libcuda.so.1,
// loaded at run time, so perfgate needs no CUDA headers), and the tracer library.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "perfgate/cuda/recorder.h"

namespace perfgate::cuda {
namespace {

namespace fs = std::filesystem;

// The Debian multiarch directory of this build's target, for ../lib/<multiarch>/.
#if defined(__x86_64__)
constexpr const char* kMultiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char* kMultiarch = "aarch64-linux-gnu";
#else
constexpr const char* kMultiarch = "";
#endif

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

Status NoTracer(const std::string& what) {
  return Status::Error("record.no_tracer",
                       what + ". The tracer (" + std::string(kTracerLibrary) +
                           ") is built only where CUDA's CUPTI is found; build perfgate there, or give its path "
                           "with --tracer PATH or PERFGATE_CUPTI_TRACER",
                       {}, ErrorKind::kEnvironment);
}

// The running executable's directory ("" where /proc/self/exe cannot be read).
fs::path ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> CandidatesBeside(const fs::path& dir) {
  const std::string lib(kTracerLibrary);
  std::vector<fs::path> out = {dir / lib, dir / ".." / "lib" / lib, dir / ".." / "lib64" / lib};
  if (*kMultiarch != '\0') out.push_back(dir / ".." / "lib" / kMultiarch / lib);
  return out;
}

// Where this build put the tracer and where installing puts it, for the programs that
// are not perfgate and so have no tracer beside them (a suite recording with
// PERFGATE_RECORD=1). Defined by framework/src/cupti/tracer.cmake where it builds one.
std::vector<std::pair<fs::path, const char*>> BuiltTracers() {
  std::vector<std::pair<fs::path, const char*>> out;
#ifdef PERFGATE_CUPTI_BUILD_PATH
  out.emplace_back(PERFGATE_CUPTI_BUILD_PATH, "the build tree");
#endif
#ifdef PERFGATE_CUPTI_INSTALL_PATH
  out.emplace_back(PERFGATE_CUPTI_INSTALL_PATH, "the install prefix");
#endif
  return out;
}

// cuInit and cuDeviceGetCount, declared here: both return a CUresult (0: success).
using CuInitFn = int (*)(unsigned int);
using CuDeviceGetCountFn = int (*)(int*);
using CuGetErrorNameFn = int (*)(int, const char**);

std::string CudaErrorName(void* lib, int rc) {
  auto name_of = reinterpret_cast<CuGetErrorNameFn>(dlsym(lib, "cuGetErrorName"));
  const char* name = nullptr;
  if (name_of != nullptr && name_of(rc, &name) == 0 && name != nullptr)
    return std::string(name) + " (" + std::to_string(rc) + ")";
  return "CUresult " + std::to_string(rc);
}

// Why the driver cannot run CUDA here, or nullopt. The library stays loaded: CUDA's
// driver is not made to be unloaded.
std::optional<std::string> ProbeDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return std::string("no NVIDIA driver (libcuda.so.1 cannot be loaded: ") + (why ? why : "unknown reason") + ")";
  }
  auto init = reinterpret_cast<CuInitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CuDeviceGetCountFn>(dlsym(lib, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr)
    return std::string("no NVIDIA driver (libcuda.so.1 lacks cuInit or cuDeviceGetCount)");
  if (int rc = init(0); rc != 0) {
    return std::string(rc == 100 ? "no GPU" : "no usable GPU") + " (cuInit failed: " + CudaErrorName(lib, rc) + ")";
  }
  int devices = 0;
  if (int rc = count(&devices); rc != 0) return "no GPU (cuDeviceGetCount failed: " + CudaErrorName(lib, rc) + ")";
  if (devices == 0) return std::string("no GPU (the driver reports 0 devices)");
  return std::nullopt;
}

}  // namespace

StatusOr<TracerLocation> LocateTracer(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (IsFile(explicit_path)) return TracerLocation{fs::absolute(explicit_path).string(), "--tracer"};
    return NoTracer("--tracer " + explicit_path + " is not a file");
  }
  const char* env = std::getenv("PERFGATE_CUPTI_TRACER");
  if (env != nullptr && *env != '\0') {
    if (IsFile(env)) return TracerLocation{fs::absolute(env).string(), "PERFGATE_CUPTI_TRACER"};
    return NoTracer(std::string("PERFGATE_CUPTI_TRACER=") + env + " is not a file; fix or unset it");
  }
  const fs::path dir = ExecutableDir();
  std::string tried;
  for (const fs::path& p : dir.empty() ? std::vector<fs::path>() : CandidatesBeside(dir)) {
    if (IsFile(p)) return TracerLocation{p.lexically_normal().string(), "beside perfgate"};
    tried += (tried.empty() ? "" : ", ") + p.lexically_normal().string();
  }
  std::string built;
  for (const auto& [path, where] : BuiltTracers()) {
    if (IsFile(path)) return TracerLocation{path.lexically_normal().string(), where};
    built += std::string("; ") + where + ": " + path.string();
  }
  return NoTracer(
      "the CUPTI tracer was not found (tried --tracer: not given; PERFGATE_CUPTI_TRACER: unset; beside "
      "the running program: " +
      (tried.empty() ? std::string("/proc/self/exe unreadable") : tried) + built + ")");
}

std::optional<std::string> WhyCudaRecordingImpossible(const std::string& explicit_tracer) {
  static const std::optional<std::string> driver = ProbeDriver();
  if (driver) return driver;
  auto tracer = LocateTracer(explicit_tracer);
  if (!tracer.ok()) return "no tracer (" + tracer.status().message() + ")";
  return std::nullopt;
}

}  // namespace perfgate::cuda
