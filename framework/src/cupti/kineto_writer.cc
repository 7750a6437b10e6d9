// The tracer's trace writer: see kineto_writer.h.
#include "cupti/kineto_writer.h"

#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <set>
#include <unordered_set>
#include <utility>

namespace perfgate::cupti {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not a valid one.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (n == 2 && c < 0xC2) return 0;                                 // overlong
  if (n == 3 && c == 0xE0 && byte(i + 1) < 0xA0) return 0;          // overlong
  if (n == 3 && c == 0xED && byte(i + 1) >= 0xA0) return 0;         // surrogate
  if (n == 4 && (c > 0xF4 || (c == 0xF0 && byte(i + 1) < 0x90) || (c == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

void AppendEscaped(char c, std::string* out) {
  switch (c) {
    case '"': *out += "\\\""; return;
    case '\\': *out += "\\\\"; return;
    case '\n': *out += "\\n"; return;
    case '\r': *out += "\\r"; return;
    case '\t': *out += "\\t"; return;
    default: break;
  }
  if (static_cast<unsigned char>(c) < 0x20) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    *out += buf;
  } else {
    *out += c;
  }
}

std::string Dur(uint64_t start, uint64_t end) { return MicrosecondsText(end >= start ? end - start : 0); }

// Writes events one per line, with the separators between them.
class EventLines {
 public:
  explicit EventLines(std::ostream& out) : out_(out) {}
  void Add(const std::string& event) {
    out_ << (first_ ? "\n  " : ",\n  ") << event;
    first_ = false;
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

std::string Complete(std::string_view cat, const std::string& name, uint64_t pid, uint64_t tid, uint64_t start,
                     uint64_t end, const std::string& args) {
  return "{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": " + name + ", \"pid\": " +
         std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + MicrosecondsText(start) +
         ", \"dur\": " + Dur(start, end) + ", \"args\": {" + args + "}}";
}

std::string Metadata(std::string_view what, uint64_t pid, const uint64_t* tid, const std::string& name) {
  std::string e = "{\"ph\": \"M\", \"name\": \"" + std::string(what) + "\", \"pid\": " + std::to_string(pid);
  if (tid != nullptr) e += ", \"tid\": " + std::to_string(*tid);
  return e + ", \"ts\": 0, \"args\": {\"name\": " + name + "}}";
}

// Names are escaped once each and counted when they held invalid UTF-8.
class Names {
 public:
  std::string operator()(std::string_view text) {
    bool replaced = false;
    std::string s = JsonString(text, &replaced);
    invalid_ += replaced;
    return s;
  }
  uint64_t invalid() const { return invalid_; }

 private:
  uint64_t invalid_ = 0;
};

void WriteMetadataEvents(const ProcessCapture& c, Names& name, EventLines& lines) {
  lines.Add(Metadata("process_name", c.pid, nullptr, name(c.process_name)));
  std::set<uint32_t> devices;
  std::set<std::pair<uint32_t, uint32_t>> streams;
  for (const KernelRecord& k : c.kernels) streams.insert({k.device, k.stream});
  for (const CopyRecord& k : c.copies) streams.insert({k.device, k.stream});
  for (const DeviceRecord& d : c.devices) devices.insert(d.id);
  for (const auto& s : streams) devices.insert(s.first);
  for (uint32_t d : devices) lines.Add(Metadata("process_name", d, nullptr, name("GPU " + std::to_string(d))));
  for (const auto& [device, stream] : streams) {
    const uint64_t tid = stream;
    lines.Add(Metadata("thread_name", device, &tid, name("stream " + std::to_string(stream))));
  }
  for (const auto& [tid, text] : c.thread_names) {
    const uint64_t t = tid;
    lines.Add(Metadata("thread_name", c.pid, &t, name(text)));
  }
}

// Calls per summarized API name, and their host time.
struct ApiSummary {
  uint64_t calls = 0;
  uint64_t ns = 0;
};
using ApiSummaries = std::map<std::string, ApiSummary>;

std::unordered_set<uint32_t> GpuCorrelations(const ProcessCapture& c) {
  std::unordered_set<uint32_t> out;
  for (const KernelRecord& k : c.kernels) out.insert(k.correlation);
  for (const CopyRecord& m : c.copies) out.insert(m.correlation);
  return out;
}

void WriteHostEvents(const ProcessCapture& c, const WriteOptions& options, Names& name, EventLines& lines,
                     ApiSummaries* summarized) {
  const std::unordered_set<uint32_t> launched = GpuCorrelations(c);
  for (const ApiRecord& a : c.api_calls) {
    if (!options.all_api_calls && IsSummarizedApiCall(a.name) && launched.count(a.correlation) == 0) {
      ApiSummary& sum = (*summarized)[a.name];
      ++sum.calls;
      sum.ns += a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0;
      continue;
    }
    std::string args = "\"cbid\": " + std::to_string(a.cbid) + ", \"correlation\": " + std::to_string(a.correlation) +
                       ", \"return\": " + std::to_string(a.return_value);
    if (!a.cupti_name.empty()) args += ", \"cupti_name\": " + name(a.cupti_name);
    lines.Add(Complete(a.driver ? "cuda_driver" : "cuda_runtime", name(a.name), a.pid, a.tid, a.start_ns, a.end_ns,
                       args));
  }
  for (const RangeRecord& r : c.ranges) {
    std::string args = "\"source\": \"nvtx\", \"nvtx\": \"" + std::string(r.start_end ? "start_end" : "push_pop") +
                       "\", \"depth\": " + std::to_string(r.depth);
    if (!r.domain.empty()) args += ", \"domain\": " + name(r.domain);
    lines.Add(Complete("user_annotation", name(r.name), r.pid, r.tid, r.start_ns, r.end_ns, args));
  }
  for (const MarkRecord& m : c.marks) {
    std::string e = "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"user_annotation\", \"name\": " + name(m.name) +
                    ", \"pid\": " + std::to_string(m.pid) + ", \"tid\": " + std::to_string(m.tid) +
                    ", \"ts\": " + MicrosecondsText(m.ts_ns) + ", \"args\": {\"source\": \"nvtx\"";
    if (!m.domain.empty()) e += ", \"domain\": " + name(m.domain);
    lines.Add(e + "}}");
  }
}

std::string Triple(const int32_t v[3]) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

std::string StreamArgs(uint32_t device, uint32_t context, uint32_t stream, uint32_t correlation) {
  return "\"device\": " + std::to_string(device) + ", \"context\": " + std::to_string(context) +
         ", \"stream\": " + std::to_string(stream) + ", \"correlation\": " + std::to_string(correlation);
}

void WriteGpuEvents(const ProcessCapture& c, Names& name, EventLines& lines) {
  for (const KernelRecord& k : c.kernels) {
    std::string args = StreamArgs(k.device, k.context, k.stream, k.correlation) +
                       ", \"registers per thread\": " + std::to_string(k.registers_per_thread) +
                       ", \"shared memory\": " + std::to_string(k.shared_memory) + ", \"grid\": " + Triple(k.grid) +
                       ", \"block\": " + Triple(k.block);
    if (k.graph_id != 0) {
      args += ", \"graph id\": " + std::to_string(k.graph_id) + ", \"graph node id\": " + std::to_string(k.graph_node_id);
    }
    lines.Add(Complete("kernel", name(k.name), k.device, k.stream, k.start_ns, k.end_ns, args));
  }
  for (const CopyRecord& m : c.copies) {
    std::string args = StreamArgs(m.device, m.context, m.stream, m.correlation) + ", \"bytes\": " + std::to_string(m.bytes);
    if (m.graph_id != 0) args += ", \"graph id\": " + std::to_string(m.graph_id);
    lines.Add(Complete(m.memset ? "gpu_memset" : "gpu_memcpy", name(m.name), m.device, m.stream, m.start_ns, m.end_ns,
                       args));
  }
  for (const OverheadRecord& o : c.overheads) {
    lines.Add(Complete("overhead", name(o.name), o.pid, o.tid, o.start_ns, o.end_ns,
                       std::string("\"object\": \"") + (o.on_device ? "device" : "thread") + "\""));
  }
}

std::string DeviceProperties(const ProcessCapture& c, Names& name) {
  std::string out = "[";
  for (size_t i = 0; i < c.devices.size(); ++i) {
    const DeviceRecord& d = c.devices[i];
    out += std::string(i ? ", " : "") + "{\"id\": " + std::to_string(d.id) + ", \"name\": " + name(d.name) +
           ", \"computeMajor\": " + std::to_string(d.compute_major) + ", \"computeMinor\": " +
           std::to_string(d.compute_minor) + ", \"numSms\": " + std::to_string(d.multiprocessors) +
           ", \"totalGlobalMem\": " + std::to_string(d.global_memory_bytes) + ", \"memoryBandwidthKBps\": " +
           std::to_string(d.memory_bandwidth_kbps) + ", \"coreClockKHz\": " + std::to_string(d.core_clock_khz) +
           ", \"l2CacheSize\": " + std::to_string(d.l2_cache_bytes) + ", \"maxThreadsPerBlock\": " +
           std::to_string(d.max_threads_per_block) + ", \"warpSize\": " + std::to_string(d.warp_size) + "}";
  }
  return out + "]";
}

std::string StringArray(const std::vector<std::string>& items, Names& name) {
  std::string out = "[";
  for (const std::string& item : items) out += std::string(out.size() > 1 ? ", " : "") + name(item);
  return out + "]";
}

std::string CountsObject(const std::map<std::string, uint64_t>& counts, Names& name) {
  std::string out = "{";
  for (const auto& [key, n] : counts) out += std::string(out.size() > 1 ? ", " : "") + name(key) + ": " + std::to_string(n);
  return out + "}";
}

// Records without a whole time span (a start of 0, or an end before the start): what a
// forced flush can deliver for work still running. They fail the trial.
template <typename T>
uint64_t Untimed(const std::vector<T>& records) {
  uint64_t n = 0;
  for (const T& r : records) n += r.start_ns == 0 || r.end_ns < r.start_ns;
  return n;
}

uint64_t UntimedRecords(const ProcessCapture& c) {
  return Untimed(c.kernels) + Untimed(c.copies) + Untimed(c.api_calls) + Untimed(c.ranges) + Untimed(c.overheads);
}

uint64_t OverheadNs(const ProcessCapture& c) {
  uint64_t total = 0;
  for (const OverheadRecord& o : c.overheads) total += o.end_ns >= o.start_ns ? o.end_ns - o.start_ns : 0;
  return total;
}

std::string SummariesObject(const ApiSummaries& summaries, Names& name) {
  std::string out = "{";
  for (const auto& [api, sum] : summaries) {
    out += std::string(out.size() > 1 ? ", " : "") + name(api) + ": {\"calls\": " + std::to_string(sum.calls) +
           ", \"ns\": " + std::to_string(sum.ns) + "}";
  }
  return out + "}";
}

// perfgate_tracer: what the tracer saw, written after the events so that its
// invalid-UTF-8 count covers every name.
std::string TracerSummary(const ProcessCapture& c, const ApiSummaries& summarized, Names& name) {
  uint64_t runtime = 0, driver = 0;
  for (const ApiRecord& a : c.api_calls) (a.driver ? driver : runtime) += 1;
  uint64_t memsets = 0;
  for (const CopyRecord& m : c.copies) memsets += m.memset;
  const std::map<std::string, uint64_t> records = {
      {"kernel", c.kernels.size()},       {"memcpy", c.copies.size() - memsets}, {"memset", memsets},
      {"runtime", runtime},               {"driver", driver},                    {"nvtx_range", c.ranges.size()},
      {"nvtx_mark", c.marks.size()},      {"overhead", c.overheads.size()},      {"device", c.devices.size()}};
  std::string out = "{\"format_version\": " + std::to_string(kTracerFormatVersion) +
                    ", \"pid\": " + std::to_string(c.pid) + ", \"process_name\": " + name(c.process_name) +
                    ", \"command_line\": " + name(c.command_line) +
                    ", \"cuda_initialized\": " + (c.cuda_initialized ? "true" : "false") +
                    ", \"tracing\": " + (c.tracing ? "true" : "false") + ", \"errors\": " + StringArray(c.errors, name) +
                    ", \"records\": " + CountsObject(records, name) +
                    ", \"other_records\": " + CountsObject(c.other_records, name) +
                    ", \"dropped_records\": " + std::to_string(c.dropped_records) +
                    ", \"overhead_ns\": " + std::to_string(OverheadNs(c)) +
                    ", \"unclosed_nvtx_ranges\": " + std::to_string(c.unclosed_ranges) +
                    ", \"flushes\": " + CountsObject(c.flushes, name) +
                    ", \"api_calls_summarized\": " + SummariesObject(summarized, name);
  return out + ", \"untimed_records\": " + std::to_string(UntimedRecords(c)) +
         ", \"invalid_utf8_names\": " + std::to_string(name.invalid()) + ", \"complete\": true}";
}

// null where the version is unknown (a statically linked runtime answers no query).
std::string VersionOrNull(int version) { return version > 0 ? std::to_string(version) : "null"; }

}  // namespace

bool IsSummarizedApiCall(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "cudaGetDevice", "cudaSetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaStreamIsCapturing",
      "cudaDeviceGetAttribute", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cuGetProcAddress",
      "cuDevicePrimaryCtxGetState", "cuDeviceGetAttribute", "cuCtxGetCurrent", "cuCtxGetDevice",
      "cuKernelGetName", "cuKernelGetAttribute", "cuGetErrorString", "cuGetErrorName", "cuDriverGetVersion",
      "cuDeviceGet", "cuDeviceGetCount", "cuStreamIsCapturing"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::string MicrosecondsText(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03u", ns / 1000, static_cast<unsigned>(ns % 1000));
  return buf;
}

std::string JsonString(std::string_view text, bool* replaced) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      if (replaced != nullptr) *replaced = true;
      ++i;
    } else if (n == 1) {
      AppendEscaped(text[i++], &out);
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out + "\"";
}

bool WriteKinetoTrace(const ProcessCapture& capture, std::ostream& out, const WriteOptions& options) {
  Names name;
  ApiSummaries summarized;
  out << "{\n\"schemaVersion\": 1,\n\"displayTimeUnit\": \"ms\",\n\"deviceProperties\": "
      << DeviceProperties(capture, name) << ",\n\"cupti_version\": " << capture.cupti_version
      << ",\n\"cuda_driver_version\": " << VersionOrNull(capture.cuda_driver_version)
      << ",\n\"cuda_runtime_version\": " << VersionOrNull(capture.cuda_runtime_version) << ",\n\"traceEvents\": [";
  EventLines lines(out);
  WriteMetadataEvents(capture, name, lines);
  WriteHostEvents(capture, options, name, lines, &summarized);
  WriteGpuEvents(capture, name, lines);
  out << "\n],\n\"perfgate_tracer\": " << TracerSummary(capture, summarized, name) << "\n}\n";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace perfgate::cupti
