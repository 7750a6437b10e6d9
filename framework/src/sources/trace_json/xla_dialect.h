// XLA's trace-event dialect (what `jax.profiler.trace(..., create_perfetto_trace=True)`
// and TensorBoard's trace viewer write): events carry no `cat`; a process named
// "/device:GPU:K" is a device, its threads named "Stream #N(...)" are its streams, and
// "/host:CPU" holds the host threads. Whether an event is GPU work, a launch call or a
// host range is known only once every process and thread name is read, and those may
// come after the events, so the SAX pass buffers the complete events without `cat`
// and this step classifies them at the end. The rules are in FORMAT.md.
#ifndef PERFGATE_SRC_JSON_TRACE_XLA_DIALECT_H_
#define PERFGATE_SRC_JSON_TRACE_XLA_DIALECT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/json_trace/reader.h"

namespace perfgate::json_trace::detail {

// A malformed arg, kept until the event's kind (for XLA's events, its line) tells
// whether it is used. The SAX pass keeps its own args' problems in it too; an XLA
// arg's `problem` already names the event.
struct XlaArgProblem {
  bool set = false;
  size_t offset = 0;
  std::string problem;
};

// A complete event without `cat`, as the SAX pass read it. Kept small (a trace is
// mostly such events): rare problems and the few module names live in XlaEvents.
struct XlaEvent {
  size_t offset = 0;  // its '{'
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t correlation_id = 0;  // args.correlation_id (a decimal string), when has_correlation_id
  int64_t scope_range_id = 0;  // args.scope_range_id: one per module execution, when has_scope_range_id
  int32_t hlo_module = -1;     // args.hlo_module ("jit_decode_step"): an index into XlaEvents::modules
  int32_t correlation_problem = -1;  // an index into XlaEvents::problems: used by stream work and host calls
  int32_t module_problem = -1;       // scope_range_id or hlo_module: used by stream work
  bool has_correlation_id = false;
  bool has_scope_range_id = false;
};

// The buffered events, their distinct module names and their malformed args.
struct XlaEvents {
  std::vector<XlaEvent> events;
  std::vector<std::string> modules;
  std::vector<XlaArgProblem> problems;

  int32_t ModuleIndex(const std::string& name);
  int32_t AddProblem(XlaArgProblem problem);

 private:
  std::map<std::string, int32_t> module_index_;
};

// What classification reports back to the reader, which owns the tallies and the mode.
class XlaSink {
 public:
  enum class Note {
    kNotXla,              // no XLA process: an event of unknown category, as before
    kOtherLine,           // on a derived line (XLA Ops, Steps, ...) or a non-GPU device: json.xla_derived_line
    kPythonTracer,        // a python-tracer `$...` range: json.skipped_event
    kMissingCorrelation,  // stream work without args.correlation_id
  };
  virtual ~XlaSink() = default;
  virtual void Count(Note note, size_t offset, const std::string& detail) = 0;
  // A used field is malformed: false stops the read (strict), true drops the event.
  virtual bool Bad(const XlaArgProblem& problem) = 0;
  virtual void Kind(const char* kind) = 0;  // one event of model::WorkSet::event_kinds
};

// Classifies `events` (in file order) into `out`'s GPU work, runtime calls and host
// annotations, and synthesises one gpu_user_annotation per module execution on each
// stream. False when the sink stopped the read.
bool ClassifyXlaEvents(XlaEvents* events, XlaSink* sink, model::WorkSet* out);

// The stream of a thread named "Stream #N..." (N decimal), else nullopt.
std::optional<int64_t> XlaStreamOf(const std::string& thread_name);

}  // namespace perfgate::json_trace::detail

#endif  // PERFGATE_SRC_JSON_TRACE_XLA_DIALECT_H_
