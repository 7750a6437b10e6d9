// libperfgate_cupti.so: the CUDA driver loads it through CUDA_INJECTION64_PATH and calls
// InitializeInjection during cuInit. It enables CUPTI's activity API (kernels, copies,
// runtime and driver calls, CUPTI's overhead, devices), flushes on cudaDeviceReset and
// context teardown, and at exit writes the process's trace (kineto_writer.h) to
// PERFGATE_CUPTI_OUTPUT_DIR/cupti-<pid>.json, through a .partial file renamed last.
// TRACER.md is the file contract.
#include <cupti.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "cupti/cupti_convert.h"
#include "cupti/kineto_writer.h"
#include "cupti/record_dump.h"
#include "cupti/tracer_state.h"

namespace perfgate::cupti::tracer {
namespace {

constexpr size_t kBufferBytes = size_t{8} << 20;

std::string PidFile(const State& s, const char* suffix) {
  return s.out_dir + "/cupti-" + std::to_string(getpid()) + suffix;
}

std::string CuptiError(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text != nullptr ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

// cuptiGetCallbackName, remembered per id in the state (a function-local static would
// be destroyed by exit() before the exit hook's last flush needs it), and written to
// the dump once each.
std::string ApiName(State& s, bool driver, uint32_t cbid) {
  auto [it, fresh] = s.api_names.try_emplace({driver, cbid});
  if (fresh) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) ==
            CUPTI_SUCCESS && name != nullptr) {
      it->second = name;
    }
    if (s.dump != nullptr) DumpApiName(driver, cbid, it->second, s.dump);
  }
  return it->second;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  const ApiNamer namer = [&s](bool driver, uint32_t cbid) { return ApiName(s, driver, cbid); };
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (s.dump != nullptr) DumpActivity(record, s.dump);
    AppendActivity(record, namer, &s.capture);
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    s.capture.dropped_records += dropped;
    Log(s, "dropped " + std::to_string(dropped) + " records (buffer full)");
  }
  std::free(buffer);
}

void Flush(const char* why, uint32_t flags) {
  cuptiActivityFlushAll(flags);
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.capture.flushes[why];
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
      static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
    Flush("device_reset", 0);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    Flush("context_destroy", 0);
  }
}

// A version from the CUDA library already loaded in the process (`library`, looked up
// without loading it), else from any loaded object.
int VersionFrom(const char* library, const char* symbol) {
  using Fn = int (*)(int*);
  void* handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
  auto fn = reinterpret_cast<Fn>(dlsym(handle != nullptr ? handle : RTLD_DEFAULT, symbol));
  int version = 0;
  const bool ok = fn != nullptr && fn(&version) == 0;
  if (handle != nullptr) dlclose(handle);
  return ok ? version : 0;
}

std::string ReadProcFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

void DescribeProcess(ProcessCapture* c) {
  c->pid = static_cast<uint32_t>(getpid());
  c->process_name = ReadProcFile("/proc/self/comm");
  c->command_line = ReadProcFile("/proc/self/cmdline");
  for (char& ch : c->command_line) ch = ch == '\0' ? ' ' : ch;
  c->cuda_driver_version = VersionFrom("libcuda.so.1", "cuDriverGetVersion");
  c->cuda_runtime_version = VersionFrom("libcudart.so.13", "cudaRuntimeGetVersion");
  cuptiGetVersion(&c->cupti_version);
}

void WriteTrace(State& s) {
  std::error_code ec;
  std::filesystem::create_directories(s.out_dir, ec);
  const std::string partial = PidFile(s, ".json.partial");
  bool ok = false;
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    const char* all = std::getenv("PERFGATE_CUPTI_ALL_API");
    WriteOptions options;
    options.all_api_calls = all != nullptr && std::string(all) == "1";
    ok = out && WriteKinetoTrace(s.capture, out, options);
  }
  if (ok && std::rename(partial.c_str(), PidFile(s, ".json").c_str()) == 0) {
    Log(s, "finished: " + std::to_string(s.capture.kernels.size()) + " kernels, " +
               std::to_string(s.capture.api_calls.size()) + " API calls, " + std::to_string(s.capture.ranges.size()) +
               " NVTX ranges, " + std::to_string(s.capture.dropped_records) + " dropped");
  } else {
    Log(s, "error: could not write " + partial);
  }
}

// At exit: the last records, then the trace. A process that neither initialised CUDA
// nor recorded an NVTX range writes nothing.
void Finalize() {
  State& s = GetState();
  bool cuda = false;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.finalized) return;
    s.finalized = true;
    cuda = s.capture.cuda_initialized;
  }
  if (cuda) Flush("exit", CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(s.mu);
  s.capture.unclosed_ranges = OpenNvtxRanges();
  if (!cuda && s.capture.ranges.empty() && s.capture.marks.empty()) return;
  DescribeProcess(&s.capture);
  WriteTrace(s);
  if (s.dump != nullptr) std::fclose(s.dump);
  s.dump = nullptr;
  if (s.log != nullptr) std::fclose(s.log);
  s.log = nullptr;
}

// Enables every traced kind; false (logged) at the first that fails.
bool EnableActivities(State& s) {
  size_t count = 0;
  const CUpti_ActivityKind* kinds = TracedActivityKinds(&count);
  for (size_t i = 0; i < count; ++i) {
    const CUptiResult r = cuptiActivityEnable(kinds[i]);
    if (r != CUPTI_SUCCESS) {
      Log(s, "error: cuptiActivityEnable(" + std::to_string(static_cast<int>(kinds[i])) + "): " + CuptiError(r));
      return false;
    }
  }
  return true;
}

bool SubscribeFlushPoints(State& s) {
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(OnCallback), nullptr);
  if (r == CUPTI_SUCCESS) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  }
  if (r == CUPTI_SUCCESS) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  if (r != CUPTI_SUCCESS) Log(s, "error: cuptiSubscribe: " + CuptiError(r) + " (another CUPTI client in the process?)");
  return r == CUPTI_SUCCESS;
}

bool StartCupti(State& s) {
  CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (r == CUPTI_SUCCESS) r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (r != CUPTI_SUCCESS) {
    Log(s, "error: cuptiActivityRegisterCallbacks: " + CuptiError(r));
    return false;
  }
  return EnableActivities(s) && SubscribeFlushPoints(s);
}

}  // namespace

State& GetState() {
  static State* state = new State();  // never destroyed: the exit hook still uses it
  return *state;
}

void EnsureRegistered(State& s) {
  if (s.finalize_registered) return;
  s.finalize_registered = true;
  const char* dir = std::getenv("PERFGATE_CUPTI_OUTPUT_DIR");
  s.out_dir = dir != nullptr && *dir != '\0' ? dir : ".";
  std::atexit(Finalize);
}

void Log(State& s, const std::string& line) {
  if (line.rfind("error", 0) == 0) s.capture.errors.push_back(line);
  if (s.log == nullptr) return;
  std::fprintf(s.log, "%s\n", line.c_str());
  std::fflush(s.log);
}

uint64_t Now() {
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  return ts;
}

uint32_t OsThreadId() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

}  // namespace perfgate::cupti::tracer

// The CUDA driver's entry point (CUDA_INJECTION64_PATH). 1: the tracer is running.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace perfgate::cupti::tracer;
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.capture.cuda_initialized) return 1;
  EnsureRegistered(s);
  std::error_code ec;
  std::filesystem::create_directories(s.out_dir, ec);
  s.log = std::fopen((s.out_dir + "/cupti-" + std::to_string(getpid()) + ".log").c_str(), "w");
  Log(s, "started: pid " + std::to_string(getpid()));
  const char* dump = std::getenv("PERFGATE_CUPTI_DUMP_RECORDS");
  if (dump != nullptr && std::string(dump) == "1") {
    s.dump = std::fopen((s.out_dir + "/cupti-" + std::to_string(getpid()) + ".records").c_str(), "wb");
    if (s.dump != nullptr) perfgate::cupti::DumpHeader(s.dump);
  }
  s.capture.cuda_initialized = true;
  const bool started = StartCupti(s);
  s.capture.tracing = started;
  Log(s, started ? "tracing" : "error: not tracing; the trace will say what was recorded");
  return started ? 1 : 0;
}
