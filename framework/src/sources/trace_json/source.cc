// The trace-event JSON source: PyTorch profiler / Kineto, JAX / XLA and Perfetto
// traces, gzip-compressed or not. Its kernels are attributed as model::WorkSet work.
#include <string>

#include "perfgate/attribution/options.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/sources/source.h"

namespace perfgate::sources {
namespace {

bool SniffTraceJson(const std::string& path) { return json_trace::LooksLikeTraceJson(path); }

StatusOr<attribution::TrialSummary> SummarizeTraceJson(const std::string& path,
                                                       const attribution::AttributionOptions& options) {
  json_trace::ReadOptions read;
  read.mode = options.lenient ? json_trace::ReadMode::kLenient : json_trace::ReadMode::kStrict;
  auto s = json_trace::SummarizeJsonTrialFile(path, options, nullptr, read);
  if (s.ok()) s->source = "trace_json";
  return s;
}

// Kernel words; the method note says where phases and tokens come from here.
SourceWords TraceJsonWords() {
  SourceWords w;
  w.unit = "kernel";
  w.units = "kernels";
  w.family = "kernel family";
  w.families = "Kernel families";
  w.per_token = "kern/tok";
  w.dispatch_note = "A dispatch is one GPU kernel event (memcpy and memset included).";
  w.phase = "annotation phase";
  w.phases = "Annotation phases";
  w.registry = "kernel list";
  w.unit_abbrev = "kern";
  w.instance = "range";
  w.labelled = "kernels";
  w.registry_title = "Kernel list (kernel names by family)";
  w.registry_names = "kernel names";
  w.distinct_names = "distinct kernels";
  w.kernel_names =
      "Kernel names as the trace writes them, shortened for display (template arguments and parameters cut); "
      "the JSON report keeps them whole.";
  w.source = "trace-event JSON";
  w.method_note =
      "Source: profiler trace-event JSON (PyTorch/Kineto, JAX/XLA, Perfetto). Each GPU kernel event is one "
      "dispatch (\"kern\" columns count kernels); memcpy and memset are families of their own. Phases are the "
      "innermost GPU annotation around a kernel (else the host annotation around its launch); families come "
      "from kernel names; tokens are instances of the per-token annotation.";
  w.unit_definition = "one GPU kernel event (memcpy and memset included)";
  w.figures_note =
      "Figures are per decode token, medians over trials. \"summed\" adds kernel durations; \"busy\" is their "
      "union. Δ = engine - baseline; Δ% is n/a when the baseline is 0; p is a two-sided Mann-Whitney U "
      "test over the per-trial values.";
  w.families_banner = "Per-kernel-family GPU time";
  w.families_note =
      "Families come from kernel names through the kernel-family registry (gemm, attention, elementwise, ...); "
      "memcpy and memset are families of their own. kern = kernels.";
  w.phases_banner = "Per-annotation-phase GPU time (innermost annotation around each kernel)";
  w.phases_note =
      "ranges = instances of the annotation (a user_annotation or gpu_user_annotation range, as "
      "record_function writes them). Kernels outside every annotation appear under \"(unknown)\".";
  w.generic_phases = "kernels outside every annotation";
  w.registry_note =
      "Kernel names (template arguments cut) per kernel family, distinct, unioned over trials; the family table "
      "above holds their time.";
  return w;
}

}  // namespace

// Trace-event JSON words, which the nsys source starts from.
SourceWords KernelTraceWords() { return TraceJsonWords(); }

const TraceSource& TraceJsonSource() {
  // The host process is usually python3, not the engine: every process is kept by default.
  static const TraceSource kSource{
      {"trace_json", Unit::kKernel, TraceJsonWords(), "trace-event JSON (PyTorch profiler / Kineto, Perfetto)", true},
      SniffTraceJson, SummarizeTraceJson};
  return kSource;
}

}  // namespace perfgate::sources
