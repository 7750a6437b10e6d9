// The tracer's output of one trial (TRACER.md: cupti-<pid>.log, .json.partial, .json),
// checked so that a damaged or short trace never looks whole, and made into the trial's
// trace.json.gz.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>

#include "core/text_input.h"
#include "cuda/recorder_internal.h"
#include "core/json_document.h"
#include "perfgate/cuda/recorder.h"
#include "perfgate/json_trace/reader.h"

namespace perfgate::cuda::internal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Correlation ids are per process; in a merged trace, process k's are moved up by k
// times this so that a kernel still joins only its own launch call.
constexpr int64_t kCorrelationStride = int64_t{1} << 40;

// What the tracer left for one pid.
struct TracerFiles {
  bool log = false;
  bool json = false;
  bool partial = false;
};

Status Error(const std::string& code, const std::string& message, const std::string& where) {
  return Status::Error(code, message, {where}, ErrorKind::kEnvironment);
}

// The pid of "cupti-<pid><suffix>", or nullopt for another name.
std::optional<int64_t> PidOf(const std::string& name, const std::string& suffix) {
  const std::string prefix = "cupti-";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0) return std::nullopt;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(digits);
}

StatusOr<std::map<int64_t, TracerFiles>> ScanTracerDir(const fs::path& dir) {
  std::map<int64_t, TracerFiles> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (auto pid = PidOf(name, ".log")) files[*pid].log = true;
    if (auto pid = PidOf(name, ".json")) files[*pid].json = true;
    if (auto pid = PidOf(name, ".json.partial")) files[*pid].partial = true;
  }
  if (ec) return Error("io.read_failed", "cannot list the tracer's output: " + ec.message(), dir.string());
  return files;
}

// A process that began tracing and did not finish: it crashed or was killed.
Status CheckEveryProcessFinished(const std::map<int64_t, TracerFiles>& files, const fs::path& dir) {
  std::string unfinished;
  for (const auto& [pid, f] : files) {
    if (!f.partial && (f.json || !f.log)) continue;
    unfinished += (unfinished.empty() ? "" : ", ") + std::to_string(pid) +
                  (f.partial ? " (cupti-" + std::to_string(pid) + ".json.partial)" : " (a log, no trace)");
  }
  if (unfinished.empty()) return Status();
  return Error("record.tracer_incomplete",
               "process " + unfinished +
                   " began tracing but its trace was never finished: the process crashed or was killed before "
                   "the tracer wrote its trace (see command.log and cupti/cupti-<pid>.log); record the trial again",
               dir.string());
}

// The perfgate_tracer object of a finished trace: complete, nothing dropped, CUPTI started.
StatusOr<json> CheckTracerSummary(const json& root, int64_t pid, const std::string& path) {
  auto it = root.find("perfgate_tracer");
  const bool complete = it != root.end() && it->is_object() && it->value("complete", json()) == json(true);
  if (!complete) {
    return Error("record.tracer_incomplete",
                 "the trace of process " + std::to_string(pid) +
                     " does not say perfgate_tracer.complete: true: the tracer did not finish it (a damaged file)",
                 path);
  }
  const json dropped = it->value("dropped_records", json(0));
  if (!dropped.is_number_integer() || dropped.get<int64_t>() != 0) {
    return Error("record.dropped_records",
                 "CUPTI lost " + dropped.dump() + " records of process " + std::to_string(pid) +
                     " (its activity buffers were full), so the trace is short; a short trace must never look "
                     "whole: record the trial again, with a shorter run if it recurs",
                 path);
  }
  const json errors = it->value("errors", json::array());
  const bool not_tracing =
      it->value("cuda_initialized", json()) == json(true) && it->value("tracing", json(true)) == json(false);
  if (not_tracing || (errors.is_array() && !errors.empty())) {
    return Error("record.tracer_failed",
                 std::string(not_tracing ? "the tracer could not start CUPTI in process "
                                         : "the tracer reported errors in process ") +
                     std::to_string(pid) + " (" + errors.dump(-1, ' ', false, json::error_handler_t::replace) +
                     "), so its GPU work may be missing; see cupti/cupti-" + std::to_string(pid) +
                     ".log (another CUPTI client in the process, such as the PyTorch profiler, is a common cause)",
                 path);
  }
  const json untimed = it->value("untimed_records", json(0));
  if (!untimed.is_number_integer() || untimed.get<int64_t>() != 0) {
    return Error("record.untimed_records",
                 "the tracer kept " + untimed.dump() + " records of process " + std::to_string(pid) +
                     " without a whole time span (work still running at exit?): their time would count as 0",
                 path);
  }
  return *it;
}

// One process's trace, parsed, with its GPU work counted.
struct ProcessTrace {
  TracedProcess process;
  std::string path;
  json root;
};

// The GPU work events of a parsed trace, by category. The trial's trace is then read
// back with the trace-event reader, which attribution uses, and its kernels must add up
// to these (MakeTrialTrace): one read of each trace by that reader, not two.
void CountGpuWork(const json& root, TracedProcess* process) {
  auto events = root.find("traceEvents");
  if (events == root.end() || !events->is_array()) return;
  // json() defaults: a damaged field is a value unlike "X" or "kernel", never an exception.
  for (const json& e : *events) {
    if (!e.is_object() || e.value("ph", json()) != json("X")) continue;
    const json cat = e.value("cat", json());
    process->kernels += cat == json("kernel");
    process->gpu_work += cat == json("kernel") || cat == json("gpu_memcpy") || cat == json("gpu_memset");
  }
}

// The tracer's own kernel count against the kernel events of its trace.
Status CheckKernelCount(const ProcessTrace& t) {
  const json counted = FieldOf(FieldOf(t.process.tracer, "records"), "kernel");
  if (!counted.is_number_integer() || counted.get<int64_t>() == t.process.kernels) return Status();
  return Error("record.bad_trace",
               "the tracer counted " + counted.dump() + " kernels of process " + std::to_string(t.process.pid) +
                   " but its trace holds " + std::to_string(t.process.kernels) + " kernel events",
               t.path);
}

// An error the tracer logged after writing its trace (records that arrived late).
Status CheckLogHasNoError(const fs::path& dir, int64_t pid) {
  const fs::path log = dir / ("cupti-" + std::to_string(pid) + ".log");
  auto text = ::perfgate::internal::ReadWholeFile(log.string());
  if (!text.ok()) return Status();  // an NVTX-only process writes no log
  for (size_t at = 0; at < text->size();) {
    const size_t end = std::min(text->find('\n', at), text->size());
    if (text->compare(at, 6, "error:") == 0) {
      return Error("record.tracer_failed", "the tracer logged: " + text->substr(at, end - at), log.string());
    }
    at = end + 1;
  }
  return Status();
}

StatusOr<ProcessTrace> ReadProcessTrace(const fs::path& dir, int64_t pid) {
  ProcessTrace t;
  t.process.pid = pid;
  t.path = (dir / ("cupti-" + std::to_string(pid) + ".json")).string();
  auto file = ::perfgate::internal::ReadJsonObjectFile(t.path, {"record.bad_trace", "record.bad_trace"});
  if (!file.ok())
    return Error("record.bad_trace", "the tracer's trace is not usable: " + file.status().ToString(), t.path);
  t.root = std::move(file->root);
  PERFGATE_ASSIGN_OR_RETURN(t.process.tracer, CheckTracerSummary(t.root, pid, t.path));
  CountGpuWork(t.root, &t.process);
  PERFGATE_RETURN_IF_ERROR(CheckKernelCount(t));
  PERFGATE_RETURN_IF_ERROR(CheckLogHasNoError(dir, pid));
  return t;
}

void OffsetCorrelations(json* events, int64_t offset) {
  for (json& e : *events) {
    if (!e.is_object()) continue;
    auto args = e.find("args");
    if (args == e.end() || !args->is_object()) continue;
    auto c = args->find("correlation");
    if (c != args->end() && c->is_number_integer()) *c = c->get<int64_t>() + offset;
  }
}

// The devices of the traces (deviceProperties), each id once.
json DevicesOf(const std::vector<ProcessTrace*>& traces) {
  json devices = json::array();
  for (const ProcessTrace* t : traces) {
    for (const json& d : t->root.value("deviceProperties", json::array())) {
      const json id = d.is_object() ? d.value("id", json()) : json();
      auto same = [&id](const json& have) { return have.is_object() && have.value("id", json()) == id; };
      if (std::none_of(devices.begin(), devices.end(), same)) devices.push_back(d);
    }
  }
  return devices;
}

// Several processes with GPU work: one trace, their events concatenated (correlation
// ids kept apart), the first's top-level keys, the devices of all, and every process's
// perfgate_tracer object under perfgate_merged.
json MergeTraces(const std::vector<ProcessTrace*>& traces) {
  json merged = traces.front()->root;
  json events = json::array();
  json pids = json::array();
  json tracers = json::array();
  for (size_t k = 0; k < traces.size(); ++k) {
    json own = traces[k]->root.value("traceEvents", json::array());
    if (k > 0) OffsetCorrelations(&own, static_cast<int64_t>(k) * kCorrelationStride);
    for (json& e : own) events.push_back(std::move(e));
    pids.push_back(traces[k]->process.pid);
    tracers.push_back(traces[k]->process.tracer);
  }
  merged["traceEvents"] = std::move(events);
  merged["deviceProperties"] = DevicesOf(traces);
  merged["perfgate_merged"] = {
      {"pids", pids}, {"perfgate_tracers", tracers}, {"correlation_stride", kCorrelationStride}};
  return merged;
}

// The trial's trace text: the one process's file as written, or the merge.
StatusOr<std::string> TraceText(const std::vector<ProcessTrace*>& with_work) {
  if (with_work.size() == 1) return ::perfgate::internal::ReadWholeFile(with_work.front()->path);
  return MergeTraces(with_work).dump(-1, ' ', false, json::error_handler_t::replace);
}

json VersionsOf(const json& root) {
  return {{"driver_version", root.value("cuda_driver_version", json())},
          {"runtime_version", root.value("cuda_runtime_version", json())},
          {"cupti_version", root.value("cupti_version", json())}};
}

// Writes trace.json.gz and counts its kernels again, as attribution will read it.
StatusOr<int64_t> WriteTrialTrace(const fs::path& trial, const std::string& text) {
  const std::string path = (trial / std::string(kTraceFile)).string();
  const std::string compressed = Gzip(text);
  if (compressed.empty())
    return Error("io.write_failed", "cannot gzip the trace (" + std::to_string(text.size()) + " bytes)", path);
  PERFGATE_RETURN_IF_ERROR(::perfgate::internal::WriteFileAtomic(path, compressed));
  auto read = json_trace::ReadTraceJsonFile(path);
  if (!read.ok())
    return Error("record.bad_trace", "the written trace is not readable: " + read.status().ToString(), path);
  int64_t kernels = 0;
  for (const model::WorkItem& w : read->items) kernels += w.kind == model::WorkKind::kKernel;
  return kernels;
}

StatusOr<std::vector<ProcessTrace>> ReadProcessTraces(const fs::path& dir,
                                                     const std::map<int64_t, TracerFiles>& files) {
  std::vector<ProcessTrace> traces;
  for (const auto& entry : files) {
    PERFGATE_ASSIGN_OR_RETURN(ProcessTrace t, ReadProcessTrace(dir, entry.first));
    traces.push_back(std::move(t));
  }
  return traces;
}

}  // namespace

json FieldOf(const json& object, const char* key) {
  if (!object.is_object()) return json();
  auto it = object.find(key);
  return it == object.end() ? json() : *it;
}

std::string Gzip(const std::string& data) {
  if (data.size() > UINT32_MAX / 2) return "";  // one deflate call; traces are far smaller
  z_stream zs{};
  // windowBits 15 + 16: a gzip wrapper whose header zlib writes with mtime 0.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : "";
}

StatusOr<TrialTrace> MakeTrialTrace(const std::string& trial_dir) {
  const fs::path trial(trial_dir);
  const fs::path dir = trial / std::string(kTracerOutputDir);
  PERFGATE_ASSIGN_OR_RETURN(const auto files, ScanTracerDir(dir));
  if (files.empty()) {
    return Error("record.no_trace",
                 "the command exited 0 but no CUDA process ran under the tracer, or the tracer was not loaded: "
                 "check that CMD uses the GPU and that CUDA_INJECTION64_PATH reaches it (cupti/ is empty)",
                 dir.string());
  }
  PERFGATE_RETURN_IF_ERROR(CheckEveryProcessFinished(files, dir));
  PERFGATE_ASSIGN_OR_RETURN(std::vector<ProcessTrace> traces, ReadProcessTraces(dir, files));
  TrialTrace out;
  std::vector<ProcessTrace*> with_work;
  int64_t kernels = 0;
  for (ProcessTrace& t : traces) {
    out.processes.push_back(t.process);
    kernels += t.process.kernels;
    if (t.process.gpu_work > 0) with_work.push_back(&t);
  }
  if (kernels == 0) {
    return Error("record.no_target_rows",
                 "the traces of " + std::to_string(traces.size()) +
                     " CUDA process(es) hold no kernel event: the command launched no kernel under the tracer, "
                     "so there is nothing to attribute",
                 dir.string());
  }
  for (const ProcessTrace* t : with_work) out.trace_pids.push_back(t->process.pid);
  out.devices = DevicesOf(with_work);
  out.versions = VersionsOf(with_work.front()->root);
  PERFGATE_ASSIGN_OR_RETURN(const std::string text, TraceText(with_work));
  PERFGATE_ASSIGN_OR_RETURN(out.kernels, WriteTrialTrace(trial, text));
  if (out.kernels != kernels) {
    return Error("record.bad_trace",
                 "trace.json.gz holds " + std::to_string(out.kernels) +
                     " kernel events where the tracer's traces hold " + std::to_string(kernels) +
                     "; the raw traces are kept in cupti/",
                 (trial / std::string(kTraceFile)).string());
  }
  std::error_code ec;
  for (const ProcessTrace& t : traces) fs::remove(t.path, ec);
  return out;
}

}  // namespace perfgate::cuda::internal
