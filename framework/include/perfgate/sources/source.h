// The trace sources perfgate reads, as one list.
//
// A source is a trace format (xctrace Metal exports, trace-event JSON, ...). Each has a
// descriptor (its name, the unit it counts and the words reports use for it), a sniff
// that recognises one of its trials, and a summarizer that attributes one trial. Trial
// discovery (bundle/) sniffs every file once through this list; nothing else asks which
// format a trial is. Adding a source is one line in framework/src/sources/builtin.def.
#ifndef PERFGATE_SOURCES_SOURCE_H_
#define PERFGATE_SOURCES_SOURCE_H_

#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"

namespace perfgate::sources {

// What one counted item of a source is.
enum class Unit {
  kSubmission,  // an execution-point pair (about one encoder): Metal System Trace
  kKernel,      // one GPU kernel event: profiler traces
};

// The words reports and failure messages use for a source's figures. Fill them by
// field name (each source.cc does), never positionally: every field is a string.
struct SourceWords {
  std::string_view unit;           // "submission" / "kernel"
  std::string_view units;          // "submissions" / "kernels"
  std::string_view family;         // "encoder family" / "kernel family"
  std::string_view families;       // a heading: "Encoder families" / "Kernel families"
  std::string_view per_token;      // a family column: "enc/tok" / "kern/tok"
  std::string_view dispatch_note;  // one sentence: what a dispatch is in this source
  std::string_view phase;          // "command-buffer phase" / "annotation phase"
  std::string_view phases;         // a heading: "Command-buffer phases" / "Annotation phases"
  std::string_view registry;       // where families are listed: "shader registry" / "kernel list"
  std::string_view unit_abbrev;    // a column's unit: "sub" (sub/tok, p50 µs/sub) / "kern"
  std::string_view instance;       // one counted instance of a phase: "CB" (CBs/tok, µs/CB) / "range"
  std::string_view labelled;       // what label coverage counts: "encoders" / "kernels"
  std::string_view registry_title; // the registry's heading: "Kernel registry (metal-shader-profiler-shader-list)"
  std::string_view registry_names; // what the registry lists per family: "pipeline names" / "kernel names"
  std::string_view distinct_names; // a trial's count of them, in progress lines: "shaders" / "distinct kernels"
  std::string_view kernel_names;   // one sentence: what the per-kernel-name table holds, or why there is none
  std::string_view source;         // in report titles: "Metal System Trace" / "trace-event JSON"
  std::string_view method_note;    // kernel sources: the report's paragraph on what is counted and how
  // The report's prose, so that no report asks which source it shows:
  std::string_view unit_definition;  // what one counted unit is, for the JSON report's `units`
  std::string_view figures_note;     // the method paragraph on what "summed" and "busy" add up
  std::string_view method_details;   // further method paragraphs, one per line ("" when none)
  std::string_view families_banner;  // the family table's banner
  std::string_view families_note;    // where families come from
  std::string_view phases_banner;    // the phase table's banner
  std::string_view phases_note;      // what a phase and its instances are
  std::string_view generic_phases;   // what the top labelled phases leave out
  std::string_view registry_note;    // what the registry lists, and whether it is joined to time
  std::string_view timeline_rows;    // the per-kernel timing table the registry counts rows of ("" when none)
};

struct SourceDescriptor {
  std::string_view name;  // as in TrialSummary::source: "metal", "trace_json"
  Unit unit = Unit::kSubmission;
  SourceWords words;
  std::string_view title;  // a human name: "Metal System Trace (xctrace export)"
  // Whether an engine without a process filter keeps every process: true where traces
  // name the host process after an interpreter (python3), not after the engine.
  bool default_all_processes = false;
  // Whether the default buckets' hints (which name llama.cpp's Metal kernels) apply to
  // this source's reports; a hint the user configured is printed for every source.
  bool default_bucket_hints = false;
  // Whether --seed-compat applies (it reproduces the seed's Metal method only).
  bool seed_compat = false;
};

// One source: its descriptor, how to recognise a trial path, and how to attribute it.
struct TraceSource {
  SourceDescriptor descriptor;
  // True when `path` (a trial directory or file) is a trial of this source.
  bool (*sniff)(const std::string& path) = nullptr;
  // Reads and attributes one trial; the summary's `source` is the descriptor's name.
  StatusOr<attribution::TrialSummary> (*summarize)(const std::string& path,
                                                   const attribution::AttributionOptions& options) = nullptr;
};

// The one default process filter, for the CLI and suites alike: options without a
// prefix and without all_processes keep the processes named like the engine (Metal),
// or are left unchanged where the source names processes after an interpreter
// (trace-event JSON, nsys): kernels of several processes are then attr.several_processes.
attribution::AttributionOptions WithDefaultProcessFilter(const TraceSource& source, const std::string& engine,
                                                         attribution::AttributionOptions options);

// The built-in sources, in sniff order.
const std::vector<TraceSource>& BuiltinSources();

// The source whose sniff accepts `path`, or nullptr.
const TraceSource* SniffSource(const std::string& path);

// Why no source claims the file `path` (SniffSource gave nullptr), when it can say:
// source.unknown_format when its name (.json, .json.gz) or its first byte ('{', '[')
// says JSON, or the error that reading it gives (io.bad_gzip, io.not_a_file, ...); ok
// when it is none of these and the caller's own error fits better.
Status ExplainUnclaimed(const std::string& path);

// The source every trial of `engine` came from; nullptr when there are no trials, or a
// trial names an unknown source or another one than the rest.
const TraceSource* SourceOf(const attribution::EngineSummary& engine);

// The words for an engine's figures: those of SourceOf(engine), or Metal's when it is
// nullptr.
const SourceWords& WordsOf(const attribution::EngineSummary& engine);

// The source named `name`; an unknown name is an error listing the known ones.
StatusOr<const TraceSource*> FindSource(std::string_view name);

}  // namespace perfgate::sources

#endif  // PERFGATE_SOURCES_SOURCE_H_
