// libperfgate_cupti.so: the CUDA driver loads it through CUDA_INJECTION64_PATH and calls
// InitializeInjection during cuInit. It enables CUPTI's activity API (kernels, copies,
// runtime and driver calls, CUPTI's overhead, devices), flushes on cudaDeviceReset and
// context teardown, and at exit writes the process's trace (kineto_writer.h) to
// PERFGATE_CUPTI_OUTPUT_DIR/cupti-<pid>.json, through a .partial file renamed last.
// TRACER.md is the file contract.
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
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

State* g_state = new State();

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

// Keeps every record of a completed buffer, with the ones CUPTI says it dropped.
void TakeRecords(State& s, CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid) {
  const ApiNamer namer = [&s](bool driver, uint32_t cbid) { return ApiName(s, driver, cbid); };
  CUpti_Activity* record = nullptr;
  CUptiResult r = CUPTI_SUCCESS;
  uint64_t taken = 0;
  while ((r = cuptiActivityGetNextRecord(buffer, valid, &record)) == CUPTI_SUCCESS) {
    if (s.dump != nullptr) DumpActivity(record, s.dump);
    AppendActivity(record, namer, &s.capture);
    ++taken;
  }
  if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) LogError(s, "error: cuptiActivityGetNextRecord: " + CuptiError(r));
  if (s.finalized) {
    LogError(s, "error: " + std::to_string(taken) + " records arrived after the trace was written");
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    s.capture.dropped_records += dropped;
    Log(s, "dropped " + std::to_string(dropped) + " records (buffer full)");
  }
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  State& s = GetState();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    TakeRecords(s, context, stream, buffer, valid);
  }
  std::free(buffer);
}

// Flushes outside the lock: CUPTI delivers the buffers to BufferCompleted, which takes it.
void Flush(const char* why, uint32_t flags) {
  const CUptiResult r = cuptiActivityFlushAll(flags);
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.capture.flushes[why];
  if (r != CUPTI_SUCCESS) LogError(s, std::string("error: cuptiActivityFlushAll (") + why + "): " + CuptiError(r));
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
      static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
    Flush("device_reset", 0);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    Flush("context_destroy", 0);
  }
}

// A version from a CUDA library already loaded in the process (the first of
// `libraries` that is, looked up without loading it), else from any loaded object; 0
// when none answers (a statically linked runtime, for one).
int VersionFrom(std::initializer_list<const char*> libraries, const char* symbol) {
  using Fn = int (*)(int*);
  void* handle = nullptr;
  for (const char* library : libraries) {
    if ((handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD)) != nullptr) break;
  }
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

// What the trace says of the process; gathered before the state is locked (dlopen
// may run other libraries' code).
void DescribeProcess(ProcessCapture* c) {
  c->pid = static_cast<uint32_t>(getpid());
  c->process_name = ReadProcFile("/proc/self/comm");
  c->command_line = ReadProcFile("/proc/self/cmdline");
  for (char& ch : c->command_line) ch = ch == '\0' ? ' ' : ch;
  c->cuda_driver_version = VersionFrom({"libcuda.so.1"}, "cuDriverGetVersion");
  c->cuda_runtime_version = VersionFrom({"libcudart.so.13", "libcudart.so.12"}, "cudaRuntimeGetVersion");
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
// nor recorded an NVTX range writes nothing. The log stays open: a record that still
// arrives is logged as an error there.
void Finalize() {
  State& s = GetState();
  bool cuda = false;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.finalized) return;
    cuda = s.capture.cuda_initialized;
  }
  if (cuda) Flush("exit", CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  ProcessCapture described;
  DescribeProcess(&described);
  std::lock_guard<std::mutex> lock(s.mu);
  s.finalized = true;
  s.capture.unclosed_ranges = OpenNvtxRanges();
  if (!cuda && s.capture.ranges.empty() && s.capture.marks.empty()) return;
  s.capture.pid = described.pid;
  s.capture.process_name = described.process_name;
  s.capture.command_line = described.command_line;
  s.capture.cuda_driver_version = described.cuda_driver_version;
  s.capture.cuda_runtime_version = described.cuda_runtime_version;
  s.capture.cupti_version = described.cupti_version;
  WriteTrace(s);
  if (s.dump != nullptr) std::fclose(s.dump);
  s.dump = nullptr;
}

// A forked child starts empty: its parent's records and ranges are the parent's to
// write, its log and dump are the parent's files, and a lock another thread held at
// the fork is never released in the child. CUDA does not work in a forked child
// until it execs, so it traces nothing of its own.
void OnForkChild() {
  State* fresh = new State();
  fresh->finalize_registered = true;  // the exit hook is inherited
  fresh->out_dir = g_state->out_dir;
  g_state = fresh;  // the parent's state is leaked in the child: it may be locked
  ResetNvtxAfterFork();
}

// Enables every traced kind; the errors of those that fail.
std::vector<std::string> EnableActivities() {
  size_t count = 0;
  const CUpti_ActivityKind* kinds = TracedActivityKinds(&count);
  for (size_t i = 0; i < count; ++i) {
    const CUptiResult r = cuptiActivityEnable(kinds[i]);
    if (r != CUPTI_SUCCESS) {
      return {"error: cuptiActivityEnable(" + std::to_string(static_cast<int>(kinds[i])) + "): " + CuptiError(r)};
    }
  }
  return {};
}

std::vector<std::string> SubscribeFlushPoints() {
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(OnCallback), nullptr);
  if (r == CUPTI_SUCCESS) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  }
  if (r == CUPTI_SUCCESS) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  if (r == CUPTI_SUCCESS) return {};
  return {"error: cuptiSubscribe: " + CuptiError(r) + " (another CUPTI client in the process?)"};
}

// Starts CUPTI without holding the state's lock (CUPTI may deliver a buffer, whose
// callback takes it); the errors, none when it runs.
std::vector<std::string> StartCupti() {
  CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (r == CUPTI_SUCCESS) r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (r != CUPTI_SUCCESS) return {"error: cuptiActivityRegisterCallbacks: " + CuptiError(r)};
  std::vector<std::string> errors = EnableActivities();
  if (errors.empty()) errors = SubscribeFlushPoints();
  return errors;
}

// Opens the log (and the dump when asked); false when CUDA already initialised the tracer.
bool BeginCudaTracing(State& s) {
  if (s.capture.cuda_initialized) return false;
  EnsureRegistered(s);
  std::error_code ec;
  std::filesystem::create_directories(s.out_dir, ec);
  s.log = std::fopen(PidFile(s, ".log").c_str(), "w");
  Log(s, "started: pid " + std::to_string(getpid()));
  const char* dump = std::getenv("PERFGATE_CUPTI_DUMP_RECORDS");
  if (dump != nullptr && std::string(dump) == "1") {
    s.dump = std::fopen(PidFile(s, ".records").c_str(), "wb");
    if (s.dump != nullptr) DumpHeader(s.dump);
  }
  s.capture.cuda_initialized = true;
  return true;
}

}  // namespace

State& GetState() { return *g_state; }

void EnsureRegistered(State& s) {
  if (s.finalize_registered) return;
  s.finalize_registered = true;
  const char* dir = std::getenv("PERFGATE_CUPTI_OUTPUT_DIR");
  s.out_dir = dir != nullptr && *dir != '\0' ? dir : ".";
  std::atexit(Finalize);
  pthread_atfork(nullptr, nullptr, OnForkChild);
}

void Log(State& s, const std::string& line) {
  if (s.log == nullptr) return;
  std::fprintf(s.log, "%s\n", line.c_str());
  std::fflush(s.log);
}

void LogError(State& s, const std::string& line) {
  s.capture.errors.push_back(line);
  Log(s, line);
}

std::string PidFile(const State& s, const char* suffix) {
  return s.out_dir + "/cupti-" + std::to_string(getpid()) + suffix;
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
  {
    State& s = GetState();
    std::lock_guard<std::mutex> lock(s.mu);
    if (!BeginCudaTracing(s)) return 1;
  }
  const std::vector<std::string> errors = StartCupti();
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  for (const std::string& e : errors) LogError(s, e);
  s.capture.tracing = errors.empty();
  if (!errors.empty()) LogError(s, "error: not tracing; the trace will say what was recorded");
  else Log(s, "tracing");
  return errors.empty() ? 1 : 0;
}
