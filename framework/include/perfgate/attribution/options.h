// What attribution is configured with: duration buckets, kernel-family rules, the
// process filter, the decode window and the token count. The seed's tables are the
// defaults; buckets and kernel families are data that users can replace.
#ifndef PERFGATE_ATTRIBUTION_OPTIONS_H_
#define PERFGATE_ATTRIBUTION_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::attribution {

// A half-open duration band [lo_ns, hi_ns); hi_ns == kOpenEnd means no upper bound.
struct Bucket {
  static constexpr int64_t kOpenEnd = INT64_MAX;
  std::string name;
  int64_t lo_ns = 0;
  int64_t hi_ns = kOpenEnd;
  std::string hint;  // the kernel class that usually lands here, for the attack target
};

// The seed's five bands: xs_<2us, sm_2_8us, md_8_32us, lg_32_80us, xl_>=80us.
std::vector<Bucket> DefaultBuckets();

// Parses "NAME:LO_NS:HI_NS,..." (HI_NS empty for an open end), e.g.
// "fast:0:10000,slow:10000:". Bands must be non-empty, sorted and contiguous from 0.
StatusOr<std::vector<Bucket>> ParseBuckets(std::string_view spec);

// Prefix rules that name kernel families from shader names.
struct KernelFamilyRule {
  std::string prefix;
  std::string family;
};
struct KernelFamilyTable {
  std::string strip_prefix = "kernel_";  // removed before matching
  std::vector<KernelFamilyRule> rules;   // first match wins
};

// The seed's table (mul_mm_id_map0 -> moe_map0, ..., kv_cache_copy -> kv_cache).
KernelFamilyTable DefaultKernelFamilies();

// The family names the table's rules can give, sorted. Names that no rule lists but
// KernelFamily falls back to (other_<word>, "(unknown)", a seed-compat name that is
// its own family) are not in it: sources add those they meet.
std::set<std::string> KernelFamilyNames(const KernelFamilyTable& table);

// Reads {"strip_prefix": "...", "rules": [{"prefix": "...", "family": "..."}]} from a
// JSON file, so users extend the table without recompiling. Errors, located where the
// file has a position: io.* (unreadable, a directory), families.bad_json (not JSON, a
// number out of range, a duplicate key), families.too_deep, families.bad_table (an
// unknown key, a wrong type, an empty prefix or family, a prefix given twice).
StatusOr<KernelFamilyTable> LoadKernelFamilies(const std::string& path);

// How a decode-step label names annotations (Metal command-buffer labels, trace-event
// user annotations). Exact compares NormalizePhaseLabel of both sides (the only kind
// before prefixes and patterns); a prefix and a pattern are matched on the name as the
// trace holds it, so `step[DECODE` or `execute_\d+_context_.*` need no escaping of
// real serving-engine labels like `step[DECODE bs=32]`.
struct LabelMatch {
  enum class Kind { kExact, kPrefix, kRegex };
  Kind kind = Kind::kExact;
  std::string text;  // the name, the prefix, or an ECMAScript regex matched against the whole name

  LabelMatch() = default;
  // Implicit: a plain string is an exact label, as label strings always were.
  LabelMatch(std::string exact) : text(std::move(exact)) {}  // NOLINT(google-explicit-constructor)
  LabelMatch(const char* exact) : text(exact) {}             // NOLINT(google-explicit-constructor)
  static LabelMatch Exact(std::string name) { return LabelMatch(std::move(name)); }
  static LabelMatch Prefix(std::string prefix) { return Of(Kind::kPrefix, std::move(prefix)); }
  static LabelMatch Regex(std::string pattern) { return Of(Kind::kRegex, std::move(pattern)); }

  bool empty() const { return text.empty(); }
  void clear() { *this = LabelMatch(); }
  // The label in reports, messages and cache keys: the text of an exact label (as
  // before), "prefix:TEXT" or "regex:TEXT" otherwise; an exact text that itself
  // starts with "exact:", "prefix:" or "regex:" is written "exact:TEXT".
  std::string Spelling() const;
  friend bool operator==(const LabelMatch& a, const LabelMatch& b) { return a.kind == b.kind && a.text == b.text; }
  friend bool operator!=(const LabelMatch& a, const LabelMatch& b) { return !(a == b); }

 private:
  static LabelMatch Of(Kind kind, std::string text) {
    LabelMatch l(std::move(text));
    l.kind = kind;
    return l;
  }
};

// Which submissions count as decode. Each source gives the modes its own meaning
// (a Metal label marks the end of a step, a trace-event annotation encloses one); see
// SummarizeTrial and attribution::AttributeWork.
struct DecodeWindow {
  enum class Mode { kWholeTrace, kLabel, kTimeRange, kSkipSubmissions };
  Mode mode = Mode::kWholeTrace;
  LabelMatch label;         // kLabel: the annotations (command buffers) it names
  int64_t start_ns = 0;     // kTimeRange: [start_ns, end_ns) in trace time
  int64_t end_ns = INT64_MAX;
  int64_t skip = 0;         // kSkipSubmissions: drop the first N target submissions

  // Typed spellings of the modes, for code that builds options (suites, tests). They
  // check nothing; ParseWindow checks user text and builds through them.
  static DecodeWindow WholeTrace() { return DecodeWindow(); }
  // An exact name (a string) or any LabelMatch (LabelMatch::Prefix("step[DECODE")).
  static DecodeWindow Label(LabelMatch label) {
    DecodeWindow w;
    w.mode = Mode::kLabel;
    w.label = std::move(label);
    return w;
  }
  static DecodeWindow SkipSubmissions(int64_t n) {
    DecodeWindow w;
    w.mode = Mode::kSkipSubmissions;
    w.skip = n;
    return w;
  }
  static DecodeWindow TimeRange(int64_t start_ns, int64_t end_ns) {
    DecodeWindow w;
    w.mode = Mode::kTimeRange;
    w.start_ns = start_ns;
    w.end_ns = end_ns;
    return w;
  }
};

// Parses "label:NAME" (exact), "label-prefix:TEXT", "label-regex:RE",
// "time:START_NS:END_NS" or "skip:N". Everything after the first colon of a label
// spelling is the label, colons included; a regex is compiled here (LabelMatcher).
StatusOr<DecodeWindow> ParseWindow(std::string_view spec);

// Parses the label of `--tokens`: "auto:NAME" (exact), "auto-prefix:TEXT" or
// "auto-regex:RE"; anything else is a cli.usage error.
StatusOr<LabelMatch> ParseTokenLabel(std::string_view spec);

struct AttributionOptions {
  // Keep submissions whose process name (or its last path component) starts with
  // this; empty keeps every process (ApplyDefaultProcessFilter gives it the engine
  // name). Ignored with all_processes. Kernels of several processes with neither a
  // prefix, nor an id, nor all_processes are attr.several_processes (GPU traces);
  // with one they are counted as attr.mixed_processes.
  std::string process_prefix;
  // Keep only work launched by this process id (Kineto: the launch call's pid; nsys:
  // the pid in bits 24-47 of globalPid), with the prefix when both are given.
  // Ignored with all_processes.
  std::optional<int64_t> process_id;
  bool all_processes = false;
  // The GPU whose work is kept (model::WorkItem::device: Kineto's args.device, nsys's
  // deviceId). Unset keeps every device, and kept work on more than one device is
  // then an error (attr.several_devices) naming each with its kernel count: figures
  // of two GPUs are never summed into one.
  std::optional<int64_t> device;
  // Read trace-event JSON leniently: count each malformed event (json.bad_event) and
  // read on, instead of stopping at the first (`perfgate attribute --lenient`).
  bool lenient = false;
  // Reproduce the seed's numbers exactly (no filter, no window, overwrite pairing,
  // unsorted p95, p50 = 0 medians, kernel families only for kernel_ names).
  bool seed_compat = false;
  DecodeWindow window;
  // The configured decode-token count; when token_label is set the count comes from
  // the trace instead and a disagreement with this one is a diagnostic.
  std::optional<int64_t> tokens;
  LabelMatch token_label;
  std::vector<Bucket> buckets = DefaultBuckets();
  KernelFamilyTable kernel_families = DefaultKernelFamilies();
  // The recording run of an xctrace export holding several (`perfgate attribute
  // --run N`); 0 refuses an export whose tables come from more than one run.
  int run = 0;
};

// Every option, as exact bytes (sizes and all): two options with one key attribute
// every trial alike. The key of perfgate's caches of attributed trials.
std::string OptionsKey(const AttributionOptions& options);

// The Metal default of the process filter: an empty process_prefix becomes the
// engine's name, unless all_processes asks for every process. An explicit prefix is
// kept. The one default for the CLI and suites, per source, is
// sources::WithDefaultProcessFilter, which calls this for Metal traces.
void ApplyDefaultProcessFilter(const std::string& engine_name, AttributionOptions* options);

// The seed's label normalisation: drop a leading "[n] " and purely numeric dotted
// parts ("layer.12.attn" -> "layer.attn"); "" -> "(unknown)".
std::string NormalizePhaseLabel(std::string_view label);

// compute / blit / render / accel from the encoder label, else its first word
// lowercased; "" -> "(unknown)".
std::string EncoderFamily(std::string_view encoder_label);

// The kernel family of a shader name (cut at "|" and " (" first). With
// `require_prefix` (the seed) names without strip_prefix are their own family.
std::string KernelFamily(const KernelFamilyTable& table, std::string_view shader_name,
                         bool require_prefix = false);

// True for generic labels that carry no phase: "Command Buffer…", "Compute Command…",
// "(unknown)".
bool IsGenericPhase(std::string_view phase);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_OPTIONS_H_
