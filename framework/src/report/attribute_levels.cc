// The attribution report's level sections (report/attribute_sections.h): the engine's
// counters, the families, the kernel names, the phases and the kernel registry.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/attribute_sections.h"

namespace perfgate::report::sections {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using document::Cell;
using document::Document;
using document::List;
using document::Table;
using util::Fixed;

// The Δ, Δ% and p cells of one compared row.
void DeltaCells(const Delta& d, int decimals, std::vector<Cell>& row) {
  row.push_back(Cell::Signed(d.delta, decimals));
  row.push_back(Cell::Percent(d.delta_pct));
  row.push_back(Cell::PValue(d.p_value));
}

// Each side's per-trial GPU time of each family, in the table's order.
List FamilyPerTrial(const Context& c, const std::vector<Delta>& rows) {
  List per_trial;
  per_trial.wrap = true;
  per_trial.items.push_back({"", "Per-trial family gpu µs/tok:"});
  for (const Delta& x : rows) {
    for (const EngineSummary* s : SidesOf(c)) {
      const auto it = s->families.find(x.name);
      if (it == s->families.end() || it->second.gpu_us_per_token.per_trial.empty()) continue;
      per_trial.items.push_back(
          {"", NameOf(c, s) + " " + x.name + ": " + Joined(it->second.gpu_us_per_token.per_trial), false, {}, 1});
    }
  }
  return per_trial;
}

void ComparedFamilies(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const EngineSummary& b = *c.sides.baseline;
  const std::string per_family(util::WordsOf(c.report).per_token);
  Table table{"families",
              {Left("family"), Right(per_family), Right("gpu µs/tok"), Right(per_family), Right("gpu µs/tok"),
               Right("Δµs/tok"), Right("Δ%"), Right("p")},
              {},
              {{c.engine, 1, 2}, {c.baseline, 3, 2}}};
  std::vector<Delta> rows = c.report.comparison->families;
  std::stable_sort(rows.begin(), rows.end(), [](const Delta& x, const Delta& y) { return x.delta > y.delta; });
  double et = 0, bt = 0;
  for (const Delta& x : rows) {
    et += x.engine;
    bt += x.baseline;
    std::vector<Cell> row = {Cell::Code(x.name), Cell::Fixed(util::FindOr(e.families, x.name).calls_per_token.median, 2),
                             Cell::Fixed(x.engine, 1),
                             Cell::Fixed(util::FindOr(b.families, x.name).calls_per_token.median, 2),
                             Cell::Fixed(x.baseline, 1)};
    DeltaCells(x, 1, row);
    table.rows.push_back(row);
  }
  table.totals.push_back({Cell::Text("TOTAL"), Dash(), Cell::Fixed(et, 1), Dash(), Cell::Fixed(bt, 1),
                          Cell::Signed(et - bt, 1), Cell::Percent(util::PercentOf(et - bt, bt)), Blank()});
  d.blocks.push_back(table);
  List per_trial = FamilyPerTrial(c, rows);
  if (per_trial.items.size() > 1) d.blocks.push_back(std::move(per_trial));  // summaries built without trials
}

void EngineFamilies(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  Table table{"families",
              {Left("family"), Right(std::string(util::WordsOf(c.report).per_token)), Right("gpu µs/tok"),
               Right("host µs/tok")}};
  std::vector<std::string> names;
  for (const auto& [name, f] : e.families) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& x, const std::string& y) {
    return e.families.at(x).gpu_us_per_token.median > e.families.at(y).gpu_us_per_token.median;
  });
  double total = 0;
  for (const std::string& name : names) {
    const attribution::LevelMedians& f = e.families.at(name);
    total += f.gpu_us_per_token.median;
    table.rows.push_back({Cell::Code(name), Cell::Fixed(f.calls_per_token.median, 2),
                          Cell::Fixed(f.gpu_us_per_token.median, 1), Cell::Fixed(f.host_us_per_token.median, 1)});
  }
  table.totals.push_back({Cell::Text("TOTAL"), Dash(), Cell::Fixed(total, 1), Blank()});
  d.blocks.push_back(table);
}

// What a kernel-name column keeps however wide the rest of its table.
constexpr size_t kNarrowestKernelColumn = 24;

// "… and 40 more kernel names (…)" when `shown` < `total`.
void MoreNames(size_t shown, size_t total, const std::string& what, Document& d) {
  if (shown >= total) return;
  AddParagraph(d, "… and " + std::to_string(total - shown) + " more kernel names " + what +
                      "; --kernel-names all lists every one, the JSON report holds them all.");
}

// What tells apart the shown names that are numbered ("#1", "#2"), each whole.
void NumberedNames(const std::vector<std::string>& shown, const util::KernelLabels& labels, Document& d) {
  const auto numbered = util::NumberedKernelNames(shown, labels);
  if (numbered.empty()) return;
  List key;
  key.wrap = true;
  key.items.push_back({"", "Numbered names, whole (without void, parameters and the at::native::, c10::, std:: "
                           "namespaces):"});
  for (const auto& [label, compact] : numbered) key.items.push_back({"", label + ": ", false, {compact}, 1});
  d.blocks.push_back(key);
}

// The kernel-name column's width: the longest of the `shown` names whole, at most what
// the text's width leaves beside the table's other columns. A name wider is cut in
// the middle (a long shared prefix, triton_poi_fused_…, leaves the distinguishing end
// visible) and numbered where two would then read alike.
size_t KernelColumnWidth(const Table& t, const std::vector<const EngineSummary*>& sides,
                         const std::vector<std::string>& shown) {
  size_t others = 0;
  for (size_t c = 1; c < t.columns.size(); ++c) {
    size_t w = util::DisplayWidth(t.columns[c].title);
    for (const auto& row : t.rows) w = std::max(w, util::DisplayWidth(row[c].text));
    others += 2 + w;
  }
  const util::KernelLabels whole = util::KernelDisplayNames(sides);
  size_t longest = util::DisplayWidth(t.columns[0].title);
  for (const std::string& name : shown) longest = std::max(longest, util::DisplayWidth(whole.at(name)));
  const size_t room = document::kTextWidth > others + kNarrowestKernelColumn ? document::kTextWidth - others
                                                                             : kNarrowestKernelColumn;
  return std::min(longest, room);
}

// Names the rows of `t` (one per `shown` name, in order) as the column shows them.
util::KernelLabels LabelKernelRows(Table& t, const std::vector<const EngineSummary*>& sides,
                                   const std::vector<std::string>& shown) {
  const util::KernelLabels labels = util::KernelDisplayNames(sides, KernelColumnWidth(t, sides, shown));
  for (size_t i = 0; i < shown.size(); ++i) t.rows[i][0] = Cell::Code(labels.at(shown[i]));
  return labels;
}

void EngineKernelNames(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const std::vector<std::string> names = util::KernelNamesByGpu(e);
  const size_t rows = c.report.kernel_name_rows;
  const size_t shown = rows == 0 ? names.size() : std::min(names.size(), rows);
  Table table{"kernel_names",
              {Left("kernel"), Left("family"), Right("calls/tok"), Right("µs/tok"), Right("mean µs"), Right("min µs"),
               Right("max µs"), Right("trials")}};
  double rest = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const attribution::LevelMedians& k = e.kernels.at(names[i]);
    if (i >= shown) {
      rest += k.gpu_us_per_token.median;
      continue;
    }
    table.rows.push_back({Cell::Code(names[i]), Cell::Code(k.family), Cell::Fixed(k.items_per_token.median, 2),
                          Cell::Fixed(k.gpu_us_per_token.median, 2), Cell::Fixed(k.mean_us, 2),
                          Cell::Fixed(k.min_ns / 1000.0, 2), Cell::Fixed(k.max_ns / 1000.0, 2),
                          Cell::Text(util::TrialsRan(k, e))});
  }
  const std::vector<std::string> shown_names(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown));
  const util::KernelLabels labels = LabelKernelRows(table, {&e}, shown_names);
  d.blocks.push_back(table);
  MoreNames(shown, names.size(), "(" + Fixed(rest, 2) + " µs/tok together)", d);
  NumberedNames(shown_names, labels, d);
}

void ComparedKernelNames(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const EngineSummary& b = *c.sides.baseline;
  const std::vector<Delta>& all = c.report.comparison->kernels;
  const std::vector<Delta> rows = util::KernelDeltasShown(all, c.report.kernel_name_rows);
  Table table{"kernel_names",
              {Left("kernel"), Right("calls/tok"), Right("µs/tok"), Right("calls/tok"), Right("µs/tok"),
               Right("Δµs/tok"), Right("Δ%"), Right("p")},
              {},
              {{c.engine, 1, 2}, {c.baseline, 3, 2}}};
  std::vector<std::string> shown;
  double rest = 0;
  for (const Delta& x : all) rest += x.delta;
  for (const Delta& x : rows) {
    shown.push_back(x.name);
    rest -= x.delta;
    std::vector<Cell> row = {Cell::Code(x.name),
                             Cell::Fixed(util::FindOr(e.kernels, x.name).items_per_token.median, 2),
                             Cell::Fixed(x.engine, 2), Cell::Fixed(util::FindOr(b.kernels, x.name).items_per_token.median, 2),
                             Cell::Fixed(x.baseline, 2)};
    DeltaCells(x, 2, row);
    table.rows.push_back(row);
  }
  const util::KernelLabels labels = LabelKernelRows(table, {&e, &b}, shown);
  d.blocks.push_back(table);
  MoreNames(rows.size(), all.size(), "with smaller |Δ| (Δ " + util::Signed(rest, 2) + " µs/tok together)", d);
  NumberedNames(shown, labels, d);
}

struct PhaseWords {
  std::string per_sub, cb, per_cb;  // "sub/tok", "CB", "CBs/tok" (Metal)
};

PhaseWords PhaseWordsOf(const Report& report) {
  const sources::SourceWords& words = util::WordsOf(report);
  const std::string cb(words.instance);
  return {util::PerTok(std::string(words.unit_abbrev)), cb, util::PerTok(cb + "s")};
}

void PhaseIntro(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  AddHeading(d, std::string(util::WordsOf(c.report).phases_banner));
  AddParagraph(d, std::string(util::WordsOf(c.report).phases_note));
  if (!e.trials.empty()) {
    const attribution::TrialSummary& t0 = e.trials[0];
    AddParagraph(d, c.engine + " label coverage (trial 0): " + std::to_string(t0.labelled_units) + " / " +
                        std::to_string(t0.phase_units) + " " + std::string(util::WordsOf(c.report).labelled) +
                        " carry a phase label (" + Fixed(e.label_coverage * 100.0, 1) + "%)");
  } else {
    AddParagraph(d, c.engine + " label coverage: " + Fixed(e.label_coverage * 100.0, 1) + "%");
  }
}

// The engine's three labelled phases with the most GPU time, each as count × mean.
void TopLabelledPhases(const Context& c, const std::vector<std::pair<std::string, double>>& rows, Document& d) {
  const PhaseWords w = PhaseWordsOf(c.report);
  List top;
  top.wrap = true;
  top.items.push_back({"", "Top-3 labelled " + c.engine + " phases by GPU µs/tok (" +
                               std::string(util::WordsOf(c.report).generic_phases) + " excluded):"});
  for (const auto& [name, us] : rows) {
    if (top.items.size() > 3) break;
    if (name.empty() || attribution::IsGenericPhase(name) || us <= 0) continue;
    const attribution::LevelMedians& p = util::FindOr(c.sides.engine->phases, name);
    top.items.push_back({"", name + ": " + Fixed(p.calls_per_token.median, 2) + " " + w.per_cb + " × ~" +
                                 Fixed(p.mean_us_per_call, 1) + " µs/" + w.cb + " = " + Fixed(us, 1) + " µs/tok (" +
                                 Fixed(p.items_per_token.median, 1) + " " + w.per_sub + ")",
                         false, {}, 1});
  }
  if (top.items.size() > 1) d.blocks.push_back(top);
}

std::vector<std::pair<std::string, double>> ComparedPhases(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const EngineSummary& b = *c.sides.baseline;
  const PhaseWords w = PhaseWordsOf(c.report);
  std::vector<Delta> rows = c.report.comparison->phases;
  std::stable_sort(rows.begin(), rows.end(), [](const Delta& x, const Delta& y) { return x.engine > y.engine; });
  Table table{"phases",
              {Left("phase"), Right(w.per_cb), Right(w.per_sub), Right("µs/tok"), Right("µs/" + w.cb), Right(w.per_cb),
               Right("µs/tok"), Right("Δµs/tok"), Right("p")},
              {},
              {{c.engine, 1, 4}, {c.baseline, 5, 2}}};
  std::vector<std::pair<std::string, double>> by_engine;
  double et = 0, bt = 0;
  for (const Delta& x : rows) {
    const attribution::LevelMedians& ep = util::FindOr(e.phases, x.name);
    et += x.engine;
    bt += x.baseline;
    by_engine.emplace_back(x.name, x.engine);
    table.rows.push_back({Cell::Code(x.name), Cell::Fixed(ep.calls_per_token.median, 2),
                          Cell::Fixed(ep.items_per_token.median, 2), Cell::Fixed(x.engine, 1),
                          Cell::Fixed(ep.mean_us_per_call, 1),
                          Cell::Fixed(util::FindOr(b.phases, x.name).calls_per_token.median, 2),
                          Cell::Fixed(x.baseline, 1), Cell::Signed(x.delta, 1), Cell::PValue(x.p_value)});
  }
  table.totals.push_back({Cell::Text("TOTAL"), Dash(), Dash(), Cell::Fixed(et, 1), Blank(), Dash(),
                          Cell::Fixed(bt, 1), Cell::Signed(et - bt, 1), Blank()});
  d.blocks.push_back(table);
  return by_engine;
}

std::vector<std::pair<std::string, double>> EnginePhases(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const PhaseWords w = PhaseWordsOf(c.report);
  Table table{"phases",
              {Left("phase"), Right(w.per_cb), Right(w.per_sub), Right("gpu µs/tok"), Right("µs/" + w.cb)}};
  std::vector<std::pair<std::string, double>> by_engine;
  double et = 0;
  for (const std::string& name : util::PhasesByGpu(e)) {
    const attribution::LevelMedians& p = e.phases.at(name);
    et += p.gpu_us_per_token.median;
    by_engine.emplace_back(name, p.gpu_us_per_token.median);
    table.rows.push_back({Cell::Code(name), Cell::Fixed(p.calls_per_token.median, 2),
                          Cell::Fixed(p.items_per_token.median, 2), Cell::Fixed(p.gpu_us_per_token.median, 1),
                          Cell::Fixed(p.mean_us_per_call, 1)});
  }
  table.totals.push_back({Cell::Text("TOTAL"), Dash(), Dash(), Cell::Fixed(et, 1), Blank()});
  d.blocks.push_back(table);
  return by_engine;
}

}  // namespace

void FamilySection(const Context& c, Document& d) {
  const bool two = c.sides.baseline != nullptr;
  if (c.sides.engine->families.empty() && (!two || c.sides.baseline->families.empty()) &&
      (!two || c.report.comparison->families.empty())) {
    return;
  }
  AddHeading(d, std::string(util::WordsOf(c.report).families_banner));
  AddParagraph(d, std::string(util::WordsOf(c.report).families_note));
  if (two) {
    ComparedFamilies(c, d);
  } else {
    EngineFamilies(c, d);
  }
}

void KernelNameSection(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const bool compared = c.sides.baseline != nullptr && !c.report.comparison->kernels.empty();
  AddHeading(d, "Per-kernel-name GPU time");
  // The engine's own source speaks: engines of two sources share one report.
  const std::string note(sources::WordsOf(e).kernel_names);
  if (!compared && e.kernels.empty()) {
    AddParagraph(d, note);
    return;
  }
  AddParagraph(d, note + " calls/tok = calls per decode token; mean, min and max are µs per call, pooled over the "
                         "trials that ran the name; trials = trials that ran it (a trial without it counts 0 calls). "
                         "Names that would read alike in the column (a shared short name, or long names alike at "
                         "both ends of the cut) are numbered #1, #2, ... in the order of their full names and listed "
                         "below the table.");
  if (compared) {
    ComparedKernelNames(c, d);
    return;
  }
  EngineKernelNames(c, d);
  if (c.sides.baseline != nullptr) {
    AddParagraph(d, c.baseline + ", so no comparison by name: " + std::string(sources::WordsOf(*c.sides.baseline).kernel_names));
  }
}

void PhaseSection(const Context& c, Document& d) {
  const bool two = c.sides.baseline != nullptr;
  if (two ? c.report.comparison->phases.empty() : c.sides.engine->phases.empty()) return;
  PhaseIntro(c, d);
  TopLabelledPhases(c, two ? ComparedPhases(c, d) : EnginePhases(c, d), d);
}

void CounterSection(const Context& c, Document& d) {
  const std::vector<const EngineSummary*> sides = SidesOf(c);
  if (!util::AnyCounters(sides)) return;
  AddHeading(d, "Engine counters (the engine's own counts, from each trial's counters.txt)");
  AddParagraph(d, "Rows marked \"engine counters\" are the engine's reports, medians over trials (text kept as "
                  "written); the last row is what the trace itself counts.");
  Table table{"counters", {Left("counter"), Left("source")}};
  for (const EngineSummary* s : sides) table.columns.push_back(Right(NameOf(c, s)));
  for (const util::CounterRow& r : util::CounterRows(sides)) {
    std::vector<Cell> row = {r.source == "trace" ? Cell::Text(r.name) : Cell::Code(r.name), Cell::Text(r.source)};
    for (const std::string& cell : r.cells) row.push_back(Cell::Text(cell));
    table.rows.push_back(row);
  }
  d.blocks.push_back(table);
  List paths;
  paths.wrap = true;
  for (const EngineSummary* s : sides) {
    if (s->counters_path.empty()) continue;
    paths.items.push_back({"", NameOf(c, s) + " counters: " + s->counters_path +
                                   (s->trials.size() > 1 ? " and " + std::to_string(s->trials.size() - 1) + " more" : "")});
  }
  if (!paths.items.empty()) d.blocks.push_back(paths);
}

void RegistrySection(const Context& c, Document& d) {
  const sources::SourceWords& words = util::WordsOf(c.report);
  AddFoldedHeading(d, std::string(words.registry_title));
  AddParagraph(d, std::string(words.registry_note));
  List registry;
  registry.wrap = true;
  for (const EngineSummary* s : SidesOf(c)) {
    const std::string& name = NameOf(c, s);
    if (s->kernel_registry.empty()) {
      registry.items.push_back({"", name + " " + std::string(words.registry) + ": (no " +
                                        std::string(words.registry_names) + " listed)"});
    } else {
      registry.items.push_back({"", name + " " + std::string(words.registry) + " (" +
                                        std::string(words.registry_names) + " by family):"});
      for (const auto& [family, names] : s->kernel_registry) {
        std::string line = family + " (" + std::to_string(names.size()) + "): ";
        for (size_t i = 0; i < names.size() && i < 5; ++i) line += (i ? ", " : "") + names[i];
        if (names.size() > 5) line += ", …";
        registry.items.push_back({"", line, false, {}, 1});
      }
    }
    if (words.timeline_rows.empty()) continue;  // a table of one source
    const int64_t rows = util::MaxSourceCount(*s, "shader_timeline_rows");
    registry.items.push_back({"", std::string(words.timeline_rows) + ": " + std::to_string(rows) +
                                      (rows == 0 ? " (empty: no per-kernel timing in these traces)" : ""),
                              false, {}, 1});
  }
  d.blocks.push_back(registry);
}

}  // namespace perfgate::report::sections
