// Hand-built attribution results for the report tests, from the figures hf2q published
// in ADR-015 (docs/attribution-method.md §5): iter22 buckets, totals, phases and
// per-trial µs/tok; iter16 label coverage; iter12 encoder families.
#ifndef PERFGATE_TESTS_UNIT_REPORT_REPORT_TEST_DATA_H_
#define PERFGATE_TESTS_UNIT_REPORT_REPORT_TEST_DATA_H_

#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/report/formats.h"

namespace perfgate::report::testdata {

using attribution::Bucket;
using attribution::BucketMedians;
using attribution::Comparison;
using attribution::Delta;
using attribution::EngineSummary;
using attribution::LevelMedians;
using attribution::LevelMedians;
using attribution::TrialMedian;
using attribution::TrialSummary;

// The exact two-sided Mann-Whitney U p-value of two fully separated samples of 5.
constexpr double kSeparatedP = 2.0 / 252.0;

inline std::vector<Bucket> SeedBuckets() {
  return {
      {"xs_<2us", 0, 2000, "rms_norm / reshape / scalar"},
      {"sm_2_8us", 2000, 8000, "rope / soft-cap / small mat-vec"},
      {"md_8_32us", 8000, 32000, "Q4_0 MoE mat-vec_id (gate/up/down), primary Q4_0 attack surface"},
      {"lg_32_80us", 32000, 80000, "flash_attn / pooled mul_mm_id"},
      {"xl_>=80us", 80000, Bucket::kOpenEnd, "prefill mul_mm_id / lm_head / large blits"}};
}

inline TrialMedian M(double median, std::vector<double> per_trial = {}) {
  return TrialMedian{median, std::move(per_trial)};
}

inline BucketMedians B(double sub_per_tok, double p50_us, double us_per_tok) {
  BucketMedians b;
  b.items_per_token = M(sub_per_tok);
  b.p50_us = M(p50_us);
  b.us_per_token = M(us_per_tok);
  return b;
}

inline LevelMedians P(double cbs, double us, double mean_us_per_cb) {
  LevelMedians p;
  p.calls_per_token = M(cbs);
  p.items_per_token = M(cbs);
  p.gpu_us_per_token = M(us);
  p.mean_us_per_call = mean_us_per_cb;
  return p;
}

inline LevelMedians F(double enc, double us) {
  LevelMedians f;
  f.calls_per_token = M(enc);
  f.gpu_us_per_token = M(us, {us});
  return f;
}

// Sets a source count of the trial, adding it after the others when it has none.
inline void SetSourceCount(TrialSummary* t, const std::string& name, int64_t value) {
  for (auto& [key, n] : t->source_counts) {
    if (key == name) {
      n = value;
      return;
    }
  }
  t->source_counts.emplace_back(name, value);
}

inline TrialSummary Trial(const std::string& path, double gpu_us_per_token, double sub_per_tok) {
  TrialSummary t;
  t.path = path;
  t.tokens = 64;
  t.tokens_source = "given";
  t.items = static_cast<int64_t>(sub_per_tok * 64 + 0.5);
  t.items_read = t.items;
  t.source_counts = {{"rows", 2 * t.items_read},
                     {"unpaired_ends", 0},
                     {"leftover_starts", 0},
                     {"duplicate_starts", 0},
                     {"shader_timeline_rows", 0}};
  t.items_per_token = sub_per_tok;
  t.gpu_us_per_token = gpu_us_per_token;
  t.total_sum_ns = static_cast<int64_t>(gpu_us_per_token * 64 * 1000);
  t.busy_union_ns = t.total_sum_ns;  // serial submissions: union == sum
  t.busy_us_per_token = gpu_us_per_token;
  return t;
}

// hf2q, iter22: 5 trials.
inline EngineSummary Hf2q() {
  EngineSummary e;
  e.name = "hf2q";
  const std::vector<double> gpu = {9768.9, 9697.5, 9741.1, 9520.9, 9735.6};
  for (size_t i = 0; i < gpu.size(); ++i) {
    e.trials.push_back(Trial("recordings/hf2q/trial-" + std::to_string(i + 1), gpu[i], 44.2));
  }
  e.trials[0].labelled_units = 2583;  // iter16 coverage
  e.trials[0].phase_units = 2786;
  SetSourceCount(&e.trials[0], "unpaired_ends", 3);
  e.trials[0].diagnostics.AddCount("attr.unpaired_end", 3);
  e.diagnostics.AddCount("attr.unpaired_end", 3);
  e.trials[0].buckets = {{"xl_>=80us", {2694, 175000000, 194230, 560000, 64960}}};
  SetSourceCount(&e.trials[0], "gpu_intervals_union_ns", e.trials[0].busy_union_ns - 64000);  // 1.0 µs/tok less
  e.items_per_token = M(44.2, std::vector<double>(5, 44.2));
  e.gpu_us_per_token = M(9735.6, gpu);
  e.busy_us_per_token = M(9735.6, gpu);
  e.buckets = {{"xs_<2us", B(0.0, 0, 0.0)},
               {"sm_2_8us", B(1.0, 6.21, 5.4)},
               {"md_8_32us", B(0.8, 16.21, 12.8)},
               {"lg_32_80us", B(0.3, 52.17, 14.8)},
               {"xl_>=80us", B(42.1, 194.23, 9703.2)}};
  e.families = {{"compute", F(13.7, 3711.0)}};
  e.phases = {{"layer.attn_moe_ffn", P(39.38, 7779.8, 197.6)},
                    {"Command Buffer 0", P(3.17, 1362.7, 429.9)},
                    {"output_head.fused_norm_lm_argmax", P(0.98, 556.2, 567.6)}};
  e.kernel_registry = {{"moe_q4_0_mv", {"kernel_mul_mv_id_q4_0_f32"}},
                       {"rms_norm", {"kernel_rms_norm_f32", "kernel_rms_norm_fuse_f32"}}};
  e.label_coverage = 2583.0 / 2786.0;
  return e;
}

// llama-completion b8680, iter22: 5 trials.
inline EngineSummary Llama() {
  EngineSummary e;
  e.name = "llama";
  const std::vector<double> gpu = {8944.5, 8937.5, 8935.0, 8973.8, 8917.9};
  for (size_t i = 0; i < gpu.size(); ++i) {
    e.trials.push_back(Trial("recordings/llama/trial-" + std::to_string(i + 1), gpu[i], 3.3));
  }
  e.items_per_token = M(3.3, std::vector<double>(5, 3.3));
  e.gpu_us_per_token = M(8937.5, gpu);
  e.busy_us_per_token = M(8937.5, gpu);
  e.buckets = {{"xs_<2us", B(0.0, 0, 0.0)},
               {"sm_2_8us", B(1.0, 3.79, 4.0)},
               {"md_8_32us", B(0.2, 16.65, 3.6)},
               {"lg_32_80us", B(0.0, 0, 0.0)},
               {"xl_>=80us", B(2.0, 6875.60, 8930.3)}};
  e.families = {{"compute", F(2.0, 7829.9)}, {"blit", F(0.91, 3.4)}};
  e.phases = {{"Command Buffer 0", P(3.05, 8933.8, 2929.1)}};
  e.label_coverage = 0;
  return e;
}

inline Delta D(const std::string& name, double engine, double baseline, double p = kSeparatedP) {
  Delta d;
  d.name = name;
  d.engine = engine;
  d.baseline = baseline;
  d.delta = engine - baseline;
  if (baseline != 0) d.delta_pct = d.delta / baseline * 100.0;
  d.p_value = p;
  return d;
}

inline Comparison Iter22Comparison() {
  Comparison c;
  c.engine = "hf2q";
  c.baseline = "llama";
  c.buckets = {D("xs_<2us", 0.0, 0.0, 1.0), D("sm_2_8us", 5.4, 4.0), D("md_8_32us", 12.8, 3.6),
               D("lg_32_80us", 14.8, 0.0), D("xl_>=80us", 9703.2, 8930.3)};
  c.total = D("total", 9735.6, 8937.5);
  c.items_per_token = D("submissions_per_token", 44.2, 3.3);
  c.attack_target = "xl_>=80us";
  c.attack_hint = "prefill mul_mm_id / lm_head / large blits";
  c.families = {D("blit", 0.0, 3.4), D("compute", 3711.0, 7829.9)};
  c.phases = {D("layer.attn_moe_ffn", 7779.8, 0.0), D("Command Buffer 0", 1362.7, 8933.8),
              D("output_head.fused_norm_lm_argmax", 556.2, 0.0)};
  return c;
}

// The two-engine iter22 report.
inline Report Iter22() {
  Report r;
  r.engines = {Hf2q(), Llama()};
  r.comparison = Iter22Comparison();
  r.buckets = SeedBuckets();
  r.seed_compat = true;
  return r;
}

// The engine alone: no comparison.
inline Report EngineOnly() {
  Report r;
  r.engines = {Hf2q()};
  r.buckets = SeedBuckets();
  return r;
}

// The iter22 report as if every trial came from trace-event JSON (kernels, not
// submissions joined to encoders).
inline Report Iter22FromTraceJson() {
  Report r = Iter22();
  for (auto& e : r.engines) {
    for (auto& t : e.trials) t.source = "trace_json";
  }
  return r;
}

// Splits text into lines (without the newlines).
inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Columns of a UTF-8 line: one per code point.
inline size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first line containing `needle`, or "".
inline std::string LineWith(const std::string& text, const std::string& needle) {
  for (const auto& l : SplitLines(text)) {
    if (l.find(needle) != std::string::npos) return l;
  }
  return "";
}

// The whitespace-separated fields of a line.
inline std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// The number tokens of a JSON text, in order (string contents skipped).
inline std::vector<std::string> JsonNumberTokens(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < text.size() && std::string_view("0123456789+-.eE").find(text[j]) != std::string_view::npos) ++j;
      out.push_back(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

// The significant digits of a decimal number's text ("0.0012500e+03" -> "125").
inline std::string SignificantDigits(const std::string& number) {
  std::string digits;
  for (char c : number.substr(0, number.find_first_of("eE"))) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  digits.erase(0, first);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return digits;
}

// The significant digits of the shortest decimal that reads back as exactly `v`.
inline std::string ShortestDigits(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return SignificantDigits(std::string(buf, r.ptr));
}

// The shortest text that reads back as exactly `v` (for failure messages).
inline std::string Exact(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// The bits of a double: equal bits, identical double (0.0 and -0.0 differ).
inline uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace perfgate::report::testdata

#endif  // PERFGATE_TESTS_UNIT_REPORT_REPORT_TEST_DATA_H_
