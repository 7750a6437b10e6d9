// The GPUs' clocks for meta.json through NVML, loaded at run time (libnvidia-ml.so.1
// comes with the driver), so perfgate needs no CUDA headers and runs without a GPU.
#include <dlfcn.h>

#include <string>

#include "cuda/recorder_internal.h"

namespace perfgate::cuda::internal {
namespace {

// NVML's C interface, the few calls used: every call returns 0 (NVML_SUCCESS) on success.
using NvmlDevice = void*;
using InitFn = int (*)();
using CountFn = int (*)(unsigned int*);
using HandleFn = int (*)(unsigned int, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned int*);
using DriverVersionFn = int (*)(char*, unsigned int);
using ShutdownFn = int (*)();
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;

struct Nvml {
  InitFn init = nullptr;
  CountFn count = nullptr;
  HandleFn handle = nullptr;
  ClockFn clock = nullptr;
  ClockFn max_clock = nullptr;
  DriverVersionFn driver_version = nullptr;
  ShutdownFn shutdown = nullptr;
};

template <typename Fn>
bool Bind(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return *fn != nullptr;
}

// A clock in MHz, or null when NVML does not report it.
nlohmann::json Clock(ClockFn fn, NvmlDevice device, int type) {
  unsigned int mhz = 0;
  return fn(device, type, &mhz) == 0 ? nlohmann::json(mhz) : nlohmann::json();
}

nlohmann::json ReadDevices(const Nvml& nvml, unsigned int count) {
  nlohmann::json devices = nlohmann::json::array();
  for (unsigned int i = 0; i < count; ++i) {
    NvmlDevice device = nullptr;
    if (nvml.handle(i, &device) != 0) continue;
    devices.push_back({{"index", i},
                       {"sm_mhz", Clock(nvml.clock, device, kClockSm)},
                       {"sm_max_mhz", Clock(nvml.max_clock, device, kClockSm)},
                       {"mem_mhz", Clock(nvml.clock, device, kClockMem)},
                       {"mem_max_mhz", Clock(nvml.max_clock, device, kClockMem)}});
  }
  return devices;
}

}  // namespace

ClockReading ReadClocks() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return {nullptr, std::string("NVML not available (libnvidia-ml.so.1 cannot be loaded: ") + (why ? why : "?") + ")"};
  }
  Nvml nvml;
  const bool bound =
      Bind(lib, "nvmlInit_v2", &nvml.init) && Bind(lib, "nvmlDeviceGetCount_v2", &nvml.count) &&
      Bind(lib, "nvmlDeviceGetHandleByIndex_v2", &nvml.handle) && Bind(lib, "nvmlDeviceGetClockInfo", &nvml.clock) &&
      Bind(lib, "nvmlDeviceGetMaxClockInfo", &nvml.max_clock) &&
      Bind(lib, "nvmlSystemGetDriverVersion", &nvml.driver_version) && Bind(lib, "nvmlShutdown", &nvml.shutdown);
  ClockReading reading;
  unsigned int count = 0;
  if (!bound) {
    reading.unavailable = "libnvidia-ml.so.1 lacks the NVML calls perfgate uses";
  } else if (int rc = nvml.init(); rc != 0) {
    reading.unavailable = "nvmlInit_v2 failed with NVML error " + std::to_string(rc);
  } else {
    char version[96] = {};
    if (nvml.count(&count) == 0) {
      reading.clocks = {{"driver_version", nvml.driver_version(version, sizeof version) == 0 ? version : ""},
                        {"devices", ReadDevices(nvml, count)}};
    } else {
      reading.unavailable = "nvmlDeviceGetCount_v2 failed";
    }
    nvml.shutdown();
  }
  dlclose(lib);
  return reading;
}

}  // namespace perfgate::cuda::internal
