// Classification of XLA's trace-event dialect (see xla_dialect.h and FORMAT.md).
#include "xla_dialect.h"
#include "string_util.h"
#include "sources/cuda_launch_kind.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace perfgate::json_trace::detail {
namespace {


// Leading decimal digits of `s` from `at` (at most 18), else nullopt.
std::optional<int64_t> DigitsAt(const std::string& s, size_t at) {
  size_t end = at;
  while (end < s.size() && end - at < 18 && s[end] >= '0' && s[end] <= '9') ++end;
  if (end == at) return std::nullopt;
  return std::stoll(s.substr(at, end - at));
}

// An XLA process, from its process_name.
struct XlaProcess {
  enum class Kind { kOther, kDevice, kHost } kind = Kind::kOther;
  bool gpu = false;    // "/device:GPU:K"
  int64_t device = 0;  // K
};

XlaProcess ProcessOf(const std::string& name) {
  XlaProcess p;
  if (StartsWith(name, "/host:")) {
    p.kind = XlaProcess::Kind::kHost;
  } else if (StartsWith(name, "/device:")) {
    p.kind = XlaProcess::Kind::kDevice;
    constexpr std::string_view kGpu = "/device:GPU:";
    if (StartsWith(name, kGpu)) {
      const std::optional<int64_t> k = DigitsAt(name, kGpu.size());
      p.gpu = k.has_value();
      p.device = k.value_or(0);
    }
  }
  return p;
}

model::WorkKind WorkKindOf(const std::string& name) {
  if (StartsWith(name, "Memcpy")) return model::WorkKind::kMemcpy;  // MemcpyD2D, MemcpyH2D, MemcpyD2H, MemcpyP2P
  if (StartsWith(name, "Memset")) return model::WorkKind::kMemset;
  return model::WorkKind::kKernel;
}

// Builds the module ranges: one per (pid, tid, scope_range_id), spanning its work.
class ModuleRanges {
 public:
  ModuleRanges(const std::vector<std::string>& modules, model::WorkSet* out) : modules_(modules), out_(out) {}
  void Add(const model::WorkItem& w, const XlaEvent& e) {
    if (e.hlo_module < 0 || !e.has_scope_range_id) return;
    auto [it, inserted] = index_.emplace(std::make_tuple(w.pid, w.tid, e.scope_range_id), ranges_.size());
    if (inserted) {
      model::Span a;
      a.name = modules_[static_cast<size_t>(e.hlo_module)];
      a.start_ns = w.start_ns;
      a.end_ns = w.end_ns;
      a.pid = w.pid;
      a.tid = w.tid;
      a.external_id = e.scope_range_id;
      ranges_.push_back(std::move(a));
      return;
    }
    model::Span& a = ranges_[it->second];
    a.start_ns = std::min(a.start_ns, w.start_ns);
    a.end_ns = std::max(a.end_ns, w.end_ns);
  }
  void Finish() {
    for (model::Span& a : ranges_) out_->gpu_spans.push_back(std::move(a));
  }

 private:
  const std::vector<std::string>& modules_;
  model::WorkSet* out_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> index_;
  std::vector<model::Span> ranges_;
};

std::string LineName(const model::WorkSet& out, const XlaEvent& e) {
  auto t = out.thread_names.find({e.pid, e.tid});
  auto p = out.process_names.find(e.pid);
  return "\"" + (t == out.thread_names.end() ? "tid " + std::to_string(e.tid) : t->second) + "\" of \"" +
         (p == out.process_names.end() ? std::string() : p->second) + "\"";
}

// A model::WorkItem, model::HostCall or model::Span of the event: its name (moved), span, pid and tid.
template <typename Row>
Row RowOf(XlaEvent& e) {
  Row row;
  row.name = std::move(e.name);
  row.start_ns = e.start_ns;
  row.end_ns = e.end_ns;
  row.pid = e.pid;
  row.tid = e.tid;
  return row;
}

// The lines XLA's profiler derives from a device's stream lines (xprof's
// xplane_schema line names: kStepLineName, kXlaModuleLineName, kXlaOpLineName, ...,
// with the TensorFlow names of older releases): their events repeat the kernels' time.
bool IsDerivedLine(std::string_view name) {
  static constexpr std::string_view kDerived[] = {
      "Steps",           "XLA Modules",          "XLA Ops",           "Async XLA Ops",
      "XLA TraceMe",     "Framework Ops",        "Framework Name Scope", "TensorFlow Ops",
      "TensorFlow Name Scope", "Launch Stats",   "Source code",       "Host Offload Ops",
      "_counters_",      "Sparse Core Steps",    "Sparse Core Modules", "Sparse Core Ops",
      "Sparse Core Syncs", "Tensor Core Sync Flag",
  };
  return std::find(std::begin(kDerived), std::end(kDerived), name) != std::end(kDerived);
}

// A device event: GPU work on a stream line, skipped on a derived line or a device
// that is no GPU; on any other line of a GPU it is json.bad_event, since it may be
// GPU work whose stream is unknown (see FORMAT.md).
bool ClassifyDeviceEvent(XlaEvent& e, const XlaProcess& process, const XlaEvents& all, XlaSink* sink,
                         ModuleRanges* modules, model::WorkSet* out) {
  auto t = out->thread_names.find({e.pid, e.tid});
  const bool named = t != out->thread_names.end();
  const std::optional<int64_t> stream = named ? XlaStreamOf(t->second) : std::nullopt;
  if (!process.gpu || (named && !stream && IsDerivedLine(t->second))) {
    sink->Kind("X/xla:other_line");
    sink->Count(XlaSink::Note::kOtherLine, e.offset, LineName(*out, e) + " (\"" + e.name + "\")");
    return true;
  }
  if (!stream) {
    const std::string why = named ? "" : " (no thread_name)";
    return sink->Bad({true, e.offset,
                      "\"" + e.name + "\" is on " + LineName(*out, e) + why +
                          ", neither a stream (\"Stream #N...\") nor a line derived from them (XLA Ops, XLA "
                          "Modules, Steps, ...): its GPU work cannot be placed"});
  }
  if (e.correlation_problem >= 0) return sink->Bad(all.problems[static_cast<size_t>(e.correlation_problem)]);
  if (e.module_problem >= 0) return sink->Bad(all.problems[static_cast<size_t>(e.module_problem)]);
  sink->Kind("X/xla:stream");
  model::WorkItem w = RowOf<model::WorkItem>(e);
  w.kind = WorkKindOf(w.name);
  w.device = process.device;
  w.stream = *stream;
  if (e.has_correlation_id) w.correlation = e.correlation_id;
  if (!w.correlation) sink->Count(XlaSink::Note::kMissingCorrelation, e.offset, "X/xla:stream \"" + w.name + "\"");
  modules->Add(w, e);
  out->items.push_back(std::move(w));
  return true;
}

// A host event: a launch call when it has a correlation id, a python-tracer range
// (skipped), else a host range.
bool ClassifyHostEvent(XlaEvent& e, const XlaEvents& all, XlaSink* sink, model::WorkSet* out) {
  if (!e.name.empty() && e.name[0] == '$') {
    sink->Kind("X/xla:python");
    sink->Count(XlaSink::Note::kPythonTracer, e.offset, "X/xla:python \"" + e.name + "\"");
    return true;
  }
  if (e.correlation_problem >= 0) return sink->Bad(all.problems[static_cast<size_t>(e.correlation_problem)]);
  if (e.has_correlation_id) {
    sink->Kind("X/xla:host_call");
    model::HostCall r = RowOf<model::HostCall>(e);
    r.correlation = e.correlation_id;
    r.driver = true;  // CUPTI's driver-API callbacks (cuGraphLaunch, cuLaunchKernel, memcpy)
    r.kind = sources::CudaHostCallKind(r.name);
    out->host_calls.push_back(std::move(r));
    return true;
  }
  sink->Kind("X/xla:host_range");
  out->host_spans.push_back(RowOf<model::Span>(e));
  return true;
}

// XLA names the host event of a kernel launch (CUPTI's cuLaunchKernel callback) after
// the kernel's symbol; such a call, named as the kernel of its correlation id, becomes
// "cuLaunchKernel (<kernel>)", a kernel launch (model::HostCallKind), as
// "cuGraphLaunch (CudaGraph:5)" is a graph launch.
void NameKernelLaunches(size_t first_call, model::WorkSet* out) {
  std::unordered_map<int64_t, const std::string*> kernel_of;
  for (const model::WorkItem& w : out->items) {
    if (w.kind == model::WorkKind::kKernel && w.correlation) kernel_of.emplace(*w.correlation, &w.name);
  }
  for (size_t i = first_call; i < out->host_calls.size(); ++i) {
    model::HostCall& r = out->host_calls[i];
    auto it = r.correlation ? kernel_of.find(*r.correlation) : kernel_of.end();
    if (it == kernel_of.end() || *it->second != r.name) continue;
    r.name = "cuLaunchKernel (" + r.name + ")";
    r.kind = model::HostCallKind::kKernelLaunch;
  }
}

}  // namespace

std::optional<int64_t> XlaStreamOf(const std::string& thread_name) {
  constexpr std::string_view kStream = "Stream #";
  if (!StartsWith(thread_name, kStream)) return std::nullopt;
  return DigitsAt(thread_name, kStream.size());
}

int32_t XlaEvents::ModuleIndex(const std::string& name) {
  auto [it, inserted] = module_index_.emplace(name, static_cast<int32_t>(modules.size()));
  if (inserted) modules.push_back(name);
  return it->second;
}

int32_t XlaEvents::AddProblem(XlaArgProblem problem) {
  problems.push_back(std::move(problem));
  return static_cast<int32_t>(problems.size() - 1);
}

bool ClassifyXlaEvents(XlaEvents* all, XlaSink* sink, model::WorkSet* out) {
  std::map<int64_t, XlaProcess> processes;
  for (const auto& [pid, name] : out->process_names) processes[pid] = ProcessOf(name);
  ModuleRanges modules(all->modules, out);
  const size_t first_call = out->host_calls.size();
  for (XlaEvent& e : all->events) {
    auto p = processes.find(e.pid);
    const XlaProcess process = p == processes.end() ? XlaProcess{} : p->second;
    bool go_on = true;
    switch (process.kind) {
      case XlaProcess::Kind::kOther:
        sink->Kind("X/");
        sink->Count(XlaSink::Note::kNotXla, e.offset, "X/");
        break;
      case XlaProcess::Kind::kDevice: go_on = ClassifyDeviceEvent(e, process, *all, sink, &modules, out); break;
      case XlaProcess::Kind::kHost: go_on = ClassifyHostEvent(e, *all, sink, out); break;
    }
    if (!go_on) return false;
  }
  modules.Finish();
  NameKernelLaunches(first_call, out);
  all->events.clear();
  all->events.shrink_to_fit();
  return true;
}

}  // namespace perfgate::json_trace::detail
