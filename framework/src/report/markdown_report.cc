// The Markdown report: a short CI job summary (GitHub $GITHUB_STEP_SUMMARY, GitLab
// job summary) with the attack target, the totals and pipe tables for buckets,
// encoder (or kernel) families, kernel names (top 20) and the top 10 phases.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using util::Fixed;
using util::Percent;
using util::PValue;
using util::Signed;

constexpr size_t kTopPhases = 10;
constexpr size_t kKernelNameChars = 60;  // a kernel name's display cut

// The source's words as the strings the tables are built from.
struct Words {
  explicit Words(const Report& report) {
    const sources::SourceWords& sw = util::WordsOf(report);
    units = sw.units;
    families = sw.families;
    phases = sw.phases;
    instance = sw.instance;
    per_unit = util::PerTok(sw.unit_abbrev);
    per_family = sw.per_token;
    per_instance = util::PerTok(std::string(sw.instance) + "s");
  }
  std::string units, families, phases, instance;
  std::string per_unit;      // "sub/tok" / "kern/tok"
  std::string per_family;    // "enc/tok" / "kern/tok"
  std::string per_instance;  // "CBs/tok" / "ranges/tok"
};

// Plain text inside Markdown: backslash-escapes the characters that format.
std::string Esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|#").find(c) != std::string_view::npos) out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

// A name as inline code (util::MarkdownCode).
std::string Code(std::string_view s) { return util::MarkdownCode(s); }

std::string TableRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& c : cells) line += " " + c + " |";
  return line;
}

// The header and the alignment row: the first column left, the rest right.
void TableHead(std::vector<std::string>& out, const std::vector<std::string>& headers) {
  out.push_back(TableRow(headers));
  std::string align = "|---|";
  for (size_t i = 1; i < headers.size(); ++i) align += "---:|";
  out.push_back(align);
}

std::string Join(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Fixed(v[i], 1);
  return s;
}

// What tells apart the shown names that are numbered ("#1", "#2"): each whole (a list
// item wraps where a table cell would not).
void NumberedNames(const std::vector<std::string>& shown, const util::KernelLabels& labels,
                   std::vector<std::string>& out) {
  const auto numbered = util::NumberedKernelNames(shown, labels);
  if (numbered.empty()) return;
  out.push_back("");
  out.push_back("Numbered names, whole:");
  out.push_back("");
  for (const auto& [label, compact] : numbered) out.push_back("- " + Code(label) + ": " + Code(compact));
}

// "_… and 40 more kernel names …_" when rows were cut.
void MoreNames(size_t shown, size_t total, const std::string& what, std::vector<std::string>& out) {
  if (shown >= total) return;
  out.push_back("");
  out.push_back("_… and " + std::to_string(total - shown) + " more kernel names " + what +
                "; the JSON report holds them all._");
}

// The kernel-name table: beside the baseline by Δ, else the engine's by GPU time; or
// the source's sentence on why there is none.
void KernelNames(const Report& report, const util::Sides& sides, std::vector<std::string>& out) {
  const EngineSummary& e = *sides.engine;
  const bool compared = sides.baseline != nullptr && !report.comparison->kernels.empty();
  out.push_back("### Kernel names");
  out.push_back("");
  const std::string note(sources::WordsOf(e).kernel_names);  // the engine's source: engines may differ
  if (!compared && e.kernels.empty()) {
    out.push_back(Esc(note));
    out.push_back("");
    return;
  }
  out.push_back(Esc(note) + " Mean, min and max: µs per call over the trials that ran the name.");
  out.push_back("");
  const std::string en = Esc(util::SideName(report, &e, false));
  if (compared) {
    const EngineSummary& b = *sides.baseline;
    const std::string bn = Esc(util::SideName(report, &b, true));
    const util::KernelLabels labels = util::KernelDisplayNames({&e, &b}, kKernelNameChars);
    const std::vector<Delta>& all = report.comparison->kernels;
    const std::vector<Delta> rows = util::KernelDeltasShown(all, report.kernel_name_rows);
    TableHead(out,
          {"Kernel", en + " calls/tok", en + " µs/tok", bn + " calls/tok", bn + " µs/tok", "Δ µs/tok", "Δ%", "p"});
    for (const Delta& d : rows) {
      out.push_back(TableRow({Code(labels.at(d.name)),
                              Fixed(util::FindOr(e.kernels, d.name).items_per_token.median, 2), Fixed(d.engine, 2),
                              Fixed(util::FindOr(b.kernels, d.name).items_per_token.median, 2),
                              Fixed(d.baseline, 2), Signed(d.delta, 2), Percent(d.delta_pct), PValue(d.p_value)}));
    }
    MoreNames(rows.size(), all.size(), "with smaller |Δ|", out);
    std::vector<std::string> shown;
    for (const Delta& d : rows) shown.push_back(d.name);
    NumberedNames(shown, labels, out);
  } else {
    const util::KernelLabels labels = util::KernelDisplayNames({&e}, kKernelNameChars);
    const std::vector<std::string> names = util::KernelNamesByGpu(e);
    const size_t shown =
        report.kernel_name_rows == 0 ? names.size() : std::min(names.size(), report.kernel_name_rows);
    TableHead(out, {"Kernel", "Family", "calls/tok", "µs/tok", "mean µs", "min µs", "max µs", "trials"});
    for (size_t i = 0; i < shown; ++i) {
      const attribution::LevelMedians& k = e.kernels.at(names[i]);
      out.push_back(TableRow({Code(labels.at(names[i])), Code(k.family), Fixed(k.items_per_token.median, 2),
                              Fixed(k.gpu_us_per_token.median, 2), Fixed(k.mean_us, 2), Fixed(k.min_ns / 1000.0, 2),
                              Fixed(k.max_ns / 1000.0, 2), util::TrialsRan(k, e)}));
    }
    MoreNames(shown, names.size(), "with less GPU time", out);
    if (sides.baseline != nullptr) {
      out.push_back("");
      out.push_back(Esc(util::SideName(report, sides.baseline, true)) + ", so no comparison by name: " +
                    Esc(sources::WordsOf(*sides.baseline).kernel_names));
    }
    NumberedNames(std::vector<std::string>(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown)),
                  labels, out);
  }
  out.push_back("");
}

void TwoSided(const Report& report, const util::Sides& sides, std::vector<std::string>& out) {
  const Words w(report);
  const EngineSummary& e = *sides.engine;
  const EngineSummary& b = *sides.baseline;
  const auto& c = *report.comparison;
  const std::string en = Esc(util::SideName(report, &e, false));
  const std::string bn = Esc(util::SideName(report, &b, true));
  const std::string n =
      "n = " + std::to_string(e.trials.size()) + "/" + std::to_string(b.trials.size());

  out.push_back("## perfgate: " + en + " vs " + bn + ", GPU µs per decode token");
  out.push_back("");
  if (c.attack_target) {
    auto it = std::find_if(c.buckets.begin(), c.buckets.end(),
                           [&](const Delta& d) { return d.name == *c.attack_target; });
    std::string hint = util::BucketHint(report, *c.attack_target, c.attack_hint);
    std::string line = "**Attack target: " + Code(*c.attack_target) + "**";
    if (it != c.buckets.end())
      line += " (" + Signed(it->delta, 1) + " µs/tok, p = " + PValue(it->p_value) + ")";
    if (!hint.empty()) line += "; likely " + Esc(hint);
    out.push_back(line);
  } else {
    out.push_back("**Attack target: none** (no bucket regressed)");
  }
  out.push_back("");
  const Delta& t = c.total;
  const Delta& s = c.items_per_token;
  out.push_back("Total GPU time **" + Fixed(t.engine, 1) + " vs " + Fixed(t.baseline, 1) +
                " µs/tok, Δ " + Signed(t.delta, 1) + " (" + Percent(t.delta_pct) +
                ")**, p = " + PValue(t.p_value) + " (" + n + " trials). Busy (union) " +
                Fixed(e.busy_us_per_token.median, 1) + " vs " +
                Fixed(b.busy_us_per_token.median, 1) + " µs/tok. " + util::Capitalized(w.units) + "/tok " +
                Fixed(s.engine, 1) + " vs " + Fixed(s.baseline, 1) + ".");
  out.push_back("");

  out.push_back("### Buckets");
  out.push_back("");
  TableHead(out, {"Bucket", en + " " + w.per_unit, en + " p50 µs", en + " µs/tok", bn + " " + w.per_unit,
              bn + " p50 µs", bn + " µs/tok", "Δ µs/tok", "Δ%", "p (" + n + ")"});
  for (const Delta& d : c.buckets) {
    const auto& eb = util::FindBucket(e, d.name);
    const auto& bb = util::FindBucket(b, d.name);
    out.push_back(TableRow(
        {Code(d.name), Fixed(eb.items_per_token.median, 1), Fixed(eb.p50_us.median, 2),
         Fixed(d.engine, 1), Fixed(bb.items_per_token.median, 1), Fixed(bb.p50_us.median, 2),
         Fixed(d.baseline, 1), Signed(d.delta, 1), Percent(d.delta_pct), PValue(d.p_value)}));
  }
  out.push_back(
      TableRow({"**TOTAL**", Fixed(e.items_per_token.median, 1), "", Fixed(t.engine, 1),
                Fixed(b.items_per_token.median, 1), "", Fixed(t.baseline, 1),
                Signed(t.delta, 1), Percent(t.delta_pct), PValue(t.p_value)}));
  out.push_back("");

  if (!c.families.empty()) {
    out.push_back("### " + w.families);
    out.push_back("");
    TableHead(out, {"Family", en + " " + w.per_family, en + " µs/tok", bn + " " + w.per_family, bn + " µs/tok",
                "Δ µs/tok", "Δ%", "p (" + n + ")"});
    std::vector<Delta> rows = c.families;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Delta& x, const Delta& y) { return x.delta > y.delta; });
    for (const Delta& d : rows) {
      out.push_back(TableRow(
          {Code(d.name), Fixed(util::FindOr(e.families, d.name).calls_per_token.median, 2),
           Fixed(d.engine, 1),
           Fixed(util::FindOr(b.families, d.name).calls_per_token.median, 2),
           Fixed(d.baseline, 1), Signed(d.delta, 1), Percent(d.delta_pct), PValue(d.p_value)}));
    }
    out.push_back("");
  }

  KernelNames(report, sides, out);

  if (!c.phases.empty()) {
    std::vector<Delta> rows = c.phases;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Delta& x, const Delta& y) { return x.engine > y.engine; });
    out.push_back("### " + w.phases + " (top " + std::to_string(std::min(kTopPhases, rows.size())) + " of " +
                  std::to_string(rows.size()) + " by " + en + " GPU µs/tok; label coverage " +
                  Fixed(e.label_coverage * 100.0, 1) + "%)");
    out.push_back("");
    TableHead(out, {"Phase", en + " " + w.per_instance, en + " µs/tok", bn + " " + w.per_instance, bn + " µs/tok",
                "Δ µs/tok", "Δ%", "p (" + n + ")"});
    for (size_t i = 0; i < rows.size() && i < kTopPhases; ++i) {
      const Delta& d = rows[i];
      out.push_back(TableRow(
          {Code(d.name), Fixed(util::FindOr(e.phases, d.name).calls_per_token.median, 2),
           Fixed(d.engine, 1), Fixed(util::FindOr(b.phases, d.name).calls_per_token.median, 2),
           Fixed(d.baseline, 1), Signed(d.delta, 1), Percent(d.delta_pct), PValue(d.p_value)}));
    }
    out.push_back("");
  }
}

void EngineOnly(const Report& report, const util::Sides& sides, std::vector<std::string>& out) {
  const EngineSummary& e = *sides.engine;
  const Words w(report);
  const std::string en = Esc(util::SideName(report, &e, false));
  out.push_back("## perfgate: " + en + ", GPU µs per decode token (no baseline)");
  out.push_back("");
  out.push_back("Total GPU time **" + Fixed(e.gpu_us_per_token.median, 1) +
                " µs/tok** (busy, union: " + Fixed(e.busy_us_per_token.median, 1) + "), " +
                Fixed(e.items_per_token.median, 1) + " " + w.units + "/tok, median of " +
                std::to_string(e.trials.size()) + " trials.");
  out.push_back("");
  out.push_back("### Buckets");
  out.push_back("");
  TableHead(out, {"Bucket", w.per_unit, "p50 µs", "µs/tok"});
  for (const auto& [name, b] : e.buckets) {
    out.push_back(TableRow({Code(name), Fixed(b.items_per_token.median, 1),
                            Fixed(b.p50_us.median, 2), Fixed(b.us_per_token.median, 1)}));
  }
  out.push_back(TableRow({"**TOTAL**", Fixed(e.items_per_token.median, 1), "",
                          Fixed(e.gpu_us_per_token.median, 1)}));
  out.push_back("");
  if (!e.families.empty()) {
    out.push_back("### " + w.families);
    out.push_back("");
    TableHead(out, {"Family", w.per_family, "µs/tok"});
    for (const auto& [name, f] : e.families) {
      out.push_back(TableRow({Code(name), Fixed(f.calls_per_token.median, 2),
                              Fixed(f.gpu_us_per_token.median, 1)}));
    }
    out.push_back("");
  }
  KernelNames(report, sides, out);
  auto phases = util::PhasesByGpu(e);
  if (!phases.empty()) {
    out.push_back("### " + w.phases + " (top " + std::to_string(std::min(kTopPhases, phases.size())) +
                  " of " + std::to_string(phases.size()) + "; label coverage " +
                  Fixed(e.label_coverage * 100.0, 1) + "%)");
    out.push_back("");
    TableHead(out, {"Phase", w.per_instance, "µs/tok", "µs/" + w.instance});
    for (size_t i = 0; i < phases.size() && i < kTopPhases; ++i) {
      const auto& p = e.phases.at(phases[i]);
      out.push_back(TableRow({Code(phases[i]), Fixed(p.calls_per_token.median, 2),
                              Fixed(p.gpu_us_per_token.median, 1), Fixed(p.mean_us_per_call, 1)}));
    }
    out.push_back("");
  }
}

}  // namespace

// The engine's own counters (counters.txt), each row saying where its figure came from.
void CounterTable(const Report& report, const util::Sides& sides, const std::vector<const EngineSummary*>& sv,
                  std::vector<std::string>& out) {
  if (!util::AnyCounters(sv)) return;
  out.push_back("### Engine counters (each trial's counters.txt)");
  out.push_back("");
  std::string head = "| counter | source |", rule = "|---|---|";
  for (const EngineSummary* s : sv) {
    head += " " + Esc(util::SideName(report, s, s == sides.baseline)) + " |";
    rule += "---:|";
  }
  out.push_back(head);
  out.push_back(rule);
  for (const util::CounterRow& r : util::CounterRows(sv)) {
    std::string line = "| " + (r.source == "trace" ? Esc(r.name) : Code(r.name)) + " | " + r.source + " |";
    for (const std::string& c : r.cells) line += " " + Esc(c) + " |";
    out.push_back(line);
  }
  out.push_back("");
}

std::string RenderMarkdown(const Report& report) {
  std::vector<std::string> out;
  util::Sides sides = util::FindSides(report);
  if (sides.engine == nullptr) {
    out.push_back("## perfgate: no traces summarised");
  } else {
    if (sides.baseline != nullptr) {
      TwoSided(report, sides, out);
    } else {
      EngineOnly(report, sides, out);
    }
    // Per-trial values and anomaly counts, one line per engine.
    std::vector<const EngineSummary*> sv = {sides.engine};
    if (sides.baseline) sv.push_back(sides.baseline);
    CounterTable(report, sides, sv, out);
    for (const EngineSummary* s : sv) {
      std::string line =
          "- " + Esc(util::SideName(report, s, s == sides.baseline)) + ": per-trial GPU µs/tok " +
          (s->gpu_us_per_token.per_trial.empty() ? "n/a" : Join(s->gpu_us_per_token.per_trial));
      std::vector<std::string> diags;
      for (const auto& d : s->diagnostics.Entries())
        diags.push_back(Code(d.code) + " ×" + std::to_string(d.count));
      if (!diags.empty()) {
        line += "; diagnostics ";
        for (size_t i = 0; i < diags.size(); ++i) line += (i ? ", " : "") + diags[i];
      }
      out.push_back(line);
    }
    out.push_back("");
  }
  if (const std::optional<diff::Diff> movers = MoversOf(report)) {
    out.push_back("### Top movers");
    out.push_back("");
    out.push_back(MoversMarkdown(*movers, kReportMovers));
  }
  out.push_back(
      "_" + std::string(util::WordsOf(report).dispatch_note) + " Medians over trials" +
      (report.comparison ? "; p: two-sided Mann-Whitney U over per-trial values" : "") +
      ". Method: " +
      (report.seed_compat ? "seed-compatible (whole trace, all processes)" : "corrected") + "._");
  std::string text;
  for (const auto& l : out) text += l + "\n";
  return text;
}

}  // namespace perfgate::report
