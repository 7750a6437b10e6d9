#include "perfgate/attribution/options.h"

#include "attribution/label_matcher.h"

#include <cctype>
#include <fstream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "core/byte_codec.h"
#include "core/text_input.h"
#include "core/json_document.h"
#include "core/string_util.h"

namespace perfgate::attribution {
namespace {

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (v > (INT64_MAX - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

Status UsageError(std::string message) {
  return Status::Error("cli.usage", std::move(message), {}, ErrorKind::kUsage);
}

// The nesting of a kernel-family table: the root, its rules and a rule.
constexpr int kMaxKernelFamilyNesting = 3;

// Checks a parsed kernel-family table key by key; every error is families.bad_table
// located at the offending key or value.
class KernelFamilyReader {
 public:
  KernelFamilyReader(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  StatusOr<KernelFamilyTable> Read(const nlohmann::json& j) const {
    if (!j.is_object()) return Bad("", "expected {\"rules\": [{\"prefix\", \"family\"}, ...]}");
    for (const auto& [key, _] : j.items()) {
      if (key != "rules" && key != "strip_prefix") {
        return Bad("/" + internal::EscapeJsonPointerToken(key), "unknown key '" + key + "' (expected rules, strip_prefix)");
      }
    }
    KernelFamilyTable t;
    if (auto strip = j.find("strip_prefix"); strip != j.end()) {
      if (!strip->is_string()) return Bad("/strip_prefix", "strip_prefix must be a string");
      t.strip_prefix = strip->get<std::string>();
    }
    auto rules = j.find("rules");
    if (rules == j.end() || !rules->is_array()) {
      return Bad(rules == j.end() ? "" : "/rules", "expected {\"rules\": [{\"prefix\", \"family\"}, ...]}");
    }
    std::map<std::string, size_t> first_with_prefix;
    for (size_t i = 0; i < rules->size(); ++i) {
      const std::string at = "/rules/" + std::to_string(i);
      PERFGATE_ASSIGN_OR_RETURN(KernelFamilyRule rule, ReadRule((*rules)[i], i, at));
      auto [it, inserted] = first_with_prefix.emplace(rule.prefix, i);
      if (!inserted) {
        return Bad(at + "/prefix", "rules[" + std::to_string(i) + "] repeats the prefix '" + rule.prefix +
                                       "' of rules[" + std::to_string(it->second) + "], so it could never match");
      }
      t.rules.push_back(std::move(rule));
    }
    return t;
  }

 private:
  StatusOr<KernelFamilyRule> ReadRule(const nlohmann::json& r, size_t i, const std::string& at) const {
    const std::string needs = "rules[" + std::to_string(i) + "] needs non-empty string prefix and family";
    if (!r.is_object()) return Bad(at, needs);
    for (const auto& [key, _] : r.items()) {
      if (key != "prefix" && key != "family") {
        return Bad(at + "/" + internal::EscapeJsonPointerToken(key),
                   "rules[" + std::to_string(i) + "]: unknown key '" + key + "' (expected prefix, family)");
      }
    }
    for (const char* key : {"prefix", "family"}) {
      auto v = r.find(key);
      if (v == r.end() || !v->is_string() || v->get_ref<const std::string&>().empty()) {
        return Bad(v == r.end() ? at : at + "/" + key, needs);
      }
    }
    return KernelFamilyRule{r["prefix"].get<std::string>(), r["family"].get<std::string>()};
  }

  // At the pointer, or at the nearest ancestor written in the file.
  Status Bad(std::string pointer, const std::string& message) const {
    return Status::Error("families.bad_table", message,
                         internal::LocateJsonPointerOrAncestor(text_, path_, std::move(pointer)));
  }

  const std::string& path_;
  std::string_view text_;
};

}  // namespace

std::vector<Bucket> DefaultBuckets() {
  return {
      {"xs_<2us", 0, 2'000, "rms_norm / reshape / scalar"},
      {"sm_2_8us", 2'000, 8'000, "rope / soft-cap / small mat-vec"},
      {"md_8_32us", 8'000, 32'000, "Q4_0 MoE mat-vec_id (gate/up/down) — primary Q4_0 attack surface"},
      {"lg_32_80us", 32'000, 80'000, "flash_attn / pooled mul_mm_id"},
      {"xl_>=80us", 80'000, Bucket::kOpenEnd, "prefill mul_mm_id / lm_head / large blits"},
  };
}

StatusOr<std::vector<Bucket>> ParseBuckets(std::string_view spec) {
  std::vector<Bucket> out;
  for (std::string_view item : Split(spec, ',')) {
    auto parts = Split(item, ':');
    if (parts.size() != 3 || parts[0].empty()) {
      return UsageError("bucket '" + std::string(item) + "' is not NAME:LO_NS:HI_NS");
    }
    Bucket b;
    b.name = std::string(parts[0]);
    if (!ParseInt64(parts[1], &b.lo_ns)) return UsageError("bucket '" + b.name + "': bad lower bound");
    if (!parts[2].empty() && !ParseInt64(parts[2], &b.hi_ns)) {
      return UsageError("bucket '" + b.name + "': bad upper bound");
    }
    if (b.hi_ns <= b.lo_ns) return UsageError("bucket '" + b.name + "' is empty");
    for (const Bucket& earlier : out) {
      if (earlier.name == b.name) return UsageError("bucket '" + b.name + "' is given twice (one figure per name)");
    }
    int64_t expected_lo = out.empty() ? 0 : out.back().hi_ns;
    if (b.lo_ns != expected_lo) {
      return UsageError("bucket '" + b.name + "' starts at " + std::to_string(b.lo_ns) + " ns, expected " +
                        std::to_string(expected_lo) + " (bands must be contiguous from 0)");
    }
    out.push_back(std::move(b));
  }
  if (out.back().hi_ns != Bucket::kOpenEnd) {
    return UsageError("the last bucket must be open-ended (NAME:LO_NS:)");
  }
  return out;
}

KernelFamilyTable DefaultKernelFamilies() {
  KernelFamilyTable t;
  t.rules = {
      {"mul_mm_id_map0", "moe_map0"},         {"mul_mm_id_q4_0_tensor", "moe_q4_0_mm"},
      {"mul_mm_id_q5_K_tensor", "moe_q5_K_mm"}, {"mul_mm_id_q6_K_tensor", "moe_q6_K_mm"},
      {"mul_mm_id", "moe_mm"},                {"mul_mv_id_q4_0", "moe_q4_0_mv"},
      {"mul_mv_id_q5_K", "moe_q5_K_mv"},      {"mul_mv_id_q6_K", "moe_q6_K_mv"},
      {"mul_mv_id_q8_0", "moe_q8_0_mv"},      {"mul_mv_id", "moe_mv"},
      {"mul_mm_q4_0_tensor", "dense_q4_0_mm"}, {"mul_mm_q5_K_tensor", "dense_q5_K_mm"},
      {"mul_mm_q6_K_tensor", "dense_q6_K_mm"}, {"mul_mm_q8_0_tensor", "dense_q8_0_mm"},
      {"mul_mm", "dense_mm"},                 {"mul_mv_q4_0", "dense_q4_0_mv"},
      {"mul_mv_q5_K", "dense_q5_K_mv"},       {"mul_mv_q6_K", "dense_q6_K_mv"},
      {"mul_mv_q8_0", "dense_q8_0_mv"},       {"mul_mv", "dense_mv"},
      {"flash_attn", "flash_attn"},           {"rms_norm", "rms_norm"},
      {"rope", "rope"},                       {"silu", "silu"},
      {"swiglu", "swiglu"},                   {"kv_cache_copy", "kv_cache"},
      {"argmax", "argmax"},                   {"permute", "permute"},
      {"cast", "cast"},                       {"residual_add", "residual_add"},
      {"fused_norm", "fused_norm"},
  };
  return t;
}

std::set<std::string> KernelFamilyNames(const KernelFamilyTable& table) {
  std::set<std::string> names;
  for (const KernelFamilyRule& rule : table.rules) names.insert(rule.family);
  return names;
}

StatusOr<KernelFamilyTable> LoadKernelFamilies(const std::string& path) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  StatusOr<nlohmann::json> j = internal::ParseJsonDocument(*text, path, {"families.bad_json", "families.too_deep"},
                                                           kMaxKernelFamilyNesting);
  if (!j.ok()) return j.status();
  return KernelFamilyReader(path, *text).Read(*j);
}

struct LabelMatcher::Regex {
  std::regex re;
};

namespace {

// libstdc++'s default (backtracking) executor recurses once per character: a 100 KB
// annotation name matched against "a.*" overflows the stack. Its breadth-first
// executor (__polynomial) runs in linear time and bounded depth, and refuses
// back-references, which a label pattern does not need.
constexpr std::regex::flag_type kLabelRegexFlags =
#ifdef __GLIBCXX__
    std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
    std::regex::ECMAScript;
#endif

}  // namespace

std::string LabelMatch::Spelling() const {
  switch (kind) {
    case Kind::kPrefix: return "prefix:" + text;
    case Kind::kRegex: return "regex:" + text;
    case Kind::kExact: break;
  }
  for (std::string_view keyword : {"exact:", "prefix:", "regex:"}) {
    if (text.compare(0, keyword.size(), keyword) == 0) return "exact:" + text;
  }
  return text;
}

StatusOr<LabelMatcher> LabelMatcher::Compile(const LabelMatch& label) {
  if (label.empty()) return UsageError("a decode-step label is empty");
  LabelMatcher m;
  m.label_ = label;
  if (label.kind == LabelMatch::Kind::kExact) m.normalized_ = NormalizePhaseLabel(label.text);
  if (label.kind == LabelMatch::Kind::kRegex) {
    try {
      m.regex_ = std::make_shared<const Regex>(Regex{std::regex(label.text, kLabelRegexFlags)});
    } catch (const std::regex_error& e) {
      return UsageError("label regex '" + label.text + "' is not an ECMAScript regular expression: " + e.what());
    }
  }
  return m;
}

bool LabelMatcher::Matches(std::string_view name) const {
  switch (label_.kind) {
    case LabelMatch::Kind::kExact: return NormalizePhaseLabel(name) == normalized_;
    case LabelMatch::Kind::kPrefix: return name.substr(0, label_.text.size()) == label_.text;
    case LabelMatch::Kind::kRegex: break;
  }
  if (name.size() > kMaxRegexNameBytes) {
    ++untested_->too_long;
    return false;
  }
  try {
    return std::regex_match(name.begin(), name.end(), regex_->re);
  } catch (const std::regex_error&) {  // error_complexity, error_stack: give up on this name
    ++untested_->regex_error;
    return false;
  }
}

void LabelMatcher::CountUntested(Diagnostics* diagnostics) const {
  diagnostics->AddCount("attr.label_too_long", untested_->too_long);
  diagnostics->AddCount("attr.label_regex_error", untested_->regex_error);
}

bool SameLabel(const LabelMatch& a, const LabelMatch& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == LabelMatch::Kind::kExact) return NormalizePhaseLabel(a.text) == NormalizePhaseLabel(b.text);
  return a.text == b.text;
}

namespace {

// "KEYWORD:TEXT", "KEYWORD-prefix:TEXT" or "KEYWORD-regex:RE" -> the label; nullopt
// when `spec` is none of them. The label is everything after the first colon.
std::optional<StatusOr<LabelMatch>> ParseLabelSpelling(std::string_view spec, std::string_view keyword,
                                                       std::string_view option) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || spec.substr(0, keyword.size()) != keyword) return std::nullopt;
  const std::string_view head = spec.substr(keyword.size(), colon - keyword.size());
  const std::string text(spec.substr(colon + 1));
  LabelMatch label;
  if (head.empty()) {
    label = LabelMatch::Exact(text);
  } else if (head == "-prefix") {
    label = LabelMatch::Prefix(text);
  } else if (head == "-regex") {
    label = LabelMatch::Regex(text);
  } else {
    return std::nullopt;
  }
  if (text.empty()) {
    return StatusOr<LabelMatch>(UsageError(std::string(option) + " " + std::string(spec) + " needs a label"));
  }
  auto compiled = LabelMatcher::Compile(label);
  if (!compiled.ok()) {
    return StatusOr<LabelMatch>(UsageError(std::string(option) + " " + std::string(spec) + ": " +
                                           compiled.status().message()));
  }
  return StatusOr<LabelMatch>(std::move(label));
}

}  // namespace

StatusOr<LabelMatch> ParseTokenLabel(std::string_view spec) {
  if (auto label = ParseLabelSpelling(spec, "auto", "--tokens")) return std::move(*label);
  return UsageError("--tokens '" + std::string(spec) + "': expected auto:NAME, auto-prefix:TEXT or auto-regex:RE");
}

StatusOr<DecodeWindow> ParseWindow(std::string_view spec) {
  auto parts = Split(spec, ':');
  if (auto label = ParseLabelSpelling(spec, "label", "--window")) {
    if (!label->ok()) return label->status();
    return DecodeWindow::Label(std::move(**label));
  }
  if (parts[0] == "time" && parts.size() == 3) {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    if (!ParseInt64(parts[1], &start_ns) || !ParseInt64(parts[2], &end_ns) || end_ns <= start_ns) {
      return UsageError("--window time:START_NS:END_NS needs 0 <= START < END");
    }
    return DecodeWindow::TimeRange(start_ns, end_ns);
  }
  if (parts[0] == "skip" && parts.size() == 2) {
    int64_t n = 0;
    if (!ParseInt64(parts[1], &n)) return UsageError("--window skip:N needs a count");
    return DecodeWindow::SkipSubmissions(n);
  }
  return UsageError("--window '" + std::string(spec) + "': expected label:NAME, label-prefix:TEXT, label-regex:RE, "
                    "time:START_NS:END_NS or skip:N");
}

void ApplyDefaultProcessFilter(const std::string& engine_name, AttributionOptions* options) {
  if (options->process_prefix.empty() && !options->all_processes) options->process_prefix = engine_name;
}

std::string NormalizePhaseLabel(std::string_view label) {
  if (label.empty()) return "(unknown)";
  std::string_view l = label;
  if (l[0] == '[') {
    size_t close = l.find("] ");
    if (close != std::string_view::npos) l = l.substr(close + 2);
  }
  std::string out;
  bool any = false;
  for (std::string_view part : Split(l, '.')) {
    bool digits = !part.empty();
    for (char c : part) digits = digits && c >= '0' && c <= '9';
    if (digits) continue;
    if (any) out += '.';
    out += part;
    any = true;
  }
  return any ? out : std::string(l);
}

std::string EncoderFamily(std::string_view label) {
  if (label.empty()) return "(unknown)";
  auto starts = [&](std::string_view p) { return label.substr(0, p.size()) == p; };
  if (starts("Compute Command")) return "compute";
  if (starts("Blit Command")) return "blit";
  if (starts("Render Command")) return "render";
  if (starts("Acceleration")) return "accel";
  std::string first(label.substr(0, label.find(' ')));
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return first.empty() ? "(unknown)" : first;
}

std::string KernelFamily(const KernelFamilyTable& table, std::string_view name, bool require_prefix) {
  std::string_view base = name.substr(0, name.find('|'));
  base = base.substr(0, base.find(" ("));
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.front()))) base.remove_prefix(1);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back()))) base.remove_suffix(1);
  const std::string_view strip = table.strip_prefix;
  std::string_view body = base;
  if (!strip.empty() && base.substr(0, strip.size()) == strip) {
    body = base.substr(strip.size());
  } else if (require_prefix) {
    return base.empty() ? "(unknown)" : std::string(base);
  }
  if (body.empty()) return "(unknown)";
  for (const auto& rule : table.rules) {
    if (body.substr(0, rule.prefix.size()) == rule.prefix) return rule.family;
  }
  return "other_" + std::string(body.substr(0, body.find('_')));
}

bool IsGenericPhase(std::string_view phase) {
  return phase.empty() || phase == "(unknown)" || phase.substr(0, 14) == "Command Buffer" ||
         phase.substr(0, 15) == "Compute Command";
}

namespace {

void PutLabel(internal::ByteWriter* w, const LabelMatch& l) {
  w->Put(l.kind);
  w->Put(l.text);
}

}  // namespace

std::string OptionsKey(const AttributionOptions& o) {
  // A field added to AttributionOptions must be added here, or two options that
  // attribute differently would share cached summaries. The size check below fails
  // the build on the platform it was written on until this function is looked at.
#if defined(__GLIBCXX__) && defined(__x86_64__)
  static_assert(sizeof(AttributionOptions) == 296, "AttributionOptions changed: add the new field to OptionsKey");
#endif
  internal::ByteWriter w;
  w.Put(o.process_prefix);
  w.Put(o.process_id);
  w.Put(o.all_processes);
  w.Put(o.device);
  w.Put(o.lenient);
  w.Put(o.seed_compat);
  w.Put(o.window.mode);
  PutLabel(&w, o.window.label);
  w.Put(o.window.start_ns);
  w.Put(o.window.end_ns);
  w.Put(o.window.skip);
  w.Put(o.tokens);
  PutLabel(&w, o.token_label);
  w.Put(static_cast<uint64_t>(o.buckets.size()));
  for (const Bucket& b : o.buckets) {
    w.Put(b.name);
    w.Put(b.lo_ns);
    w.Put(b.hi_ns);
    w.Put(b.hint);
  }
  w.Put(o.kernel_families.strip_prefix);
  w.Put(static_cast<uint64_t>(o.kernel_families.rules.size()));
  for (const KernelFamilyRule& r : o.kernel_families.rules) {
    w.Put(r.prefix);
    w.Put(r.family);
  }
  w.Put(o.run);
  return w.Take();
}

}  // namespace perfgate::attribution
