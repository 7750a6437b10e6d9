// The injected tracer's process-wide state, shared by its CUPTI side (tracer.cc) and
// its NVTX side (nvtx_injection.cc). Only libperfgate_cupti.so compiles this.
#ifndef PERFGATE_SRC_CUPTI_TRACER_STATE_H_
#define PERFGATE_SRC_CUPTI_TRACER_STATE_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "cupti/trace_records.h"

namespace perfgate::cupti::tracer {

struct State {
  std::mutex mu;             // guards everything below
  ProcessCapture capture;
  std::string out_dir;       // PERFGATE_CUPTI_OUTPUT_DIR, else "."
  std::FILE* log = nullptr;  // cupti-<pid>.log, opened when CUDA initialises the tracer
  std::FILE* dump = nullptr; // cupti-<pid>.records with PERFGATE_CUPTI_DUMP_RECORDS=1
  std::map<std::pair<bool, uint32_t>, std::string> api_names;  // (driver, cbid) -> CUPTI's name
  bool finalize_registered = false;
  bool finalized = false;
};

// The process's state. Never destroyed (the exit hook runs after static destructors
// may have), and replaced in a forked child, which must not write its parent's work.
State& GetState();

// Registers the exit hook and the fork handler once and reads the environment (call
// with mu held).
void EnsureRegistered(State& s);

// Appends a line to the log, when it is open (call with mu held). LogError also
// records the line in the trace's perfgate_tracer.errors, which fails the trial.
void Log(State& s, const std::string& line);
void LogError(State& s, const std::string& line);

// "<out_dir>/cupti-<pid><suffix>".
std::string PidFile(const State& s, const char* suffix);

// Now on CUPTI's clock (that of every activity record), in nanoseconds.
uint64_t Now();
// The calling thread's OS id (gettid), as CUPTI reports it with
// CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM.
uint32_t OsThreadId();

// NVTX ranges opened and not closed yet (nvtx_injection.cc).
uint64_t OpenNvtxRanges();
// Forgets the parent's open NVTX ranges in a forked child (nvtx_injection.cc).
void ResetNvtxAfterFork();

}  // namespace perfgate::cupti::tracer

#endif  // PERFGATE_SRC_CUPTI_TRACER_STATE_H_
