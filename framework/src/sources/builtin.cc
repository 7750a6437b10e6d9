// The one list of trace sources. Sniff order matters only where two formats could
// claim a path; none do today (a Metal trial is a directory or an XML export, a
// trace-event trial a JSON file, an nsys trial an SQLite file).
#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/names.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/json_trace/trial.h"
#include "perfgate/nsys/reader.h"
#include "perfgate/sources/source.h"
#include "perfgate/xctrace/metal_tables.h"
#include "json_trace/json_trace_internal.h"
#include "text_input.h"

namespace perfgate::sources {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

// Refused rather than ignored: a choice the reader cannot honour would change nothing
// and look as if it had.
Status Unsupported(const std::string& option, const char* applies_to, const char* source, const std::string& path) {
  return Status::Error("attr.unsupported_option",
                       option + " applies to " + applies_to + " trials, not to " + source, {path},
                       ErrorKind::kUsage);
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

bool SniffTraceJson(const std::string& path) { return json_trace::LooksLikeTraceJson(path); }

StatusOr<attribution::TrialSummary> SummarizeTraceJson(const std::string& path,
                                                       const attribution::AttributionOptions& options) {
  json_trace::ReadOptions read;
  read.mode = options.lenient ? json_trace::ReadMode::kLenient : json_trace::ReadMode::kStrict;
  auto s = json_trace::SummarizeJsonTrialFile(path, options, nullptr, read);
  if (s.ok()) s->source = "trace_json";
  return s;
}

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
  return w;
}

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
  return w;
}

// Kernels as in trace-event JSON; phases are NVTX ranges.
SourceWords NsysWords() {
  SourceWords w = TraceJsonWords();
  w.phase = "NVTX range";
  w.phases = "NVTX ranges";
  w.source = "Nsight Systems";
  w.method_note =
      "Source: Nsight Systems SQLite export (CUPTI kernel, memcpy and memset activity, CUDA runtime calls, "
      "NVTX ranges). Each GPU kernel is one dispatch (\"kern\" columns count kernels); memcpy and memset are "
      "families of their own. Phases are the innermost NVTX range around a kernel's launch call on its "
      "thread; families come from kernel names; tokens are instances of the per-token NVTX range.";
  return w;
}

std::vector<TraceSource> MakeBuiltinSources() {
  // {{name, unit, words, title, default_all_processes}, sniff, summarize}
  return {
      {{"metal", Unit::kSubmission, MetalWords(), "Metal System Trace (xctrace export)", false},
       SniffMetal,
       SummarizeMetal},
      {{"trace_json", Unit::kKernel, TraceJsonWords(), "trace-event JSON (PyTorch profiler / Kineto, Perfetto)", true},
       SniffTraceJson,
       SummarizeTraceJson},
      // Like trace-event JSON: the host process is usually python3, not the engine.
      {{"nsys", Unit::kKernel, NsysWords(), "Nsight Systems SQLite export (nsys export --type sqlite)", true},
       SniffNsys,
       SummarizeNsys},
  };
}

// The first 4 KiB of the file, inflated when gzip-compressed: enough to see past a BOM
// and the whitespace any writer puts first. The rest of a gzip file is inflated without
// being kept (memory stays one chunk), so a gzip bomb or a corrupt stream is still
// named as such, as reading the whole file once named it.
StatusOr<std::string> ReadPrefix(const std::string& path) {
  constexpr size_t kPrefixBytes = 4096;
  std::string prefix;
  bool gzip = false;
  const json_trace::detail::StreamEnd end = json_trace::detail::StreamFilePrefix(
      path, UINT64_MAX,
      [&](std::string_view chunk) {
        prefix.append(chunk.substr(0, kPrefixBytes - std::min(prefix.size(), kPrefixBytes)));
        return gzip || prefix.size() < kPrefixBytes;  // a plain file's size was checked already
      },
      &gzip);
  using json_trace::detail::StreamEnd;
  if (end == StreamEnd::kPastLimit) {
    return Status::Error("io.gzip_bomb",
                         "the file inflates past the input limits (raise them with --max-input-bytes or "
                         "--max-gzip-ratio)",
                         {path});
  }
  if (end == StreamEnd::kBrokenGzip) return Status::Error("io.bad_gzip", "corrupt or truncated gzip data", {path});
  return prefix;
}

// The first byte of `text` after a UTF-8 byte-order mark and whitespace, or 0.
char FirstSignificantByte(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const size_t at = text.find_first_not_of(" \t\r\n");
  return at == std::string_view::npos ? '\0' : text[at];
}

}  // namespace

Status ExplainUnclaimed(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status();  // a trial directory: its loader names what is missing
  const std::string name = fs::path(path).filename().string();
  const bool named_json = EndsWith(name, ".json") || EndsWith(name, ".json.gz");
  PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(path));
  // An SQLite file that is no nsys export, or a file named like one that is no SQLite
  // database (an .nsys-rep report not yet exported): the nsys reader says why.
  const bool named_nsys = EndsWith(name, ".sqlite") || EndsWith(name, ".nsys-rep") || EndsWith(name, ".qdrep");
  if (auto e = nsys::ReadNsysFile(path); !e.ok() && (named_nsys || e.status().code() != "nsys.not_sqlite")) {
    return e.status();
  }
  auto prefix = ReadPrefix(path);
  if (!prefix.ok()) return prefix.status();
  const char first = FirstSignificantByte(*prefix);
  if (!named_json && first != '{' && first != '[') return Status();
  const std::string why = named_json ? "its name says JSON" : std::string("it starts with '") + first + "'";
  return Status::Error("source.unknown_format",
                       why + ", but no trace source reads it: trace-event JSON is an object with a \"traceEvents\" "
                       "array or an array of events, each with \"ph\" and \"ts\" (Chrome trace-event / Kineto); "
                       "Metal exports are XML",
                       {path});
}

attribution::AttributionOptions WithDefaultProcessFilter(const TraceSource& source, const std::string& engine,
                                                         attribution::AttributionOptions options) {
  if (!options.process_prefix.empty() || options.process_id || options.all_processes) return options;
  // Sources whose host process is not the engine (python3) keep every process with no
  // prefix; kernels of several of them are then attr.several_processes, not a sum.
  if (!source.descriptor.default_all_processes) attribution::ApplyDefaultProcessFilter(engine, &options);
  return options;
}

const std::vector<TraceSource>& BuiltinSources() {
  static const std::vector<TraceSource> kSources = MakeBuiltinSources();
  return kSources;
}

const TraceSource* SniffSource(const std::string& path) {
  for (const TraceSource& s : BuiltinSources()) {
    if (s.sniff(path)) return &s;
  }
  return nullptr;
}

const TraceSource* SourceOf(const attribution::EngineSummary& engine) {
  const TraceSource* found = nullptr;
  for (const auto& t : engine.trials) {
    auto s = FindSource(t.source);
    if (!s.ok() || (found != nullptr && found != *s)) return nullptr;
    found = *s;
  }
  return found;
}

const SourceWords& WordsOf(const attribution::EngineSummary& engine) {
  const TraceSource* s = SourceOf(engine);
  return (s != nullptr ? s : &BuiltinSources().front())->descriptor.words;
}

StatusOr<const TraceSource*> FindSource(std::string_view name) {
  std::vector<std::string> known;
  for (const TraceSource& s : BuiltinSources()) {
    if (s.descriptor.name == name) return &s;
    known.emplace_back(s.descriptor.name);
  }
  return Status::Error("source.unknown",
                       "unknown trace source '" + std::string(name) + "' (known: " + ListNames(known) + ")",
                       {}, ErrorKind::kUsage);
}

}  // namespace perfgate::sources
