// The Metal System Trace source: xctrace exports of a trial (a directory of
// `<schema>.xml` files, a .trace bundle, or one XML file holding the tables).
#include <filesystem>
#include <string>

#include "perfgate/attribution/attribute.h"
#include "perfgate/sources/source.h"
#include "perfgate/xctrace/metal_tables.h"
#include "sources/unsupported_option.h"
#include "string_util.h"

namespace perfgate::sources {
namespace {

namespace fs = std::filesystem;

// A Metal trial: a directory holding the execution-points export, a .trace bundle
// (exported through xctrace), or one XML file holding the tables.
bool SniffMetal(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    if (p.extension() == ".trace") return true;
    const std::string points = std::string(xctrace::ExecutionPoint::kSchema) + ".xml";
    return fs::is_regular_file(p / points, ec) || fs::is_regular_file(p / (points + ".gz"), ec);
  }
  const std::string name = p.filename().string();
  return fs::is_regular_file(p, ec) && (EndsWith(name, ".xml") || EndsWith(name, ".xml.gz"));
}

StatusOr<attribution::TrialSummary> SummarizeMetal(const std::string& path,
                                                   const attribution::AttributionOptions& options) {
  constexpr const char* kMetal = "Metal System Trace exports";
  constexpr const char* kKernelSources = "trace-event JSON and nsys";
  if (options.process_id) return Unsupported("--process pid:N (options.process_id)", kKernelSources, kMetal, path);
  if (options.device) return Unsupported("--device (options.device)", kKernelSources, kMetal, path);
  if (options.lenient) return Unsupported("--lenient (options.lenient)", "trace-event JSON", kMetal, path);
  auto tables = attribution::LoadTrial(path, options.run);
  if (!tables.ok()) return tables.status();
  auto s = attribution::SummarizeTrial(*tables, options);
  if (s.ok()) s->source = "metal";
  return s;
}

// Each word by its field's name: eighteen positional strings are easy to misorder.
SourceWords MetalWords() {
  SourceWords w;
  w.unit = "submission";
  w.units = "submissions";
  w.family = "encoder family";
  w.families = "Encoder families";
  w.per_token = "enc/tok";
  w.dispatch_note = "A submission is one GPU execution-point pair (about one encoder), not a kernel dispatch.";
  w.phase = "command-buffer phase";
  w.phases = "Command-buffer phases";
  w.registry = "shader registry";
  w.unit_abbrev = "sub";
  w.instance = "CB";
  w.labelled = "encoders";
  w.registry_title = "Kernel registry (metal-shader-profiler-shader-list)";
  w.registry_names = "pipeline names";
  w.distinct_names = "shaders";
  w.kernel_names =
      "A submission names no kernel (no exported table joins a pipeline to GPU time), so there is no "
      "per-kernel-name table; the shader registry lists the pipelines that ran.";
  w.source = "Metal System Trace";
  w.method_note =
      "GPU time comes from metal-gpu-execution-points: a start (function 1) and an end (function 2) are "
      "paired per submission id. A \"submission\" is one such execution-point pair (about one encoder), NOT a "
      "kernel dispatch; kernel dispatch counts need the engine's own counter. \"sub\" = submissions.";
  w.unit_definition = "one GPU execution-point pair (about one encoder), not a kernel dispatch";
  w.figures_note =
      "Figures are per decode token, medians over trials. \"summed\" adds submission durations; \"busy\" is "
      "their union (concurrent submissions counted once). Δ = engine - baseline; Δ% is n/a when the "
      "baseline is 0; p is a two-sided Mann-Whitney U test over the per-trial values.";
  w.method_details =
      "Buckets are bands of a single submission's duration, so count × p50 need not equal µs/tok "
      "(durations are skewed).\n"
      "Families and phases join submissions to encoders via metal-gpu-submission-to-command-buffer-id and "
      "metal-application-encoders-list; the kernel registry lists pipelines but is not joined to time.";
  w.families_banner = "Per-encoder-family GPU time (submissions joined to encoders)";
  w.families_note =
      "Families come from encoder labels (compute / blit / render / accel, else the first word). Most engines "
      "label encoders generically, so a family is coarser than a kernel. enc = encoders.";
  w.phases_banner = "Per-command-buffer-phase GPU time (command-buffer labels, numeric parts removed)";
  w.phases_note =
      "CBs = distinct encoders carrying the phase label (the seed's count). Engines that do not label their "
      "command buffers appear under generic \"Command Buffer N\" phases.";
  w.generic_phases = "generic Command Buffer / Compute Command";
  w.registry_note =
      "Pipeline names per kernel family, distinct, unioned over trials. No per-submission table carries a "
      "pipeline id, so the registry says which kernels ran, not how long each took.";
  w.timeline_rows = "Shader Timeline rows (metal-shader-profiler-intervals)";
  return w;
}

}  // namespace

const TraceSource& MetalSource() {
  static const TraceSource kSource{
      {"metal", Unit::kSubmission, MetalWords(), "Metal System Trace (xctrace export)", false, true, true}, SniffMetal,
      SummarizeMetal};
  return kSource;
}

}  // namespace perfgate::sources
