// Rendering per-kernel timing reports (perfgate/kernel_report/render.h).
#include "perfgate/kernel_report/render.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "perfgate/kernel_report/compare.h"
#include "perfgate/core/names.h"
#include "perfgate/kernel_report/metrics.h"
#include "core/lossless_json.h"
#include "core/text_cells.h"

namespace perfgate::kernel_report {
namespace {

namespace util = ::perfgate::text;
using json = nlohmann::ordered_json;

constexpr const char* kMediansNote =
    "Medians only: every figure is a median the report carries, with no per-trial samples; a Δ is a "
    "difference of medians and a verdict a threshold comparison, never a rank test.";

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

std::string Describe(const KernelReport& r) {
  std::string out = r.name + " (" + r.path + ")";
  for (const char* key : {"device", "model", "commit", "n_tokens", "n_runs", "wall_clock_tok_per_sec_median"}) {
    auto it = r.metadata.find(key);
    if (it != r.metadata.end()) out += std::string("\n    ") + key + ": " + it->second;
  }
  return out;
}

std::string TextRow(const View& v, const Row& r, const std::string& label) {
  std::string line = util::Left(util::Truncate(label, kNameWidth), kNameWidth) + " " +
                     util::Right(util::Fixed(r.engine.us_per_token, 2), 11);
  if (v.baseline == nullptr) {
    const double total = v.c.total.engine.us_per_token;
    return line + " " + util::Right(util::Fixed(r.engine.calls_per_token, 4), 11) + " " +
           util::Right(util::Fixed(total > 0 ? 100 * r.engine.us_per_token / total : 0, 1) + "%", 8) + "\n";
  }
  return line + " " + util::Right(util::Fixed(r.baseline.us_per_token, 2), 11) + " " +
         util::Right(util::Signed(r.delta_us_per_token(), 2), 11) + " " + util::Right(util::Percent(r.delta_pct()), 8) +
         " " + util::Right(util::Fixed(r.engine.calls_per_token, 4), 9) + " " +
         util::Right(util::Fixed(r.baseline.calls_per_token, 4), 9) + " " +
         util::Right(util::Signed(r.delta_calls_per_token(), 4), 9) + "\n";
}

std::string TextHeader(const View& v, const std::string& what) {
  std::string line = util::Left(what, kNameWidth) + " " + util::Right("µs/tok", 11);
  if (v.baseline == nullptr) return line + " " + util::Right("calls/tok", 11) + " " + util::Right("share", 8) + "\n";
  return line + " " + util::Right("base µs/tok", 11) + " " + util::Right("Δ µs/tok", 11) + " " + util::Right("Δ%", 8) +
         " " + util::Right("calls/tok", 9) + " " + util::Right("base", 9) + " " + util::Right("Δ calls", 9) + "\n";
}

// One line in Markdown (names as inline code); wrapped at 110 columns in text,
// continuation lines indented.
std::string OneSideLines(const std::string& title, std::vector<std::string> names, bool markdown = false) {
  if (markdown) {
    for (std::string& n : names) n = util::MarkdownCode(n);
  }
  const std::string line = title + " (" + std::to_string(names.size()) + "): " + ListNames(names);
  if (markdown) return line + "\n";
  std::string out;
  for (const std::string& l : util::WrapLines(line, 110, 106)) out += (out.empty() ? "" : "    ") + l + "\n";
  return out;
}

std::string DiagnosticLines(const View& v) {
  std::string out;
  for (const KernelReport* r : {&v.engine, v.baseline}) {
    if (r == nullptr) continue;
    for (const auto& e : r->diagnostics.Entries()) {
      const std::string line = r->name + ": " + e.code + " x" + std::to_string(e.count) + ": " + e.first_detail;
      const std::vector<std::string> lines = util::WrapLines(line, 108, 104);
      for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "  " : "      ") + lines[i] + "\n";
    }
  }
  return out.empty() ? "" : "Diagnostics:\n" + out;
}

std::string AttackLine(const View& v) {
  if (!v.c.attack_target) {
    return "Attack target: none (no family costs the engine more than the baseline " + v.c.attack_basis + ")\n";
  }
  return "Attack target: " + *v.c.attack_target + " — " + v.c.attack_hint + "\n";
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
         "per-call medians stand, and the attack target is chosen per call.\n";
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

std::string RenderText(const KernelReport& engine, const RenderOptions& options) {
  const View v = MakeView(engine, options);
  std::string out = "Per-kernel timing report\n  engine: " + Describe(engine) + "\n";
  if (v.baseline) out += "  baseline: " + Describe(*v.baseline) + "\n";
  for (const std::string& line : util::WrapLines(kMediansNote, 110, 110)) out += line + "\n";
  out += "\n" + TextHeader(v, "Family");
  for (const Row& r : v.c.families) out += TextRow(v, r, r.name);
  out += TextRow(v, v.c.total, TotalLabel(v)) + UndercountLine(v) + "\n";
  const std::vector<Row> kernels = KernelsForDisplay(v);
  const size_t n = v.top == 0 ? kernels.size() : std::min(v.top, kernels.size());
  out += TextHeader(v, "Kernel (specialisation dropped)");
  for (size_t i = 0; i < n; ++i) out += TextRow(v, kernels[i], kernels[i].name);
  if (n < kernels.size()) out += "  ... " + std::to_string(kernels.size() - n) + " more (--top 0 shows all)\n";
  if (v.baseline) {
    const std::vector<Row> per_call = PerCallRows(v);
    out += "\n" + util::Left("Per call (one kernel each side)", kNameWidth) + " " + util::Right("µs/call", 11) + " " +
           util::Right("base", 11) + " " + util::Right("Δ%", 11) + "\n";
    for (size_t i = 0; i < per_call.size() && (v.top == 0 || i < v.top); ++i) {
      const Row& r = per_call[i];
      out += util::Left(util::Truncate(r.name, kNameWidth), kNameWidth) + " " +
             util::Right(util::Fixed(*r.engine.us_per_call, 2), 11) + " " +
             util::Right(util::Fixed(*r.baseline.us_per_call, 2), 11) + " " + util::Right(util::Percent(PerCallPct(r)), 11) +
             "\n";
    }
    out += "\n" + OneSideLines("Engine only", v.c.engine_only()) + OneSideLines("Baseline only", v.c.baseline_only());
    out += AttackLine(v);
  }
  return out + DiagnosticLines(v);
}

std::string RenderMarkdown(const KernelReport& engine, const RenderOptions& options) {
  const View v = MakeView(engine, options);
  std::string out = "## Per-kernel timing: " + engine.name + (v.baseline ? " vs " + v.baseline->name : "") + "\n\n";
  out += std::string("_") + kMediansNote + "_\n\n";
  const bool b = v.baseline != nullptr;
  auto table = [&](const std::string& what, const std::vector<Row>& rows, size_t n) {
    std::string t = b ? "| " + what + " | µs/tok | base µs/tok | Δ µs/tok | Δ% | calls/tok | base calls/tok |\n"
                          "|---|---:|---:|---:|---:|---:|---:|\n"
                      : "| " + what + " | µs/tok | calls/tok |\n|---|---:|---:|\n";
    for (size_t i = 0; i < n && i < rows.size(); ++i) {
      const Row& r = rows[i];
      t += "| " + util::MarkdownCode(r.name) + " | " + util::Fixed(r.engine.us_per_token, 2) + " | ";
      if (b) {
        t += util::Fixed(r.baseline.us_per_token, 2) + " | " + util::Signed(r.delta_us_per_token(), 2) + " | " +
             util::Percent(r.delta_pct()) + " | " + util::Fixed(r.engine.calls_per_token, 4) + " | " +
             util::Fixed(r.baseline.calls_per_token, 4) + " |\n";
      } else {
        t += util::Fixed(r.engine.calls_per_token, 4) + " |\n";
      }
    }
    return t + "\n";
  };
  out += table("Family", v.c.families, v.c.families.size());
  if (v.c.undercounted()) out += "_" + UndercountLine(v).substr(0, UndercountLine(v).size() - 1) + "_\n\n";
  const std::vector<Row> kernels = KernelsForDisplay(v);
  out += table("Kernel", kernels, v.top == 0 ? kernels.size() : v.top);
  if (b) {
    out += "| Per call | µs/call | base µs/call | Δ% |\n|---|---:|---:|---:|\n";
    const std::vector<Row> per_call = PerCallRows(v);
    for (size_t i = 0; i < per_call.size() && (v.top == 0 || i < v.top); ++i) {
      const Row& r = per_call[i];
      out += "| " + util::MarkdownCode(r.name) + " | " + util::Fixed(*r.engine.us_per_call, 2) + " | " +
             util::Fixed(*r.baseline.us_per_call, 2) + " | " + util::Percent(PerCallPct(r)) + " |\n";
    }
    out += "\n- " + OneSideLines("Engine only", v.c.engine_only(), true) + "- " +
           OneSideLines("Baseline only", v.c.baseline_only(), true) + "- " + AttackLine(v);
  }
  return out;
}

std::string RenderJson(const KernelReport& engine, const RenderOptions& options) {
  const View v = MakeView(engine, options);
  json j = {{"kind", "perfgate.kernel_report"}, {"schema_version", 1}, {"note", kMediansNote},
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
