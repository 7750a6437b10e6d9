// A stand-in for a CUDA program recorded under perfgate's CUPTI tracer: it writes the
// files the tracer would (src/cupti/TRACER.md) into $PERFGATE_CUPTI_OUTPUT_DIR, or
// fails in one of the ways the recorder must catch.
//
//   fake_cuda_target MODE [KERNELS]
//
// MODE: ok, two_processes (a child process traces too), crash (log, then SIGSEGV),
// log_only (log, exit 0), partial (log and .partial), incomplete (complete: false),
// dropped (dropped_records: 1), not_tracing (CUPTI never started), tracer_errors,
// untimed (untimed_records 2), miscounted (the tracer's kernel count off by one),
// late_error (an error logged after the trace), unclosed (2 NVTX ranges left open: a
// warning, not a failure), damaged_fields (summary fields of the wrong type), nothing, zero_kernels (runtime calls only), fail
// (a whole trace, then exit 3), hang (sleeps a minute).
// Every run appends "$PERFGATE_TRIAL_DIR" to $FAKE_CUDA_LOG when that is set, and
// writes the injection variables it saw to $PERFGATE_TRIAL_DIR/env.txt.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string OutPath(const std::string& suffix) {
  return Env("PERFGATE_CUPTI_OUTPUT_DIR") + "/cupti-" + std::to_string(getpid()) + suffix;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A Kineto-shaped trace of `kernels` kernels on device 0, each launched by a
// cudaLaunchKernel of this process (the correlation ids join them).
std::string Trace(int kernels, bool complete, int dropped, bool tracing = true) {
  const std::string pid = std::to_string(getpid());
  std::string events =
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid + ",\"tid\":0,\"args\":{\"name\":\"fake\"}}";
  for (int k = 0; k < kernels; ++k) {
    const std::string ts = std::to_string(1000 + k * 10);
    const std::string corr = std::to_string(k + 1);
    events += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":" + pid +
              ",\"tid\":" + pid + ",\"ts\":" + ts + ",\"dur\":2,\"args\":{\"correlation\":" + corr + "}}";
    events += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"fake_kernel_" + std::to_string(k % 3) +
              "\",\"pid\":0,\"tid\":7,\"ts\":" + ts + ".5,\"dur\":5,\"args\":{\"correlation\":" + corr +
              ",\"device\":0,\"stream\":7}}";
  }
  if (kernels == 0) {
    events += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMalloc\",\"pid\":" + pid + ",\"tid\":" + pid +
              ",\"ts\":1000,\"dur\":2,\"args\":{\"correlation\":1}}";
  }
  return "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"Fake GPU\",\"computeMajor\":9,"
         "\"computeMinor\":0,\"numSms\":132,\"totalGlobalMem\":150000000000}],"
         "\"cupti_version\":130001,\"cuda_driver_version\":13000,\"cuda_runtime_version\":13000,"
         "\"traceEvents\":[" +
         events + "],\"perfgate_tracer\":{\"format_version\":1,\"complete\":" + (complete ? "true" : "false") +
         ",\"pid\":" + pid + ",\"dropped_records\":" + std::to_string(dropped) +
         ",\"cuda_initialized\":true,\"tracing\":" + (tracing ? "true" : "false") +
         ",\"errors\":[" + (tracing ? "" : "\"error: cuptiActivityRegisterCallbacks: CUPTI_ERROR_UNKNOWN\"") + "]" +
         ",\"records\":{\"kernel\":" + std::to_string(kernels) + "}}}\n";
}

// `text` with its first `from` replaced by `to` (the variants of a whole trace).
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) {
    std::cerr << "fake_cuda_target: no '" << from << "' in the trace\n";
    std::exit(2);
  }
  return text.replace(at, from.size(), to);
}

void WriteLog() { Write(OutPath(".log"), "started\n"); }

void WriteTrace(int kernels, bool complete = true, int dropped = 0) {
  WriteLog();
  Write(OutPath(".json"), Trace(kernels, complete, dropped));
}

void Record() {
  const std::string log = Env("FAKE_CUDA_LOG");
  if (!log.empty()) std::ofstream(log, std::ios::app) << Env("PERFGATE_TRIAL_DIR") << '\n';
  Write(Env("PERFGATE_TRIAL_DIR") + "/env.txt", "CUDA_INJECTION64_PATH=" + Env("CUDA_INJECTION64_PATH") +
                                                    "\nNVTX_INJECTION64_PATH=" + Env("NVTX_INJECTION64_PATH") +
                                                    "\nPERFGATE_CUPTI_OUTPUT_DIR=" + Env("PERFGATE_CUPTI_OUTPUT_DIR") +
                                                    "\nFAKE_EXTRA=" + Env("FAKE_EXTRA") + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  const int kernels = argc > 2 ? std::atoi(argv[2]) : 4;
  Record();
  std::cout << "fake target: " << mode << std::endl;
  std::cerr << "fake target stderr" << std::endl;
  if (mode == "ok") {
    WriteTrace(kernels);
  } else if (mode == "two_processes") {
    pid_t child = fork();
    if (child == 0) {
      WriteTrace(kernels + 1);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    WriteTrace(kernels);
  } else if (mode == "crash") {
    WriteLog();
    std::raise(SIGSEGV);
  } else if (mode == "log_only") {
    WriteLog();
  } else if (mode == "partial") {
    WriteLog();
    Write(OutPath(".json.partial"), "{\"traceEvents\":[");
  } else if (mode == "incomplete") {
    WriteTrace(kernels, false);
  } else if (mode == "dropped") {
    WriteTrace(kernels, true, 1);
  } else if (mode == "tracer_errors") {
    WriteLog();
    Write(OutPath(".json"), Replaced(Trace(kernels, true, 0), "\"errors\":[]",
                                     "\"errors\":[\"error: cuptiActivityFlushAll (exit): CUPTI_ERROR_UNKNOWN\"]"));
  } else if (mode == "untimed") {
    WriteLog();
    Write(OutPath(".json"), Replaced(Trace(kernels, true, 0), "\"format_version\":1,",
                                     "\"format_version\":1,\"untimed_records\":2,"));
  } else if (mode == "miscounted") {
    WriteLog();
    Write(OutPath(".json"), Replaced(Trace(kernels, true, 0), "\"records\":{\"kernel\":" + std::to_string(kernels),
                                     "\"records\":{\"kernel\":" + std::to_string(kernels + 1)));
  } else if (mode == "damaged_fields") {
    WriteLog();
    Write(OutPath(".json"), Replaced(Trace(kernels, true, 0), "\"records\":{\"kernel\":" + std::to_string(kernels) + "}",
                                     "\"records\":\"damaged\",\"other_records\":7,\"unclosed_nvtx_ranges\":\"x\""));
  } else if (mode == "unclosed") {
    WriteLog();
    Write(OutPath(".json"), Replaced(Trace(kernels, true, 0), "\"format_version\":1,",
                                     "\"format_version\":1,\"unclosed_nvtx_ranges\":2,"));
  } else if (mode == "late_error") {
    WriteTrace(kernels);
    Write(OutPath(".log"), "started\nerror: 3 records arrived after the trace was written\n");
  } else if (mode == "not_tracing") {
    WriteLog();
    Write(OutPath(".json"), Trace(kernels, true, 0, false));
  } else if (mode == "zero_kernels") {
    WriteTrace(0);
  } else if (mode == "fail") {
    WriteTrace(kernels);
    return 3;
  } else if (mode == "hang") {
    sleep(60);
  } else if (mode != "nothing") {
    std::cerr << "fake_cuda_target: unknown mode " << mode << '\n';
    return 2;
  }
  return 0;
}
