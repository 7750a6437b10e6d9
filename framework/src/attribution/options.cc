#include "perfgate/attribution/options.h"

#include <cctype>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/text_input.h"

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

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

Status UsageError(std::string message) {
  return Status::Error("cli.usage", std::move(message), {}, ErrorKind::kUsage);
}

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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number such as 1e999.
    return Status::Error("families.bad_json", e.what(), {path});
  }
  KernelFamilyTable t;
  if (!j.is_object() || !j.contains("rules") || !j["rules"].is_array()) {
    return Status::Error("families.bad_table", "expected {\"rules\": [{\"prefix\", \"family\"}, ...]}", {path});
  }
  if (j.contains("strip_prefix")) {
    if (!j["strip_prefix"].is_string()) return Status::Error("families.bad_table", "strip_prefix must be a string", {path});
    t.strip_prefix = j["strip_prefix"].get<std::string>();
  }
  for (size_t i = 0; i < j["rules"].size(); ++i) {
    const auto& r = j["rules"][i];
    if (!r.is_object() || !r.contains("prefix") || !r.contains("family") || !r["prefix"].is_string() ||
        !r["family"].is_string() || r["prefix"].get<std::string>().empty()) {
      return Status::Error("families.bad_table",
                           "rules[" + std::to_string(i) + "] needs non-empty string prefix and family", {path});
    }
    t.rules.push_back({r["prefix"].get<std::string>(), r["family"].get<std::string>()});
  }
  return t;
}

StatusOr<DecodeWindow> ParseWindow(std::string_view spec) {
  auto parts = Split(spec, ':');
  if (parts[0] == "label" && parts.size() >= 2) {
    // The label is everything after "label:", colons included.
    std::string label(spec.substr(6));
    if (label.empty()) return UsageError("--window label: needs a label");
    return DecodeWindow::Label(std::move(label));
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
  return UsageError("--window '" + std::string(spec) + "': expected label:NAME, time:START_NS:END_NS or skip:N");
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

}  // namespace perfgate::attribution
