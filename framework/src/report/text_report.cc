// The text report: the seed's write_report() sections and column layouts, narrowed to
// 110 columns, with units named honestly and the pairing and filter counts printed.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/report/diff_formats.h"
#include "perfgate/report/formats.h"
#include "perfgate/stats/summary.h"
#include "core/string_util.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using attribution::TrialSummary;
using util::Center;
using util::Fixed;
using util::Left;
using util::Percent;
using util::PValue;
using util::Right;
using util::Signed;

constexpr size_t kWidth = 110;

// Collects lines; any line longer than kWidth is cut with an ellipsis (a safety net:
// every layout below is designed to fit).
class Lines {
 public:
  void Add(const std::string& line) {
    std::string l = line;
    while (!l.empty() && l.back() == ' ') l.pop_back();
    lines_.push_back(util::Truncate(l, kWidth));
  }
  void Blank() { lines_.emplace_back(); }
  void Rule(char c) { lines_.push_back(std::string(kWidth, c)); }
  void Banner(const std::string& title) {
    Rule('=');
    Add(title);
    Rule('=');
  }
  // `prefix` then the items separated by ", " (the last followed by `suffix`),
  // continuing on indented lines when the width would be exceeded.
  void AddWrapped(const std::string& prefix, const std::vector<std::string>& items,
                  const std::string& suffix = "") {
    const std::string indent(std::min<size_t>(util::DisplayWidth(prefix), 40), ' ');
    std::string line = prefix;
    for (size_t i = 0; i < items.size(); ++i) {
      std::string piece = items[i] + (i + 1 < items.size() ? "," : suffix);
      if (i > 0 && util::DisplayWidth(line) + 1 + util::DisplayWidth(piece) > kWidth) {
        Add(line);
        line = indent;
      }
      line += " " + piece;
    }
    if (items.empty()) line += suffix;
    Add(line);
  }
  // Word-wraps `text` to the line width: the first line starts with `first`, the
  // others with `rest`.
  void Paragraph(const std::string& first, const std::string& rest, const std::string& text) {
    std::string line = first;
    bool empty = true;
    size_t i = 0;
    while (i < text.size()) {
      size_t j = text.find(' ', i);
      if (j == std::string::npos) j = text.size();
      std::string word = text.substr(i, j - i);
      i = j + 1;
      if (word.empty()) continue;
      if (!empty && util::DisplayWidth(line) + 1 + util::DisplayWidth(word) > kWidth) {
        Add(line);
        line = rest;
        empty = true;
      }
      line += (empty ? "" : " ") + word;
      empty = false;
    }
    Add(line);
  }
  std::string Join() const {
    std::string out;
    for (const auto& l : lines_) {
      out += l;
      out += '\n';
    }
    return out;
  }

 private:
  std::vector<std::string> lines_;
};

// One column of a table: header text, width and alignment.
struct Col {
  std::string header;
  size_t width;
  bool left = false;
};

std::string Row(const std::vector<Col>& cols, const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i > 0) line += ' ';
    const std::string& cell = i < cells.size() ? cells[i] : std::string();
    line += cols[i].left ? Left(cell, cols[i].width) : Right(cell, cols[i].width);
  }
  return line;
}

std::string Header(const std::vector<Col>& cols) {
  std::vector<std::string> cells;
  for (const auto& c : cols) cells.push_back(c.header);
  return Row(cols, cells);
}

// A line of dashed group titles ("--- hf2q (engine) ---") over column ranges
// [first, last] of `cols`; the other columns stay blank.
struct Group {
  size_t first;
  size_t last;
  std::string title;
};
std::string GroupHeader(const std::vector<Col>& cols, const std::vector<Group>& groups) {
  std::string line;
  size_t i = 0;
  while (i < cols.size()) {
    if (i > 0) line += ' ';
    const Group* g = nullptr;
    for (const auto& gr : groups) {
      if (gr.first == i) g = &gr;
    }
    if (g == nullptr) {
      line += std::string(cols[i].width, ' ');
      ++i;
      continue;
    }
    size_t span = 0;
    for (size_t k = g->first; k <= g->last; ++k) span += cols[k].width + (k > g->first ? 1 : 0);
    line += Center(" " + g->title + " ", span, '-');
    i = g->last + 1;
  }
  return line;
}

// Widens every other column to its header and the first (label) column to the longest
// label, as far as the line width allows; longer labels are cut with an ellipsis.
void FitFirstColumn(std::vector<Col>& cols, const std::vector<std::string>& labels) {
  size_t rest = 0;
  for (size_t i = 1; i < cols.size(); ++i) {
    cols[i].width = std::max(cols[i].width, util::DisplayWidth(cols[i].header));  // a source's longer words
    rest += 1 + cols[i].width;
  }
  size_t want = cols[0].width;
  for (const auto& l : labels) want = std::max(want, util::DisplayWidth(l));
  cols[0].width = std::min(want, kWidth - rest);
}

std::string RuleFor(const std::vector<Col>& cols) {
  return std::string(util::DisplayWidth(Header(cols)), '-');
}

double Spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 ? (*hi - *lo) / *lo * 100.0 : 0;
}

std::vector<std::string> FormatAll(const std::vector<double>& v, int precision) {
  std::vector<std::string> out;
  for (double x : v) out.push_back(Fixed(x, precision));
  return out;
}

// ---- Sections ---------------------------------------------------------------

void Methodology(const Report& report, Lines& out) {
  const sources::SourceWords& words = util::WordsOf(report);
  out.Add("Method:");
  out.Paragraph(" - ", "   ", std::string(words.method_note));
  out.Paragraph(" - ", "   ", std::string(words.figures_note));
  if (!words.method_details.empty()) {
    for (std::string_view paragraph : Split(words.method_details, '\n')) out.Paragraph(" - ", "   ", std::string(paragraph));
  }
  if (util::SeedCompatApplies(report)) {
    out.Paragraph(" - ", "   ",
                  report.seed_compat
                      ? "Mode: seed-compatible: whole trace, every process, the seed's pairing and "
                        "p95, as in hf2q ADR-015."
                      : "Mode: corrected: target process only, decode window, FIFO pairing, "
                        "nearest-rank percentiles.");
  }
  out.Blank();
}

void TrialLines(const TrialSummary& t, Lines& out) {
  auto source = sources::FindSource(t.source);
  const sources::SourceWords& words =
      (source.ok() ? *source : &sources::BuiltinSources().front())->descriptor.words;
  out.Add("  - " + util::Truncate(util::BaseName(t.path), 36) + ": " + std::string(words.units) + "=" +
          Right(std::to_string(t.items), 6) + " (" + Fixed(t.items_per_token, 1) +
          "/tok), gpu=" + Fixed(t.gpu_us_per_token, 1) +
          " µs/tok summed, " + Fixed(t.busy_us_per_token, 1) + " µs/tok busy (union)");
  // The source's own counts of its records, in its words (times are shown below),
  // continued on a further line rather than cut at the report's width.
  std::string read = "      read: " + std::to_string(t.items_read) + " " + std::string(words.units);
  const char* separator = "; ";
  for (const auto& [name, n] : t.source_counts) {
    if (EndsWith(name, "_ns")) continue;
    std::string piece = name + " " + std::to_string(n);
    std::replace(piece.begin(), piece.end(), '_', ' ');
    if (util::DisplayWidth(read) + std::string(separator).size() + piece.size() > kWidth) {
      out.Add(read + ",");
      read = "        " + piece;
    } else {
      read += separator + piece;
    }
    separator = ", ";
  }
  out.Add(read);
  out.Add("      excluded: other process " + std::to_string(t.excluded_other_process) + ", no owner " +
          std::to_string(t.excluded_no_owner) + ", unnamed owner " + std::to_string(t.excluded_unnamed_owner) +
          ", outside window " + std::to_string(t.excluded_outside_window));
  std::string tokens = "      tokens: " + std::to_string(t.tokens) + " (" +
                       (t.tokens_source.empty() ? std::string("given") : t.tokens_source) + ")";
  if (t.tokens_in_trace && *t.tokens_in_trace != t.tokens) {
    tokens += ", " + std::to_string(*t.tokens_in_trace) + " counted in the trace";
  }
  if (const std::optional<int64_t> intervals = attribution::FindSourceCount(t, "gpu_intervals_union_ns")) {
    double us = static_cast<double>(*intervals) / 1000.0 / static_cast<double>(std::max<int64_t>(t.tokens, 1));
    tokens += " | gpu-intervals union " + Fixed(us, 1) + " µs/tok (" +
              Percent(util::PercentOf(static_cast<double>(*intervals - t.busy_union_ns),
                                      static_cast<double>(t.busy_union_ns)),
                      2) +
              " vs busy)";
  }
  out.Add(tokens);
}

void Inputs(const Report& report, Lines& out) {
  out.Add("Inputs:");
  for (const auto& e : report.engines) {
    out.Add(" " + e.name + " trials: " + std::to_string(e.trials.size()));
    for (const auto& t : e.trials) TrialLines(t, out);
  }
  out.Blank();
}

// Rows of the bucket table: for each bucket, the engine and baseline medians, then the
// totals and the unit count per token.
void BucketRows(const Report& report, const util::Sides& sides, Lines& out) {
  const EngineSummary& e = *sides.engine;
  const EngineSummary& b = *sides.baseline;
  const auto& c = *report.comparison;
  std::string en = util::SideName(report, &e, false);
  std::string bn = util::SideName(report, &b, true);
  const sources::SourceWords& words = util::WordsOf(report);
  const std::string dispatch(words.unit), sub(words.unit_abbrev), per_sub = util::PerTok(sub);
  out.Banner("Side-by-side bucketed attribution (medians across trials)");
  out.Paragraph("", "",
                "Columns: " + per_sub + " = " + dispatch + "s per token; p50 µs/" + sub + " = median " + dispatch +
                    " duration (median over trials); p = two-sided Mann-Whitney U over per-trial "
                    "values, n = " +
                    std::to_string(e.trials.size()) + " vs " + std::to_string(b.trials.size()) +
                    " trials.");
  std::vector<Col> cols = {
      {"BUCKET", 14, true}, {per_sub, 9}, {"p50 µs/" + sub, 10}, {"µs/tok", 10}, {per_sub, 9},
      {"p50 µs/" + sub, 10},   {"µs/tok", 10}, {"Δµs/tok", 10},    {"Δ%", 8},      {"p", 6}};
  std::vector<std::string> labels;
  for (const Delta& d : c.buckets) labels.push_back(d.name);
  FitFirstColumn(cols, labels);
  out.Add(GroupHeader(cols, {{1, 3, en + " (engine)"}, {4, 6, bn + " (baseline)"}}));
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  for (const Delta& d : c.buckets) {
    const auto& eb = util::FindBucket(e, d.name);
    const auto& bb = util::FindBucket(b, d.name);
    out.Add(Row(cols, {d.name, Fixed(eb.items_per_token.median, 1), Fixed(eb.p50_us.median, 2),
                       Fixed(d.engine, 1), Fixed(bb.items_per_token.median, 1),
                       Fixed(bb.p50_us.median, 2), Fixed(d.baseline, 1), Signed(d.delta, 1),
                       Percent(d.delta_pct), PValue(d.p_value)}));
  }
  out.Add(RuleFor(cols));
  const Delta& t = c.total;
  out.Add(Row(cols, {"TOTAL", Fixed(e.items_per_token.median, 1), "-", Fixed(t.engine, 1),
                     Fixed(b.items_per_token.median, 1), "-", Fixed(t.baseline, 1),
                     Signed(t.delta, 1), Percent(t.delta_pct), PValue(t.p_value)}));
  const stats::Delta busy = stats::CompareTrials(b.busy_us_per_token.per_trial, e.busy_us_per_token.per_trial);
  out.Add(Row(cols, {"busy (union)", "", "", Fixed(busy.after, 1), "", "", Fixed(busy.before, 1),
                     Signed(busy.delta, 1), Percent(busy.delta_pct), ""}));
  const Delta& s = c.items_per_token;
  out.Add(util::Capitalized(dispatch) + "s/tok: " + Fixed(s.engine, 1) + " vs " + Fixed(s.baseline, 1) +
          ", Δ " + Signed(s.delta, 1) + " (" + Percent(s.delta_pct) + "), p = " + PValue(s.p_value));
  out.Blank();
}

// The seed's md-bucket summary: count/token x p50 = µs/token, Δ as % of the baseline total.
void MdBucketSummary(const Report& report, const util::Sides& sides, Lines& out) {
  const EngineSummary& e = *sides.engine;
  const EngineSummary& b = *sides.baseline;
  const auto& c = *report.comparison;
  const std::string en = util::SideName(report, &e, false);
  const std::string bn = util::SideName(report, &b, true);
  const std::string sub(util::WordsOf(report).unit_abbrev), per_sub = util::PerTok(sub);
  const Delta& t = c.total;
  const std::string md = "md_8_32us";
  auto md_delta = std::find_if(c.buckets.begin(), c.buckets.end(),
                               [&](const Delta& d) { return d.name == md; });
  if (md_delta != c.buckets.end()) {
    std::string hint = util::BucketHint(report, md);
    out.Add(md + " bucket summary" + (hint.empty() ? std::string() : " (" + hint + ")") + ":");
    const auto& eb = util::FindBucket(e, md);
    const auto& bb = util::FindBucket(b, md);
    size_t w = std::max(util::DisplayWidth(en), util::DisplayWidth(bn));
    w = std::min<size_t>(std::max<size_t>(w, 5), 24);
    out.Add("  " + Left(en, w) + ": " + Fixed(eb.items_per_token.median, 1) + " " + per_sub + " × " +
            Fixed(eb.p50_us.median, 2) + " µs/" + sub + " (p50) = " + Fixed(md_delta->engine, 1) +
            " µs/tok");
    out.Add("  " + Left(bn, w) + ": " + Fixed(bb.items_per_token.median, 1) + " " + per_sub + " × " +
            Fixed(bb.p50_us.median, 2) + " µs/" + sub + " (p50) = " + Fixed(md_delta->baseline, 1) +
            " µs/tok");
    out.Add("  " + Left("delta", w) + ": " + Signed(md_delta->delta, 1) + " µs/tok (" +
            Percent(util::PercentOf(md_delta->delta, t.baseline), 2) +
            " of the baseline's total GPU µs/tok)");
    out.Blank();
  }
}

// The bucket that regressed most, its Δ and p, and the kernel class that usually lands
// there.
void AttackTarget(const Report& report, Lines& out) {
  const auto& c = *report.comparison;
  out.Add("Attack target (bucket with the largest positive Δµs/tok): " +
          (c.attack_target ? *c.attack_target : std::string("none: no bucket regressed")));
  if (c.attack_target) {
    auto it = std::find_if(c.buckets.begin(), c.buckets.end(),
                           [&](const Delta& d) { return d.name == *c.attack_target; });
    if (it != c.buckets.end()) {
      out.Add("  Δµs/tok: " + Signed(it->delta, 1) + " (" + Percent(it->delta_pct) +
              "), p = " + PValue(it->p_value));
    }
    std::string hint = util::BucketHint(report, *c.attack_target, c.attack_hint);
    out.Add("  likely kernel class: " + (hint.empty() ? std::string("unknown") : hint));
  }
  out.Blank();
}

// The side-by-side bucket table, the md-bucket summary and the attack target.
void BucketTable(const Report& report, const util::Sides& sides, Lines& out) {
  BucketRows(report, sides, out);
  MdBucketSummary(report, sides, out);
  AttackTarget(report, out);
}

void EngineOnlyBucketTable(const Report& report, const EngineSummary& e, Lines& out) {
  out.Banner(e.name + "-only partial attribution (no baseline given)");
  const std::string sub(util::WordsOf(report).unit_abbrev);
  std::vector<Col> cols = {
      {"BUCKET", 14, true}, {util::PerTok(sub), 10}, {"p50 µs/" + sub, 14}, {"µs/tok", 10}};
  std::vector<std::string> labels;
  for (const auto& [name, b] : e.buckets) labels.push_back(name);
  FitFirstColumn(cols, labels);
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  for (const auto& [name, b] : e.buckets) {
    out.Add(Row(cols, {name, Fixed(b.items_per_token.median, 1), Fixed(b.p50_us.median, 2),
                       Fixed(b.us_per_token.median, 1)}));
  }
  out.Add(RuleFor(cols));
  out.Add(Row(cols, {"TOTAL", Fixed(e.items_per_token.median, 1), "-",
                     Fixed(e.gpu_us_per_token.median, 1)}));
  out.Add(Row(cols, {"busy (union)", "", "", Fixed(e.busy_us_per_token.median, 1)}));
  out.Add("Attack target: n/a (no baseline to compare against)");
  out.Blank();
}

void FamilyTable(const Report& report, const util::Sides& sides, Lines& out) {
  const EngineSummary& e = *sides.engine;
  bool two = sides.baseline != nullptr;
  if (e.families.empty() && (!two || sides.baseline->families.empty()) &&
      (!two || report.comparison->families.empty())) {
    return;
  }
  const std::string per_family(util::WordsOf(report).per_token);
  out.Banner(std::string(util::WordsOf(report).families_banner));
  out.Paragraph("", "", std::string(util::WordsOf(report).families_note));
  out.Blank();
  if (two) {
    const EngineSummary& b = *sides.baseline;
    std::vector<Col> cols = {
        {"family", 14, true}, {per_family, 9}, {"gpu µs/tok", 10}, {per_family, 9},
        {"gpu µs/tok", 10},   {"Δµs/tok", 10}, {"Δ%", 8},          {"p", 6}};
    std::vector<Delta> rows = report.comparison->families;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Delta& x, const Delta& y) { return x.delta > y.delta; });
    std::vector<std::string> labels;
    for (const Delta& d : rows) labels.push_back(d.name);
    FitFirstColumn(cols, labels);
    out.Add(GroupHeader(cols, {{1, 2, util::SideName(report, &e, false)},
                               {3, 4, util::SideName(report, &b, true)}}));
    out.Add(Header(cols));
    out.Add(RuleFor(cols));
    double et = 0, bt = 0;
    for (const Delta& d : rows) {
      et += d.engine;
      bt += d.baseline;
      out.Add(
          Row(cols,
              {d.name, Fixed(util::FindOr(e.families, d.name).calls_per_token.median, 2),
               Fixed(d.engine, 1),
               Fixed(util::FindOr(b.families, d.name).calls_per_token.median, 2),
               Fixed(d.baseline, 1), Signed(d.delta, 1), Percent(d.delta_pct), PValue(d.p_value)}));
    }
    out.Add(RuleFor(cols));
    out.Add(Row(cols, {"TOTAL", "-", Fixed(et, 1), "-", Fixed(bt, 1), Signed(et - bt, 1),
                       Percent(util::PercentOf(et - bt, bt)), ""}));
    out.Blank();
    out.Add("Per-trial family gpu µs/tok:");
    for (const Delta& d : rows) {
      for (const EngineSummary* s : {&e, &b}) {
        auto it = s->families.find(d.name);
        if (it == s->families.end() || it->second.gpu_us_per_token.per_trial.empty()) continue;
        out.AddWrapped("  " + util::Truncate(util::SideName(report, s, s == &b), 16) + " " +
                           util::Truncate(d.name, 40) + ":",
                       FormatAll(it->second.gpu_us_per_token.per_trial, 1));
      }
    }
  } else {
    std::vector<Col> cols = {
        {"family", 14, true}, {per_family, 10}, {"gpu µs/tok", 12}, {"host µs/tok", 12}};
    std::vector<std::string> names;
    for (const auto& [name, f] : e.families) names.push_back(name);
    std::stable_sort(names.begin(), names.end(), [&](const std::string& x, const std::string& y) {
      return e.families.at(x).gpu_us_per_token.median >
             e.families.at(y).gpu_us_per_token.median;
    });
    FitFirstColumn(cols, names);
    out.Add(Header(cols));
    out.Add(RuleFor(cols));
    double total = 0;
    for (const auto& name : names) {
      const auto& f = e.families.at(name);
      total += f.gpu_us_per_token.median;
      out.Add(
          Row(cols, {name, Fixed(f.calls_per_token.median, 2),
                     Fixed(f.gpu_us_per_token.median, 1), Fixed(f.host_us_per_token.median, 1)}));
    }
    out.Add(RuleFor(cols));
    out.Add(Row(cols, {"TOTAL", "-", Fixed(total, 1), ""}));
  }
  out.Blank();
}

// ---- Per-kernel-name GPU time ------------------------------------------------

// "… and 40 more kernel names (…)" when `shown` < `total`.
void MoreNames(size_t shown, size_t total, const std::string& what, Lines& out) {
  if (shown >= total) return;
  out.Paragraph("", "  ", "… and " + std::to_string(total - shown) + " more kernel names " + what +
                              "; --kernel-names all lists every one, the JSON report holds them all.");
}

// The first column fitted to the `shown` names whole, then the names of `sides` as
// that column shows them: cut in the middle (a long shared prefix, triton_poi_fused_…,
// leaves the distinguishing end visible) and numbered where two would read alike.
util::KernelLabels FitKernelColumn(std::vector<Col>& cols, const std::vector<const EngineSummary*>& sides,
                                   const std::vector<std::string>& shown) {
  const util::KernelLabels whole = util::KernelDisplayNames(sides);
  std::vector<std::string> labels;
  for (const std::string& name : shown) labels.push_back(whole.at(name));
  FitFirstColumn(cols, labels);
  return util::KernelDisplayNames(sides, cols[0].width);
}

// What tells apart the shown names that are numbered ("#1", "#2"), each whole: a name
// wider than the line goes on over the next lines rather than being cut.
void NumberedNames(const std::vector<std::string>& shown, const util::KernelLabels& labels, Lines& out) {
  const auto numbered = util::NumberedKernelNames(shown, labels);
  if (numbered.empty()) return;
  out.Add("Numbered names, whole (without void, parameters and the at::native::, c10::, std:: namespaces):");
  for (const auto& [label, compact] : numbered) {
    const std::string first = "  " + label + ": ", rest = "      ";
    const auto lines = util::WrapLines(compact, kWidth - util::DisplayWidth(first), kWidth - rest.size());
    for (size_t i = 0; i < lines.size(); ++i) out.Add((i == 0 ? first : rest) + lines[i]);
  }
}

// The engine's kernel names alone, the most GPU time first.
void KernelNameEngineRows(const Report& report, const EngineSummary& e, Lines& out) {
  const std::vector<std::string> names = util::KernelNamesByGpu(e);
  const size_t shown = report.kernel_name_rows == 0 ? names.size() : std::min(names.size(), report.kernel_name_rows);
  const std::vector<std::string> shown_names(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown));
  std::vector<Col> cols = {{"kernel", 36, true}, {"family", 16, true}, {"calls/tok", 9}, {"µs/tok", 9},
                           {"mean µs", 8},       {"min µs", 8},        {"max µs", 8},    {"trials", 6}};
  const util::KernelLabels labels = FitKernelColumn(cols, {&e}, shown_names);
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  double rest = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const attribution::LevelMedians& k = e.kernels.at(names[i]);
    if (i >= shown) {
      rest += k.gpu_us_per_token.median;
      continue;
    }
    out.Add(Row(cols, {labels.at(names[i]), k.family, Fixed(k.items_per_token.median, 2),
                       Fixed(k.gpu_us_per_token.median, 2), Fixed(k.mean_us, 2), Fixed(k.min_ns / 1000.0, 2),
                       Fixed(k.max_ns / 1000.0, 2), util::TrialsRan(k, e)}));
  }
  out.Add(RuleFor(cols));
  MoreNames(shown, names.size(), "(" + Fixed(rest, 2) + " µs/tok together)", out);
  NumberedNames(shown_names, labels, out);
}

// Engine and baseline per kernel name, by Δ descending: the largest |Δ| when cut.
void KernelNameComparisonRows(const Report& report, const util::Sides& sides, Lines& out) {
  const EngineSummary& e = *sides.engine;
  const EngineSummary& b = *sides.baseline;
  const std::vector<Delta>& all = report.comparison->kernels;
  const std::vector<Delta> rows = util::KernelDeltasShown(all, report.kernel_name_rows);
  std::vector<std::string> shown;
  for (const Delta& d : rows) shown.push_back(d.name);
  std::vector<Col> cols = {{"kernel", 36, true}, {"calls/tok", 9}, {"µs/tok", 9}, {"calls/tok", 9},
                           {"µs/tok", 9},        {"Δµs/tok", 9},   {"Δ%", 8},     {"p", 6}};
  const util::KernelLabels labels = FitKernelColumn(cols, {&e, &b}, shown);
  out.Add(GroupHeader(cols, {{1, 2, util::SideName(report, &e, false)}, {3, 4, util::SideName(report, &b, true)}}));
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  for (const Delta& d : rows) {
    out.Add(Row(cols, {labels.at(d.name),
                       Fixed(util::FindOr(e.kernels, d.name).items_per_token.median, 2),
                       Fixed(d.engine, 2), Fixed(util::FindOr(b.kernels, d.name).items_per_token.median, 2),
                       Fixed(d.baseline, 2), Signed(d.delta, 2), Percent(d.delta_pct), PValue(d.p_value)}));
  }
  out.Add(RuleFor(cols));
  double rest = 0;
  for (const Delta& d : all) rest += d.delta;
  for (const Delta& d : rows) rest -= d.delta;
  MoreNames(rows.size(), all.size(), "with smaller |Δ| (Δ " + Signed(rest, 2) + " µs/tok together)", out);
  NumberedNames(shown, labels, out);
}

// The per-kernel-name table (nsys's cuda_gpu_kern_sum, per token), or the source's
// sentence on why it has none.
void KernelNameTable(const Report& report, const util::Sides& sides, Lines& out) {
  const EngineSummary& e = *sides.engine;
  const bool compared = sides.baseline != nullptr && !report.comparison->kernels.empty();
  out.Banner("Per-kernel-name GPU time");
  // The engine's own source speaks: engines of two sources share one report.
  const std::string note(sources::WordsOf(e).kernel_names);
  if (!compared && e.kernels.empty()) {
    out.Paragraph("", "", note);
    out.Blank();
    return;
  }
  out.Paragraph("", "",
                note + " calls/tok = calls per decode token; mean, min and max are µs per call, pooled over the "
                       "trials that ran the name; trials = trials that ran it (a trial without it counts 0 calls). "
                       "Names that would read alike in the column (a shared short name, or long names alike at both "
                       "ends of the cut) are numbered #1, #2, ... in the order of their full names and listed "
                       "below the table.");
  out.Blank();
  if (compared) {
    KernelNameComparisonRows(report, sides, out);
  } else {
    KernelNameEngineRows(report, e, out);
    if (sides.baseline != nullptr) {
      out.Paragraph("", "", util::SideName(report, sides.baseline, true) + ", so no comparison by name: " +
                                std::string(sources::WordsOf(*sides.baseline).kernel_names));
    }
  }
  out.Blank();
}

struct PhaseRow {
  std::string name;
  double engine = 0;
  double baseline = 0;
  double delta = 0;
  double p_value = 1;
};

// The phases, with a baseline from the comparison by engine µs/tok, else the engine's
// by GPU time.
std::vector<PhaseRow> PhaseRowsOf(const Report& report, const util::Sides& sides) {
  std::vector<PhaseRow> rows;
  if (sides.baseline != nullptr) {
    for (const Delta& d : report.comparison->phases) {
      rows.push_back({d.name, d.engine, d.baseline, d.delta, d.p_value});
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const PhaseRow& x, const PhaseRow& y) { return x.engine > y.engine; });
  } else {
    const EngineSummary& e = *sides.engine;
    for (const auto& name : util::PhasesByGpu(e)) {
      double v = e.phases.at(name).gpu_us_per_token.median;
      rows.push_back({name, v, 0, 0, 1});
    }
  }
  return rows;
}

// The banner, what a phase and its instances are in this source, and the engine's
// label coverage.
void PhaseIntro(const Report& report, const EngineSummary& e, const std::string& en, Lines& out) {
  out.Banner(std::string(util::WordsOf(report).phases_banner));
  out.Paragraph("", "", std::string(util::WordsOf(report).phases_note));
  if (!e.trials.empty()) {
    const TrialSummary& t0 = e.trials[0];
    out.Add(en + " label coverage (trial 0): " + std::to_string(t0.labelled_units) + " / " +
            std::to_string(t0.phase_units) + " " + std::string(util::WordsOf(report).labelled) +
            " carry a phase label (" + Fixed(e.label_coverage * 100.0, 1) + "%)");
  } else {
    out.Add(en + " label coverage: " + Fixed(e.label_coverage * 100.0, 1) + "%");
  }
  out.Blank();
}

// A phase table's column words: "sub/tok", "CB", "CBs/tok" (Metal) or "kern/tok",
// "range", "ranges/tok" (trace-event JSON).
struct PhaseWords {
  std::string per_sub, cb, per_cb;
};

PhaseWords PhaseWordsOf(const Report& report) {
  const sources::SourceWords& words = util::WordsOf(report);
  const std::string cb(words.instance);
  return {util::PerTok(std::string(words.unit_abbrev)), cb, util::PerTok(cb + "s")};
}

// Engine and baseline side by side per phase, with Δ and p, and their totals.
void PhaseComparisonRows(const Report& report, const util::Sides& sides, const std::vector<PhaseRow>& rows,
                         const std::string& en, Lines& out) {
  const EngineSummary& e = *sides.engine;
  const EngineSummary& b = *sides.baseline;
  const PhaseWords w = PhaseWordsOf(report);
  std::vector<std::string> labels;
  for (const auto& r : rows) labels.push_back(r.name);
  std::vector<Col> cols = {{"phase", 36, true}, {w.per_cb, 8},  {w.per_sub, 8},
                           {"µs/tok", 9},       {"µs/" + w.cb, 8}, {w.per_cb, 8},
                           {"µs/tok", 9},       {"Δµs/tok", 9}, {"p", 6}};
  FitFirstColumn(cols, labels);
  out.Add(GroupHeader(cols, {{1, 4, en}, {5, 6, util::SideName(report, &b, true)}}));
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  double et = 0, bt = 0;
  for (const auto& r : rows) {
    const auto& ep = util::FindOr(e.phases, r.name);
    const auto& bp = util::FindOr(b.phases, r.name);
    et += r.engine;
    bt += r.baseline;
    out.Add(Row(cols, {r.name, Fixed(ep.calls_per_token.median, 2), Fixed(ep.items_per_token.median, 2),
                       Fixed(r.engine, 1), Fixed(ep.mean_us_per_call, 1), Fixed(bp.calls_per_token.median, 2),
                       Fixed(r.baseline, 1), Signed(r.delta, 1), PValue(r.p_value)}));
  }
  out.Add(RuleFor(cols));
  out.Add(Row(cols, {"TOTAL", "-", "-", Fixed(et, 1), "", "-", Fixed(bt, 1), Signed(et - bt, 1), ""}));
}

// The engine's phases alone, and their total.
void PhaseEngineRows(const Report& report, const EngineSummary& e, const std::vector<PhaseRow>& rows, Lines& out) {
  const PhaseWords w = PhaseWordsOf(report);
  std::vector<std::string> labels;
  for (const auto& r : rows) labels.push_back(r.name);
  std::vector<Col> cols = {
      {"phase", 48, true}, {w.per_cb, 9}, {w.per_sub, 9}, {"gpu µs/tok", 11}, {"µs/" + w.cb, 9}};
  FitFirstColumn(cols, labels);
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  double et = 0;
  for (const auto& r : rows) {
    const auto& ep = util::FindOr(e.phases, r.name);
    et += r.engine;
    out.Add(Row(cols, {r.name, Fixed(ep.calls_per_token.median, 2), Fixed(ep.items_per_token.median, 2),
                       Fixed(r.engine, 1), Fixed(ep.mean_us_per_call, 1)}));
  }
  out.Add(RuleFor(cols));
  out.Add(Row(cols, {"TOTAL", "-", "-", Fixed(et, 1), ""}));
}

// The engine's three labelled phases with the most GPU time, each as count × mean.
void TopLabelledPhases(const Report& report, const EngineSummary& e, const std::vector<PhaseRow>& rows,
                       const std::string& en, Lines& out) {
  std::vector<const PhaseRow*> labelled;
  for (const auto& r : rows) {
    if (!r.name.empty() && !attribution::IsGenericPhase(r.name) && r.engine > 0) labelled.push_back(&r);
  }
  if (labelled.empty()) return;
  const PhaseWords w = PhaseWordsOf(report);
  out.Add("Top-3 labelled " + en + " phases by GPU µs/tok (" +
          std::string(util::WordsOf(report).generic_phases) +
          " excluded):");
  for (size_t i = 0; i < labelled.size() && i < 3; ++i) {
    const auto& ep = util::FindOr(e.phases, labelled[i]->name);
    out.Add("  " + util::Truncate(labelled[i]->name, 48) + ": " + Fixed(ep.calls_per_token.median, 2) + " " + w.per_cb +
            " × ~" + Fixed(ep.mean_us_per_call, 1) + " µs/" + w.cb + " = " + Fixed(labelled[i]->engine, 1) +
            " µs/tok (" + Fixed(ep.items_per_token.median, 1) + " " + w.per_sub + ")");
  }
  out.Blank();
}

void PhaseTable(const Report& report, const util::Sides& sides, Lines& out) {
  const std::vector<PhaseRow> rows = PhaseRowsOf(report, sides);
  if (rows.empty()) return;
  const EngineSummary& e = *sides.engine;
  const std::string en = util::SideName(report, &e, false);
  PhaseIntro(report, e, en, out);
  if (sides.baseline != nullptr) {
    PhaseComparisonRows(report, sides, rows, en, out);
  } else {
    PhaseEngineRows(report, e, rows, out);
  }
  out.Blank();
  TopLabelledPhases(report, e, rows, en, out);
}

void Registry(const Report& report, const util::Sides& sides, Lines& out) {
  const sources::SourceWords& words = util::WordsOf(report);
  out.Banner(std::string(words.registry_title));
  out.Paragraph("", "", std::string(words.registry_note));
  std::vector<const EngineSummary*> sv = {sides.engine};
  if (sides.baseline) sv.push_back(sides.baseline);
  for (const EngineSummary* s : sv) {
    if (s == nullptr) continue;
    out.Blank();
    std::string name = util::SideName(report, s, s == sides.baseline);
    if (s->kernel_registry.empty()) {
      out.Add(name + " " + std::string(words.registry) + ": (no " + std::string(words.registry_names) + " listed)");
    } else {
      out.Add(name + " " + std::string(words.registry) + " (" + std::string(words.registry_names) + " by family):");
      for (const auto& [fam, names] : s->kernel_registry) {
        std::string line = " " + Right(util::Truncate(fam, 20), 20) + " (" +
                           Right(std::to_string(names.size()), 2) + "):";
        size_t shown = 0;
        for (const auto& n : names) {
          if (shown == 5) break;
          std::string piece = (shown ? ", " : " ") + n;
          if (util::DisplayWidth(line) + util::DisplayWidth(piece) + 2 > kWidth) break;
          line += piece;
          ++shown;
        }
        if (shown < names.size()) line += " …";
        out.Add(line);
      }
    }
    if (words.timeline_rows.empty()) continue;  // a table of one source
    const int64_t rows = util::MaxSourceCount(*s, "shader_timeline_rows");
    out.Add("  " + std::string(words.timeline_rows) + ": " + std::to_string(rows) +
            (rows == 0 ? " (empty: no per-kernel timing in these traces)" : ""));
  }
  out.Blank();
}

// The engine's own counters, each row labelled with where its figure came from.
void CounterSection(const Report& report, const util::Sides& sides, Lines& out) {
  std::vector<const EngineSummary*> sv = {sides.engine};
  if (sides.baseline) sv.push_back(sides.baseline);
  if (!util::AnyCounters(sv)) return;
  out.Banner("Engine counters (the engine's own counts, from each trial's counters.txt)");
  out.Paragraph("", "",
                "Rows marked \"engine counters\" are the engine's reports, medians over trials (text kept as "
                "written); the last row is what the trace itself counts.");
  out.Blank();
  std::string head = Left("counter", 30) + " " + Left("source", 16);
  for (const EngineSummary* s : sv) head += " " + Right(util::Truncate(util::SideName(report, s, s == sides.baseline), 20), 20);
  out.Add(head);
  for (const util::CounterRow& r : util::CounterRows(sv)) {
    std::string line = Left(r.name, 30) + " " + Left(r.source, 16);
    for (const std::string& c : r.cells) line += " " + Right(util::Truncate(c, 20), 20);
    out.Add(line);
  }
  for (const EngineSummary* s : sv) {
    if (!s->counters_path.empty()) {
      out.Add(util::SideName(report, s, s == sides.baseline) + " counters: " + s->counters_path +
              (s->trials.size() > 1 ? " and " + std::to_string(s->trials.size() - 1) + " more" : ""));
    }
  }
  out.Blank();
}

void PerTrial(const Report& report, const util::Sides& sides, Lines& out) {
  std::vector<const EngineSummary*> sv = {sides.engine};
  if (sides.baseline) sv.push_back(sides.baseline);
  bool any = false;
  for (const EngineSummary* s : sv) {
    if (s == nullptr) continue;
    std::string name = util::Truncate(util::SideName(report, s, s == sides.baseline), 24);
    const auto& gpu = s->gpu_us_per_token.per_trial;
    if (!gpu.empty()) {
      out.AddWrapped(name + " per-trial gpu µs/tok (summed):", FormatAll(gpu, 1),
                     " (spread " + Fixed(Spread(gpu), 1) + "%)");
      any = true;
    }
    const auto& busy = s->busy_us_per_token.per_trial;
    if (!busy.empty()) {
      out.AddWrapped(name + " per-trial busy µs/tok (union):", FormatAll(busy, 1));
      any = true;
    }
  }
  if (any) out.Blank();
}

void DiagnosticsSection(const Report& report, Lines& out) {
  bool any = false;
  for (const auto& e : report.engines) any = any || !e.diagnostics.empty();
  if (!any) return;
  out.Banner("Diagnostics (counted anomalies, merged over trials)");
  std::vector<Col> cols = {{"engine", 10, true},
                           {"code", 26, true},
                           {"severity", 8, true},
                           {"count", 7},
                           {"meaning", 55, true}};
  out.Add(Header(cols));
  out.Add(RuleFor(cols));
  for (const auto& e : report.engines) {
    for (const auto& entry : e.diagnostics.Entries()) {
      const DiagnosticDescriptor* d = FindDiagnostic(entry.code);
      out.Add(
          Row(cols, {e.name, entry.code, std::string(SeverityName(entry.severity)),
                     std::to_string(entry.count), d ? std::string(d->summary) : std::string()}));
    }
  }
  out.Blank();
}

// What changed from the baseline to the engine, ranked (perfgate diff's movers).
void MoversSection(const Report& report, Lines& out) {
  const std::optional<diff::Diff> d = MoversOf(report);
  if (!d) return;
  out.Add("Top movers (perfgate diff BASELINE ENGINE lists every change)");
  const std::string text = RenderMovers(*d, std::nullopt, kReportMovers);
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    out.Add(text.substr(start, end - start));
    start = end + 1;
  }
  out.Blank();
}

}  // namespace

std::string RenderText(const Report& report) {
  Lines out;
  util::Sides sides = util::FindSides(report);
  std::string title = std::string("perfgate GPU attribution per decode token (") +
                      std::string(util::WordsOf(report).source) + ")";
  if (sides.engine != nullptr) {
    title += ": " + util::SideName(report, sides.engine, false);
    if (sides.baseline) title += " vs " + util::SideName(report, sides.baseline, true);
  }
  out.Banner(title);
  out.Blank();
  Methodology(report, out);
  Inputs(report, out);
  if (sides.engine == nullptr) {
    out.Add("(no traces summarised)");
    return out.Join();
  }
  if (sides.baseline != nullptr) {
    BucketTable(report, sides, out);
  } else {
    EngineOnlyBucketTable(report, *sides.engine, out);
  }
  CounterSection(report, sides, out);
  FamilyTable(report, sides, out);
  KernelNameTable(report, sides, out);
  PhaseTable(report, sides, out);
  MoversSection(report, out);
  Registry(report, sides, out);
  PerTrial(report, sides, out);
  DiagnosticsSection(report, out);
  return out.Join();
}

}  // namespace perfgate::report
