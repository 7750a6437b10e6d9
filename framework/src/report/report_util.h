// Private helpers shared by the report formats: which summary is the engine and which
// the baseline, UTF-8-aware padding and truncation, number formats and escaping.
#ifndef PERFGATE_SRC_REPORT_REPORT_UTIL_H_
#define PERFGATE_SRC_REPORT_REPORT_UTIL_H_

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text_input.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/report/formats.h"
#include "perfgate/sources/source.h"

namespace perfgate::report::util {

// The summaries a report compares. `baseline` is null without a comparison; with one
// it always points somewhere (an empty summary when the report lacks it).
struct Sides {
  const attribution::EngineSummary* engine = nullptr;  // null only when nothing was summarised
  const attribution::EngineSummary* baseline = nullptr;
};

inline const attribution::EngineSummary& EmptySummary() {
  static const attribution::EngineSummary kEmpty;
  return kEmpty;
}

inline Sides FindSides(const Report& report) {
  Sides sides;
  const auto& engines = report.engines;
  auto find = [&](const std::string& name,
                  const attribution::EngineSummary* not_this) -> const attribution::EngineSummary* {
    for (const auto& e : engines) {
      if (e.name == name && &e != not_this) return &e;
    }
    return nullptr;
  };
  if (!report.comparison) {
    if (!engines.empty()) sides.engine = &engines[0];
    return sides;
  }
  const auto& c = *report.comparison;
  sides.engine = find(c.engine, nullptr);
  if (sides.engine == nullptr) sides.engine = engines.empty() ? &EmptySummary() : &engines[0];
  sides.baseline = find(c.baseline, sides.engine);
  if (sides.baseline == nullptr) {
    for (const auto& e : engines) {
      if (&e != sides.engine) {
        sides.baseline = &e;
        break;
      }
    }
  }
  if (sides.baseline == nullptr) sides.baseline = &EmptySummary();
  return sides;
}

// The display name of a side: the summary's name, else the comparison's, else a role.
inline std::string SideName(const Report& report, const attribution::EngineSummary* s,
                            bool is_baseline) {
  if (s != nullptr && !s->name.empty()) return s->name;
  if (report.comparison)
    return is_baseline ? report.comparison->baseline : report.comparison->engine;
  return is_baseline ? "baseline" : "engine";
}

// The source every trial of the report came from, or nullptr when the engines mix
// sources (or there are none): the report's words come from its descriptor.
inline const sources::TraceSource* SourceOf(const Report& report) {
  const sources::TraceSource* found = nullptr;
  for (const auto& e : report.engines) {
    if (e.trials.empty()) continue;  // an engine without trials names no source
    const sources::TraceSource* s = sources::SourceOf(e);
    if (s == nullptr || (found != nullptr && found != s)) return nullptr;
    found = s;
  }
  return found;
}

// True when every trial counts kernels (profiler trace-event JSON), where a dispatch is
// one kernel event and families are kernel families, not encoder families.
inline bool IsTraceJson(const Report& report) {
  const sources::TraceSource* s = SourceOf(report);
  return s != nullptr && s->descriptor.unit == sources::Unit::kKernel;
}

// The words every format uses for what the tables and charts count: those of the
// report's source; mixed or unknown sources read as Metal's.
inline const sources::SourceWords& WordsOf(const Report& report) {
  const sources::TraceSource* s = SourceOf(report);
  if (s == nullptr) s = &sources::BuiltinSources().front();
  return s->descriptor.words;
}

// `word` + "/tok": a per-token column ("sub/tok", "kern/tok").
inline std::string PerTok(std::string_view word) { return std::string(word) + "/tok"; }

inline std::string Capitalized(std::string word) {
  if (!word.empty() && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
  return word;
}

// The hint to print for a bucket: `given` (the attack target's, when set) or the
// configured one, or "". The default buckets' hints name llama.cpp's Metal kernels
// (Q4_0 mat-vec_id, mul_mm_id), so a kernel source's report prints none of them; a
// hint the user configured is printed for every source.
inline std::string BucketHint(const Report& report, std::string_view bucket, std::string given = "") {
  if (given.empty()) {
    for (const auto& b : report.buckets) {
      if (b.name == bucket) given = b.hint;
    }
  }
  if (IsTraceJson(report)) {
    for (const auto& d : attribution::DefaultBuckets()) {
      if (d.name == bucket && d.hint == given) return "";
    }
  }
  return given;
}

// Columns a UTF-8 string occupies: one per code point (no wide characters expected).
inline size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// `s` cut to at most `width` columns, ending in "…" when cut; never splits a code point.
inline std::string Truncate(std::string_view s, size_t width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::string out;
  size_t cols = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0)
      len = 4;
    else if (c >= 0xE0)
      len = 3;
    else if (c >= 0xC0)
      len = 2;
    if (cols + 1 > width - 1) break;
    out.append(s.substr(i, len));
    ++cols;
    i += len;
  }
  return out + "\xE2\x80\xA6";  // …
}

// The byte offset where column `col` of `s` starts (s.size() past its end).
inline size_t ByteOfColumn(std::string_view s, size_t col) {
  size_t code_point = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (code_point++ == col) return i;
  }
  return s.size();
}

// `s` cut to at most `width` columns by an ellipsis in the middle, keeping the end
// where names that share a long prefix differ (triton_poi_fused_…_view_5).
inline std::string TruncateMiddle(std::string_view s, size_t width) {
  const size_t n = DisplayWidth(s);
  if (n <= width) return std::string(s);
  if (width < 8) return Truncate(s, width);
  const size_t tail = std::min<size_t>(16, (width - 1) / 2);
  return Truncate(s, width - tail) + std::string(s.substr(ByteOfColumn(s, n - tail)));
}

// `text` in lines of at most `first` columns (the first line) and `rest` (the others,
// at least 1), broken at spaces; a word wider than a line (a kernel name) is broken
// where the line ends rather than cut, so that nothing is lost.
inline std::vector<std::string> WrapLines(std::string_view text, size_t first, size_t rest) {
  std::vector<std::string> lines(1);
  size_t room = first;
  auto next_line = [&] {
    lines.emplace_back();
    room = std::max<size_t>(rest, 1);
  };
  for (size_t i = 0; i <= text.size();) {
    const size_t end = std::min(text.find(' ', i), text.size());
    std::string_view word = text.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    const size_t gap = lines.back().empty() ? 0 : 1;
    if (DisplayWidth(lines.back()) + gap + DisplayWidth(word) > room && !lines.back().empty()) next_line();
    while (DisplayWidth(word) > room) {
      const size_t cut = ByteOfColumn(word, room);
      lines.back() += std::string(word.substr(0, cut));
      word.remove_prefix(cut);
      next_line();
    }
    lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
  }
  return lines;
}

// Right-aligned in `width` columns (never truncated: numbers must stay whole).
inline std::string Right(std::string_view s, size_t width) {
  size_t w = DisplayWidth(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

// Left-aligned in exactly `width` columns, truncated with an ellipsis when longer.
inline std::string Left(std::string_view s, size_t width) {
  std::string t = Truncate(s, width);
  return t + std::string(width - DisplayWidth(t), ' ');
}

// `s` centred in `width` columns filled with `fill`.
inline std::string Center(std::string_view s, size_t width, char fill) {
  std::string t = Truncate(s, width);
  size_t w = DisplayWidth(t);
  size_t left = (width - w) / 2;
  return std::string(left, fill) + t + std::string(width - w - left, fill);
}

// printf("%.*f"), with a negative zero printed without its sign.
inline std::string Fixed(double v, int precision) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// printf("%+.*f"): always signed, "+0.0" rather than "-0.0".
inline std::string Signed(double v, int precision) {
  std::string s = Fixed(v, precision);
  if (s == "n/a") return s;
  return s[0] == '-' ? s : "+" + s;
}

// A signed percentage ("+8.9%"), or "n/a".
inline std::string Percent(std::optional<double> pct, int precision = 1) {
  if (!pct || !std::isfinite(*pct)) return "n/a";
  return Signed(*pct, precision) + "%";
}

// Δ as a percentage of `base`, nullopt when the base is 0.
inline std::optional<double> PercentOf(double delta, double base) {
  if (base == 0) return std::nullopt;
  return delta / base * 100.0;
}

// A p-value: "0.008", or "<0.001".
inline std::string PValue(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 0.001) return "<0.001";
  return Fixed(p, 3);
}

// The shortest decimal text that reads back (strtod, any JSON parser) as exactly `v`:
// std::to_chars' shortest round-trip digits, laid out as nlohmann::json lays out a
// double (plain decimal while the decimal point is within 15 digits of the first digit
// and at most 4 places after it, "d.ddde+XX" otherwise, ".0" appended to an integral
// value so that it stays a floating-point number). "null" for NaN and infinities.
// nlohmann's own Grisu2 output always round-trips but is one digit longer than
// needed for a few values in ten thousand (139.0790393380626 -> 139.07903933806261).
inline std::string ShortestDouble(double v) {
  if (!std::isfinite(v)) return "null";
  char sci[64];
  const auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  std::string_view text(sci, static_cast<size_t>(res.ptr - sci));  // [-]d[.ddd]e(+|-)XX
  std::string out;
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // v = 0.digits x 10^n
  constexpr int kMinExp = -4, kMaxExp = 15;
  if (k <= n && n <= kMaxExp) {
    out += digits + std::string(static_cast<size_t>(n - k), '0') + ".0";
  } else if (0 < n && n <= kMaxExp) {
    out += digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
  } else if (kMinExp < n && n <= 0) {
    out += "0." + std::string(static_cast<size_t>(-n), '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    const int x = n - 1;  // |x| <= 324
    out += x < 0 ? "e-" : "e+";
    out += (std::abs(x) < 10 ? "0" : "") + std::to_string(std::abs(x));
  }
  return out;
}

// Text in a Markdown table cell: pipes escaped and line breaks as spaces, so the row
// keeps its columns.
inline std::string MarkdownCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// A name as inline code; pipes stay escaped so tables keep their columns.
inline std::string MarkdownCode(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '`')
      out += '\'';
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "`";
}

// `document` in the JSON report's layout (json_report.cc): sorted keys (an object under a
// "buckets" key keeps its order), 2-space indent, every double ShortestDouble's text, a
// trailing newline. For other machine-readable output.
std::string RenderLosslessJson(const nlohmann::ordered_json& document);

// The last component of a path ("a/b/trial-1/" -> "trial-1").
inline std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Escapes the five XML special characters.
inline std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

// The value of a named per-engine map entry, or a default-constructed one.
template <typename Map>
const typename Map::mapped_type& FindOr(const Map& map, const std::string& key) {
  static const typename Map::mapped_type kEmpty{};
  auto it = map.find(key);
  return it == map.end() ? kEmpty : it->second;
}

// The bucket medians named `name` in an engine summary, or zeros.
inline const attribution::BucketMedians& FindBucket(const attribution::EngineSummary& s,
                                                    const std::string& name) {
  static const attribution::BucketMedians kEmpty{};
  for (const auto& [n, b] : s.buckets) {
    if (n == name) return b;
  }
  return kEmpty;
}

// Phases of one engine sorted by median GPU µs/token, descending (name breaks ties).
inline std::vector<std::string> PhasesByGpu(const attribution::EngineSummary& s) {
  std::vector<std::string> names;
  for (const auto& [name, m] : s.cb_label_gpu) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return s.cb_label_gpu.at(a).gpu_us_per_token.median >
           s.cb_label_gpu.at(b).gpu_us_per_token.median;
  });
  return names;
}

// How a table shows the kernel names of its sides: each full name's display string,
// no two alike, and the full names whose string is numbered.
struct KernelLabels {
  std::map<std::string, std::string> text;  // full name -> display string
  std::set<std::string> numbered;           // full names shown as "… #k"
  const std::string& at(const std::string& full) const { return text.at(full); }
};

// No cut: KernelDisplayNames' width for the labels a column is fitted to.
inline constexpr size_t kWholeLabel = static_cast<size_t>(-1);

// `short_name` cut in the middle so that " #k" still fits in `width` columns.
inline std::string NumberedLabel(std::string_view short_name, int k, size_t width) {
  const std::string suffix = " #" + std::to_string(k);
  return TruncateMiddle(short_name, width > suffix.size() ? width - suffix.size() : 0) + suffix;
}

// The display strings of the kernel names of `sides` (nulls skipped) in a column of
// `width`: the short name cut in the middle to the width (TruncateMiddle), or, where
// several full names would read alike (a shared short name, or cuBLAS names that
// differ only between the ends the cut keeps), "SHORT… #k", numbered in full-name
// order, so that no two rows read alike. A number another name already reads as is
// skipped.
inline KernelLabels KernelDisplayNames(const std::vector<const attribution::EngineSummary*>& sides,
                                       size_t width = kWholeLabel) {
  std::map<std::string, std::string> short_of;  // full name -> short name (first side's)
  for (const attribution::EngineSummary* s : sides) {
    if (s == nullptr) continue;
    for (const auto& [name, k] : s->kernel_names) short_of.emplace(name, k.short_name.empty() ? name : k.short_name);
  }
  std::map<std::string, std::vector<std::string>> by_cut;  // cut short name -> its full names, in order
  for (const auto& [name, short_name] : short_of) by_cut[TruncateMiddle(short_name, width)].push_back(name);
  KernelLabels out;
  std::set<std::string> taken;
  for (const auto& [cut, names] : by_cut) {
    if (names.size() > 1) continue;
    out.text[names[0]] = cut;
    taken.insert(cut);
  }
  for (const auto& [cut, names] : by_cut) {
    if (names.size() == 1) continue;
    int k = 0;
    for (const std::string& name : names) {
      std::string label;
      do {
        label = NumberedLabel(short_of.at(name), ++k, width);
      } while (!taken.insert(label).second);
      out.text[name] = std::move(label);
      out.numbered.insert(name);
    }
  }
  return out;
}

// A full kernel name without what every name of its kind repeats: a leading "void ",
// the parameter list and the namespaces at::native::, at::, c10::, std:: and
// (anonymous namespace)::. What is left tells apart names that share a short name.
inline std::string CompactKernelName(std::string_view full) {
  std::string s(full);
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (s[i] == '(' && depth == 0 && s.compare(i, 21, "(anonymous namespace)") != 0) {
      s.erase(i);
      break;
    }
  }
  for (std::string_view ns : {"(anonymous namespace)::", "at::native::", "at::", "c10::", "std::"}) {
    for (size_t at = s.find(ns); at != std::string::npos; at = s.find(ns, at)) s.erase(at, ns.size());
  }
  return s;
}

// The numbered display names among `names`, in that order, each with what tells it
// apart: its compact full name, or the whole name where two compact names are alike
// (names that differ only in their parameters).
inline std::vector<std::pair<std::string, std::string>> NumberedKernelNames(const std::vector<std::string>& names,
                                                                            const KernelLabels& labels) {
  std::map<std::string, int> compacts;
  for (const std::string& name : names) {
    if (labels.numbered.count(name) != 0) ++compacts[CompactKernelName(name)];
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& name : names) {
    if (labels.numbered.count(name) == 0) continue;
    std::string compact = CompactKernelName(name);
    out.emplace_back(labels.at(name), compacts[compact] > 1 ? name : compact);
  }
  return out;
}

// An engine's kernel names by median GPU µs/token, descending (full name breaks ties).
inline std::vector<std::string> KernelNamesByGpu(const attribution::EngineSummary& s) {
  std::vector<std::string> names;
  for (const auto& [name, k] : s.kernel_names) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return s.kernel_names.at(a).gpu_us_per_token.median > s.kernel_names.at(b).gpu_us_per_token.median;
  });
  return names;
}

// The kernel-name Δs a table shows: the `limit` with the largest |Δ| (all when `limit`
// is 0), in the comparison's order (Δ descending).
inline std::vector<attribution::Delta> KernelDeltasShown(const std::vector<attribution::Delta>& deltas,
                                                         size_t limit) {
  if (limit == 0 || deltas.size() <= limit) return deltas;
  std::vector<size_t> order(deltas.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::fabs(deltas[a].delta) > std::fabs(deltas[b].delta);
  });
  order.resize(limit);
  std::sort(order.begin(), order.end());
  std::vector<attribution::Delta> out;
  for (size_t i : order) out.push_back(deltas[i]);
  return out;
}

// "3/3": the trials that ran a kernel name, of the engine's trials.
inline std::string TrialsRan(const attribution::KernelNameMedians& k, const attribution::EngineSummary& s) {
  return std::to_string(k.trials) + "/" + std::to_string(s.trials.size());
}

// --- the engine's own counters (counters.txt), labelled apart from the trace's figures ---

// One row of the counters table: a counter (or the trace's own count, last) with one
// cell per side ("—" where a side lacks it) and where its figures came from.
struct CounterRow {
  std::string name;
  std::string source;  // "engine counters" or "trace"
  std::vector<std::string> cells;
};

// A counter's median as the reports write it: the trials' common text when they agree
// (lossless), else the median to 2 decimals.
std::string CounterCell(const attribution::CounterMedian& c);

// True when any side has counters of its own.
bool AnyCounters(const std::vector<const attribution::EngineSummary*>& sides);

// Every counter of any side (numeric, then text), then the trace's count per token
// (submissions for Metal, kernels for kernel sources) so a reader sees the engine's
// dispatches beside what the trace could count (counter_rows.cc).
std::vector<CounterRow> CounterRows(const std::vector<const attribution::EngineSummary*>& sides);

}  // namespace perfgate::report::util

#endif  // PERFGATE_SRC_REPORT_REPORT_UTIL_H_
