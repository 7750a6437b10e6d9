// Rendering per-kernel timing reports (perfgate/kernel_report/render.h).
#include "perfgate/kernel_report/render.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "perfgate/kernel_report/compare.h"
#include "perfgate/core/names.h"
#include "perfgate/kernel_report/metrics.h"
#include "core/lossless_json.h"
#include "perfgate/document/document.h"
#include "core/text_cells.h"

namespace perfgate::kernel_report {
namespace {

namespace util = ::perfgate::text;
using json = nlohmann::ordered_json;

constexpr const char* kMediansNote =
    "Medians only: every figure is a median the report carries, with no per-trial samples; a Δ is a "
    "difference of medians and a verdict a threshold comparison, never a rank test.";

constexpr const char* kTotalsNote =
    "Totals of one run (nsys stats): per-token figures are each kernel's total time and calls over the run's "
    "tokens; a Δ is a difference of totals and a verdict a threshold comparison, never a rank test.";

// The note of what the figures are: medians of the JSON reports, or one run's totals
// when either side is an nsys stats report.
const char* FiguresNote(const KernelReport& engine, const KernelReport* baseline) {
  auto stats = [](const KernelReport& r) {
    auto it = r.metadata.find("source");
    return it != r.metadata.end() && it->second == "nsys stats";
  };
  return stats(engine) || (baseline != nullptr && stats(*baseline)) ? kTotalsNote : kMediansNote;
}

constexpr size_t kNameWidth = 34;

// What every format shows: the comparison (a report against nothing when alone).
struct View {
  const KernelReport& engine;
  const KernelReport* baseline;
  Comparison c;
  size_t top;
};

View MakeView(const KernelReport& engine, const RenderOptions& o) {
  static const KernelReport kNone;
  return View{engine, o.baseline, Compare(engine, o.baseline ? *o.baseline : kNone), o.top};
}

// Kernel rows worth showing first: the largest |Δ| beside a baseline (ties: the
// engine's time), the most time alone.
std::vector<Row> KernelsForDisplay(const View& v) {
  std::vector<Row> rows = v.c.kernels;
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::fabs(a.delta_us_per_token()) > std::fabs(b.delta_us_per_token());
  });
  return rows;
}

// Kernels with one original on each side, by Δ µs/call in percent, largest first: the
// comparison a report's dropped samples do not distort.
std::vector<Row> PerCallRows(const View& v) {
  std::vector<Row> rows;
  for (const Row& r : v.c.kernels) {
    if (r.engine.us_per_call && r.baseline.us_per_call && *r.baseline.us_per_call > 0) rows.push_back(r);
  }
  auto pct = [](const Row& r) { return *r.engine.us_per_call / *r.baseline.us_per_call; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return pct(a) > pct(b); });
  return rows;
}

std::optional<double> PerCallPct(const Row& r) {
  return util::PercentOf(*r.engine.us_per_call - *r.baseline.us_per_call, *r.baseline.us_per_call);
}

// "hf2q+candle (path); device: M5 Max; model: …": a report and the metadata a reader
// needs to trust the comparison.
std::string Describe(const KernelReport& r) {
  std::string out = r.name + " (" + r.path + ")";
  for (const char* key : {"device", "model", "commit", "n_tokens", "n_runs", "wall_clock_tok_per_sec_median"}) {
    auto it = r.metadata.find(key);
    if (it != r.metadata.end()) out += std::string("; ") + key + ": " + it->second;
  }
  return out;
}

// Each report's diagnostics, one a line: "candle: kernel_report.dropped_samples x1: …".
std::vector<std::string> DiagnosticLines(const View& v) {
  std::vector<std::string> out;
  for (const KernelReport* r : {&v.engine, v.baseline}) {
    if (r == nullptr) continue;
    for (const auto& e : r->diagnostics.Entries()) {
      out.push_back(r->name + ": " + e.code + " x" + std::to_string(e.count) + ": " + e.first_detail);
    }
  }
  return out;
}

std::string AttackLine(const View& v) {
  if (!v.c.attack_target) return "none (no family costs the engine more than the baseline " + v.c.attack_basis + ")";
  return *v.c.attack_target + " — " + v.c.attack_hint;
}

// TOTAL's label, marked where a side's timer left dispatches untimed.
std::string TotalLabel(const View& v) { return v.c.undercounted() ? "TOTAL (undercounted)" : "TOTAL"; }

// Says which side undercounts and by how much, where one does.
std::string UndercountLine(const View& v) {
  if (!v.c.undercounted()) return "";
  std::string sides;
  if (v.c.engine_untimed > 0) sides += "the engine's report left " + std::to_string(v.c.engine_untimed);
  if (v.c.baseline_untimed > 0) {
    sides += std::string(sides.empty() ? "" : ", ") + "the baseline's report left " + std::to_string(v.c.baseline_untimed);
  }
  return "Undercounted: " + sides +
         " dispatches untimed (instrumentation_notes.overflow_count), so per-token sums and TOTAL undercount; "
         "per-call medians stand, and the attack target is chosen per call.";
}

// A family or kernel row: µs/token and calls/token, beside a baseline their Δ and Δ %,
// alone the row's share of the total.
std::vector<document::Cell> RowCells(const View& v, const Row& r, const std::string& label, bool code) {
  using document::Cell;
  std::vector<Cell> cells = {code ? Cell::Code(label) : Cell::Text(label), Cell::Fixed(r.engine.us_per_token, 2)};
  if (v.baseline == nullptr) {
    const double total = v.c.total.engine.us_per_token;
    cells.push_back(Cell::Fixed(r.engine.calls_per_token, 4));
    cells.push_back(Cell::Written(util::Fixed(total > 0 ? 100 * r.engine.us_per_token / total : 0, 1) + "%",
                                  total > 0 ? 100 * r.engine.us_per_token / total : 0));
    return cells;
  }
  cells.push_back(Cell::Fixed(r.baseline.us_per_token, 2));
  cells.push_back(Cell::Signed(r.delta_us_per_token(), 2));
  cells.push_back(Cell::Percent(r.delta_pct()));
  cells.push_back(Cell::Fixed(r.engine.calls_per_token, 4));
  cells.push_back(Cell::Fixed(r.baseline.calls_per_token, 4));
  cells.push_back(Cell::Signed(r.delta_calls_per_token(), 4));
  return cells;
}

document::Table RowsTable(const View& v, const std::string& name, const std::string& what, const std::vector<Row>& rows,
                        size_t n) {
  using document::Align;
  document::Table t{name, {{what, Align::kLeft, kNameWidth}, {"µs/tok"}}, {}};
  if (v.baseline == nullptr) {
    t.columns.insert(t.columns.end(), {{"calls/tok"}, {"share"}});
  } else {
    t.columns.insert(t.columns.end(), {{"base µs/tok"}, {"Δ µs/tok"}, {"Δ%"}, {"calls/tok"}, {"base"}, {"Δ calls"}});
  }
  for (size_t i = 0; i < n && i < rows.size(); ++i) t.rows.push_back(RowCells(v, rows[i], rows[i].name, true));
  return t;
}

// Kernels with one original on each side, per call.
document::Table PerCallTable(const View& v) {
  using document::Cell;
  document::Table t{"per_call",
                  {{"Per call (one kernel each side)", document::Align::kLeft, kNameWidth}, {"µs/call"}, {"base"}, {"Δ%"}},
                  {}};
  const std::vector<Row> per_call = PerCallRows(v);
  for (size_t i = 0; i < per_call.size() && (v.top == 0 || i < v.top); ++i) {
    const Row& r = per_call[i];
    t.rows.push_back({Cell::Code(r.name), Cell::Fixed(*r.engine.us_per_call, 2), Cell::Fixed(*r.baseline.us_per_call, 2),
                      Cell::Percent(PerCallPct(r))});
  }
  return t;
}


json SideJson(const Side& s) {
  json j = {{"kernels", s.names}, {"us_per_token", s.us_per_token}, {"calls_per_token", s.calls_per_token}};
  if (s.us_per_call) j["us_per_call_median"] = *s.us_per_call;
  return j;
}

json RowJson(const Row& r, bool with_baseline) {
  json j = {{"name", r.name}, {"family", r.family}, {"engine", SideJson(r.engine)}};
  if (!with_baseline) return j;
  j["baseline"] = SideJson(r.baseline);
  j["delta_us_per_token"] = r.delta_us_per_token();
  j["delta_calls_per_token"] = r.delta_calls_per_token();
  j["delta_pct"] = r.delta_pct() ? json(*r.delta_pct()) : json(nullptr);
  return j;
}

json ReportJson(const KernelReport& r) {
  json figures = json::object();
  for (const metrics::Metric& m : MetricsOf(r)) {
    // An integer's text stays an integer, where a double holds it exactly (|v| <= 2^53).
    const bool exact_integer = m.is_integer && std::fabs(m.value.median) <= 9007199254740992.0;
    figures[m.id.GoldenPath()] =
        exact_integer ? json(static_cast<int64_t>(m.value.median)) : json(m.value.median);
  }
  json diagnostics = json::array();
  for (const auto& e : r.diagnostics.Entries()) {
    diagnostics.push_back({{"code", e.code}, {"count", e.count}, {"first_detail", e.first_detail}});
  }
  json families = json::object();
  for (const Kernel& k : r.kernels) families[k.name] = {{"matched", k.matched}, {"family", k.family}};
  return {{"name", r.name}, {"path", r.path}, {"metadata", r.metadata}, {"figures", figures},
          {"kernels", families}, {"diagnostics", diagnostics}};
}

}  // namespace

document::Document ReportDocument(const KernelReport& engine, const RenderOptions& options) {
  const View v = MakeView(engine, options);
  document::Document d;
  d.blocks.push_back(document::Heading{"Per-kernel timing: " + engine.name + (v.baseline ? " vs " + v.baseline->name : ""), 1, false});
  document::List reports{{{"engine:", Describe(engine), false}}};
  if (v.baseline) reports.items.push_back({"baseline:", Describe(*v.baseline), false});
  d.blocks.push_back(std::move(reports));
  d.blocks.push_back(document::Paragraph{FiguresNote(engine, v.baseline)});
  document::Table families = RowsTable(v, "families", "Family", v.c.families, v.c.families.size());
  families.rows.push_back(RowCells(v, v.c.total, TotalLabel(v), false));
  d.blocks.push_back(std::move(families));
  if (v.c.undercounted()) d.blocks.push_back(document::Paragraph{UndercountLine(v)});
  const std::vector<Row> kernels = KernelsForDisplay(v);
  const size_t shown = v.top == 0 ? kernels.size() : std::min(v.top, kernels.size());
  d.blocks.push_back(RowsTable(v, "kernels", "Kernel (specialisation dropped)", kernels, shown));
  if (shown < kernels.size()) {
    d.blocks.push_back(document::Paragraph{"... " + std::to_string(kernels.size() - shown) + " more (--top 0 shows all)"});
  }
  if (v.baseline) {
    d.blocks.push_back(PerCallTable(v));
    const std::vector<std::string> engine_only = v.c.engine_only(), baseline_only = v.c.baseline_only();
    d.blocks.push_back(document::List{{{"Engine only", "(" + std::to_string(engine_only.size()) + "): ", false, engine_only},
                                     {"Baseline only", "(" + std::to_string(baseline_only.size()) + "): ", false,
                                      baseline_only},
                                     {"Attack target:", AttackLine(v), v.c.attack_target.has_value(), {}}}});
  }
  const std::vector<std::string> diagnostics = DiagnosticLines(v);
  if (!diagnostics.empty()) {
    document::List list;
    for (const std::string& line : diagnostics) list.items.push_back({"", line, false});
    d.blocks.push_back(document::Heading{"Diagnostics", 2, false});
    d.blocks.push_back(std::move(list));
  }
  d.json = RenderJson(engine, options);
  return d;
}

std::string RenderJson(const KernelReport& engine, const RenderOptions& options) {
  const View v = MakeView(engine, options);
  json j = {{"kind", "perfgate.kernel_report"}, {"schema_version", 1}, {"note", FiguresNote(engine, v.baseline)},
            {"engine", ReportJson(engine)}};
  json families = json::array(), kernels = json::array();
  for (const Row& r : v.c.families) families.push_back(RowJson(r, v.baseline != nullptr));
  for (const Row& r : v.c.kernels) kernels.push_back(RowJson(r, v.baseline != nullptr));
  json comparison = {{"families", families}, {"kernels", kernels}, {"total", RowJson(v.c.total, v.baseline != nullptr)}};
  if (v.baseline) {
    j["baseline"] = ReportJson(*v.baseline);
    comparison["engine_only"] = v.c.engine_only();
    comparison["baseline_only"] = v.c.baseline_only();
    comparison["attack_target"] = v.c.attack_target ? json(*v.c.attack_target) : json(nullptr);
    comparison["attack_hint"] = v.c.attack_hint;
    comparison["attack_basis"] = v.c.attack_basis;
    comparison["untimed_dispatches"] = {{"engine", v.c.engine_untimed}, {"baseline", v.c.baseline_untimed}};
  }
  j[v.baseline ? "comparison" : "tables"] = comparison;
  return util::RenderLosslessJson(j);
}

}  // namespace perfgate::kernel_report
