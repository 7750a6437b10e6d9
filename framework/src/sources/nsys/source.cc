// The Nsight Systems source: SQLite exports (`nsys export --type sqlite`). Its
// kernels are attributed as model::WorkSet work.
#include <filesystem>
#include <string>

#include "perfgate/nsys/reader.h"
#include "perfgate/sources/source.h"
#include "sources/unsupported_option.h"

namespace perfgate::sources {

SourceWords KernelTraceWords();  // sources/trace_json/source.cc

namespace {

namespace fs = std::filesystem;

// An nsys trial: an SQLite file holding META_DATA_EXPORT.
bool SniffNsys(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && nsys::LooksLikeNsysExport(path);
}

StatusOr<attribution::TrialSummary> SummarizeNsys(const std::string& path,
                                                  const attribution::AttributionOptions& options) {
  if (options.lenient) {
    return Unsupported("--lenient (options.lenient)", "trace-event JSON",
                       "Nsight Systems exports (their bad rows are always counted, never fatal)", path);
  }
  return nsys::SummarizeNsysTrialFile(path, options);
}

// Kernels as in trace-event JSON; phases are NVTX ranges.
SourceWords NsysWords() {
  SourceWords w = KernelTraceWords();
  w.phase = "NVTX range";
  w.phases = "NVTX ranges";
  w.source = "Nsight Systems";
  w.phases_banner = "Per-NVTX-range GPU time (innermost NVTX range around each kernel's launch)";
  w.phases_note =
      "ranges = instances of the NVTX range (push/pop or start/end) on the launching thread. Kernels outside "
      "every range appear under \"(unknown)\".";
  w.generic_phases = "kernels outside every NVTX range";
  w.method_note =
      "Source: Nsight Systems SQLite export (CUPTI kernel, memcpy and memset activity, CUDA runtime calls, "
      "NVTX ranges). Each GPU kernel is one dispatch (\"kern\" columns count kernels); memcpy and memset are "
      "families of their own. Phases are the innermost NVTX range around a kernel's launch call on its "
      "thread; families come from kernel names; tokens are instances of the per-token NVTX range.";
  return w;
}

}  // namespace

const TraceSource& NsysSource() {
  // Like trace-event JSON: the host process is usually python3, not the engine.
  static const TraceSource kSource{
      {"nsys", Unit::kKernel, NsysWords(), "Nsight Systems SQLite export (nsys export --type sqlite)", true},
      SniffNsys, SummarizeNsys};
  return kSource;
}

}  // namespace perfgate::sources
