// The CUDA backend of the recorder: one run of the command with the CUPTI tracer
// injected per trial, then the tracer's files checked and made into trace.json.gz.
// The loop around it is the xctrace recorder's (src/xctrace/recorder.cc). See
// perfgate/cuda/recorder.h.
#include "perfgate/cuda/recorder.h"

#include <csignal>
#include <filesystem>

#include "cuda/recorder_internal.h"
#include "perfgate/core/process.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::cuda {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using xctrace::EngineRecordSpec;
using xctrace::internal::TrialInProgress;

constexpr int64_t kDefaultTimeoutMs = 30 * 60 * 1000;
// What command.log keeps of the command's output (the rest is counted, not kept).
constexpr size_t kMaxLoggedStdout = size_t{4} << 20;
constexpr size_t kMaxLoggedStderr = size_t{1} << 20;

// The xctrace-only options must stay at their defaults: silently ignoring one would
// record something other than what was asked.
Status ValidateCudaOptions(const RecordOptions& o) {
  const xctrace::RecordOptions defaults;
  if (o.time_limit_ms != 0) return xctrace::internal::BadSpec("a time limit is xctrace's (--time-limit); not for CUDA");
  if (!o.tables.empty()) return xctrace::internal::BadSpec("tables are xctrace's (--tables); not for CUDA");
  if (o.template_name != defaults.template_name)
    return xctrace::internal::BadSpec("a template is xctrace's; not for CUDA");
  if (!o.keep_trace)
    return xctrace::internal::BadSpec("discarding the trace is xctrace's (--discard-trace); not for CUDA");
  return Status();
}

// A device's facts from the trace's deviceProperties (Kineto's key names).
json GpuJson(const json& d) {
  if (!d.is_object()) return json();
  const json major = d.value("computeMajor", json());
  const json minor = d.value("computeMinor", json());
  const bool cc = major.is_number_integer() && minor.is_number_integer();
  return {{"id", d.value("id", json())},
          {"name", d.value("name", json())},
          {"compute_capability",
           cc ? json(std::to_string(major.get<int64_t>()) + "." + std::to_string(minor.get<int64_t>())) : json()},
          {"sms", d.value("numSms", json())},
          {"memory_bytes", d.value("totalGlobalMem", json())}};
}

class CudaBackend : public xctrace::internal::Backend {
 public:
  explicit CudaBackend(TracerLocation tracer) : tracer_(std::move(tracer)) {}

  json Identity(const EngineRecordSpec& spec, const xctrace::RecordOptions&) const override {
    return {{"engine", spec.engine}, {"command", spec.command}, {"tokens", spec.tokens}, {"backend", "cuda"}};
  }

  xctrace::internal::RequiredFiles CompleteTrialFiles() const override { return {{std::string(kTraceFile)}}; }

  std::string Describe() const override { return "CUDA tracer " + tracer_.path + " (" + tracer_.found_by + ")"; }

  json MetaFields(const xctrace::RecordOptions&) const override {
    return {{"backend", "cuda"}, {"tracer", {{"path", tracer_.path}, {"found_by", tracer_.found_by}}}};
  }

  Status RecordTrial(const TrialInProgress& t) const override {
    const fs::path output = fs::path(t.dir) / std::string(kTracerOutputDir);
    std::error_code ec;
    fs::create_directories(output, ec);
    if (ec) {
      return Status::Error("io.write_failed", "cannot create the tracer's directory: " + ec.message(),
                           {output.string()}, ErrorKind::kEnvironment);
    }
    // The clocks as the run starts: read after it, they would be the idle ones.
    const internal::ClockReading clocks = internal::ReadClocks();
    t.meta["clocks"] = clocks.clocks;
    if (clocks.clocks.is_null()) t.meta["clocks_unavailable"] = clocks.unavailable;
    PERFGATE_RETURN_IF_ERROR(RunCommand(t, output));
    t.Line("checking the tracer's output");
    PERFGATE_ASSIGN_OR_RETURN(const internal::TrialTrace trace, internal::MakeTrialTrace(t.dir));
    AddTraceFacts(trace, &t.meta);
    for (const std::string& w : NvtxWarnings(trace)) t.Line("warning: " + w);
    t.Line(std::to_string(trace.kernels) + " kernels from " + std::to_string(trace.trace_pids.size()) + " process(es)");
    return Status();
  }

 private:
  // The command, once, with the tracer injected; its output goes to command.log.
  Status RunCommand(const TrialInProgress& t, const fs::path& output) const {
    ProcessOptions p;
    p.argv = t.spec.command;
    p.set_env = {{"CUDA_INJECTION64_PATH", tracer_.path},
                 {"NVTX_INJECTION64_PATH", tracer_.path},
                 {"PERFGATE_CUPTI_OUTPUT_DIR", output.string()},
                 {"PERFGATE_TRIAL_DIR", t.dir}};
    for (const auto& kv : t.spec.environment) p.set_env.push_back(kv);
    p.timeout_ms = t.options.record_timeout_ms > 0 ? t.options.record_timeout_ms : kDefaultTimeoutMs;
    p.terminate_signal = SIGTERM;
    p.kill_grace_ms = t.options.kill_grace_ms;
    p.max_stdout_bytes = kMaxLoggedStdout;
    p.max_stderr_bytes = kMaxLoggedStderr;
    t.progress.Line(t.label + " (job " + std::to_string(t.job) + "/" + std::to_string(t.jobs) +
                    "): recording: " + xctrace::internal::Quote(t.spec.command));
    const std::string argv = xctrace::internal::Quote(p.argv);
    auto run = t.Run(std::move(p), "the recorded command", std::string(kCommandLogFile));
    const fs::path log_path = fs::path(t.dir) / std::string(kCommandLogFile);
    std::error_code ec;
    if (!run.ok() && !fs::exists(log_path, ec)) {
      // It did not start: command.log still says what happened.
      const std::string log = "$ " + argv + "\n--- not started: " + run.status().ToString() + " ---\n";
      static_cast<void>(xctrace::internal::WriteFileAtomic(log_path.string(), log));
    }
    if (!run.ok()) return run.status();
    const ProcessResult& r = *run;
    t.meta["command_outcome"] = r.Describe();
    // Output beyond what command.log keeps is no failure of the command.
    const bool succeeded = r.exited && r.exit_code == 0 && !r.timed_out;
    if (succeeded) return Status();
    Status failed = CheckProcessSucceeded(r, "the recorded command");
    return Status::Error(failed.code(), failed.message() + " (its output: " + std::string(kCommandLogFile) + ")",
                         {log_path.string()}, failed.kind());
  }

  // NVTX ranges left open or popped without a push: not errors (a program may exit
  // inside an outer range), but a decode step left open is a token fewer, so the
  // progress says so and meta.json keeps it.
  static std::vector<std::string> NvtxWarnings(const internal::TrialTrace& trace) {
    std::vector<std::string> out;
    for (const internal::TracedProcess& p : trace.processes) {
      const json unclosed = internal::FieldOf(p.tracer, "unclosed_nvtx_ranges");
      const json unmatched = internal::FieldOf(internal::FieldOf(p.tracer, "other_records"), "nvtx_pop_without_push");
      if (unclosed.is_number_integer() && unclosed.get<int64_t>() > 0) {
        out.push_back("process " + std::to_string(p.pid) + " exited with " + unclosed.dump() +
                      " NVTX range(s) open (not in the trace; a decode step left open is a token fewer)");
      }
      if (unmatched.is_number_integer() && unmatched.get<int64_t>() > 0) {
        out.push_back("process " + std::to_string(p.pid) + " popped " + unmatched.dump() + " NVTX range(s) it never pushed");
      }
    }
    return out;
  }

  static void AddTraceFacts(const internal::TrialTrace& trace, json* meta) {
    (*meta)["warnings"] = NvtxWarnings(trace);
    json gpus = json::array();
    for (const json& d : trace.devices) gpus.push_back(GpuJson(d));
    json summaries = json::array();
    json traced = json::array();
    for (const internal::TracedProcess& p : trace.processes) {
      summaries.push_back(p.tracer);
      traced.push_back(p.pid);
    }
    (*meta)["trace"] = kTraceFile;
    (*meta)["gpu"] = gpus.empty() ? json() : gpus.front();
    (*meta)["gpus"] = gpus;
    (*meta)["cuda"] = trace.versions;
    (*meta)["tracer_summary"] = summaries;
    (*meta)["traced_pids"] = traced;
    (*meta)["trace_pids"] = trace.trace_pids;
    (*meta)["merged"] = trace.trace_pids.size() > 1;
    (*meta)["kernels"] = trace.kernels;
  }

  TracerLocation tracer_;
};

}  // namespace

StatusOr<xctrace::RecordingResult> RecordInterleaved(const std::vector<EngineRecordSpec>& engines,
                                                     const RecordOptions& options, const std::string& out_dir) {
  PERFGATE_RETURN_IF_ERROR(xctrace::internal::ValidateCall(engines, options, out_dir));
  PERFGATE_RETURN_IF_ERROR(ValidateCudaOptions(options));
  PERFGATE_ASSIGN_OR_RETURN(TracerLocation tracer, LocateTracer(options.tracer_path));
  const CudaBackend backend(std::move(tracer));
  return xctrace::internal::RecordTrials(engines, options, out_dir, backend);
}

}  // namespace perfgate::cuda
