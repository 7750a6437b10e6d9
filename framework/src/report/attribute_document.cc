// The attribution report as one document (report/formats.h, AttributeDocument): the
// headline, the method, the inputs, the bucket tables, the per-trial figures, the
// movers and the diagnostics; the level tables and the charts come from
// attribute_levels.cc and attribute_charts.cc. Every format renders this document.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/report/formats.h"
#include "perfgate/stats/summary.h"
#include "core/string_util.h"
#include "report/attribute_sections.h"
#include "report/diff_tables.h"

namespace perfgate::report {
namespace {

using attribution::Delta;
using attribution::EngineSummary;
using attribution::TrialSummary;
using document::Cell;
using document::Document;
using document::List;
using sections::AddFoldedHeading;
using sections::AddHeading;
using sections::AddParagraph;
using sections::Blank;
using sections::Context;
using sections::Dash;
using sections::Joined;
using sections::NameOf;
using sections::SidesOf;
using util::Fixed;
using util::Percent;
using util::PValue;
using util::Signed;

// "perfgate GPU attribution per decode token (Metal System Trace): hf2q vs llama".
std::string Title(const Context& c) {
  std::string title = "perfgate GPU attribution per decode token (" + std::string(util::WordsOf(c.report).source) + ")";
  if (c.sides.engine == nullptr) return title;
  return title + ": " + c.engine + (c.sides.baseline != nullptr ? " vs " + c.baseline : "");
}

// "Attack target xl_>=80us: Δ +797.6 µs/tok (+8.9%), p = 0.100, …; likely kernel
// class: …", or none.
List::Item AttackTargetItem(const Context& c) {
  const attribution::Comparison& cmp = *c.report.comparison;
  if (!cmp.attack_target) return {"Attack target:", "none (no bucket regressed).", true};
  std::string why = *cmp.attack_target;
  const auto it = std::find_if(cmp.buckets.begin(), cmp.buckets.end(),
                               [&](const Delta& x) { return x.name == *cmp.attack_target; });
  if (it != cmp.buckets.end()) {
    why += ": Δ " + Signed(it->delta, 1) + " µs/tok (" + Percent(it->delta_pct) + "), p = " + PValue(it->p_value);
  }
  const std::string hint = util::BucketHint(c.report, *cmp.attack_target, cmp.attack_hint);
  return {"Attack target",
          why + ", the bucket with the largest positive Δµs/tok; likely kernel class: " +
              (hint.empty() ? std::string("unknown") : hint) + ".",
          true};
}

// The total GPU time of both sides with Δ and p, the busy time and the items per token.
List::Item ComparedTotalItem(const Context& c) {
  const EngineSummary& e = *c.sides.engine;
  const EngineSummary& b = *c.sides.baseline;
  const Delta& t = c.report.comparison->total;
  const Delta& s = c.report.comparison->items_per_token;
  const std::string units(util::WordsOf(c.report).units);
  return {"Total GPU time:",
          Fixed(t.engine, 1) + " vs " + Fixed(t.baseline, 1) + " µs/tok, Δ " + Signed(t.delta, 1) + " (" +
              Percent(t.delta_pct) + "), p = " + PValue(t.p_value) + " (n = " + std::to_string(e.trials.size()) +
              "/" + std::to_string(b.trials.size()) + " trials). Busy (union) " +
              Fixed(e.busy_us_per_token.median, 1) + " vs " + Fixed(b.busy_us_per_token.median, 1) + " µs/tok. " +
              util::Capitalized(units) + "/tok " + Fixed(s.engine, 1) + " vs " + Fixed(s.baseline, 1) + ".",
          true};
}

List::Item EngineTotalItem(const Context& c) {
  const EngineSummary& e = *c.sides.engine;
  return {"Total GPU time:",
          Fixed(e.gpu_us_per_token.median, 1) + " µs/tok (busy, union: " + Fixed(e.busy_us_per_token.median, 1) +
              "), " + Fixed(e.items_per_token.median, 1) + " " + std::string(util::WordsOf(c.report).units) +
              "/tok, median of " + std::to_string(e.trials.size()) + " trials; no baseline, so no attack target.",
          true};
}

// What a reader needs first: the attack target and the total, with a baseline; the
// engine's total without one.
void Headline(const Context& c, Document& d) {
  List headline;
  headline.wrap = true;
  if (c.sides.baseline == nullptr) {
    headline.items = {EngineTotalItem(c)};
  } else {
    headline.items = {AttackTargetItem(c), ComparedTotalItem(c)};
  }
  d.blocks.push_back(headline);
}

void Method(const Context& c, Document& d) {
  const sources::SourceWords& words = util::WordsOf(c.report);
  AddFoldedHeading(d, "Method", 3);
  List method;
  method.wrap = true;
  method.items.push_back({"", std::string(words.method_note)});
  method.items.push_back({"", std::string(words.figures_note)});
  if (!words.method_details.empty()) {
    for (std::string_view paragraph : Split(words.method_details, '\n')) method.items.push_back({"", std::string(paragraph)});
  }
  if (util::SeedCompatApplies(c.report)) {
    method.items.push_back({"", c.report.seed_compat
                                     ? "Mode: seed-compatible: whole trace, every process, the seed's pairing and "
                                       "p95, as in hf2q ADR-015."
                                     : "Mode: corrected: target process only, decode window, FIFO pairing, "
                                       "nearest-rank percentiles."});
  }
  d.blocks.push_back(method);
}

// "read: 3308 submissions; rows 6616, unpaired ends 0, ...": the source's own counts
// of its records, in its words (times are shown elsewhere).
std::string ReadCounts(const TrialSummary& t, const sources::SourceWords& words) {
  std::string read = "read: " + std::to_string(t.items_read) + " " + std::string(words.units);
  const char* separator = "; ";
  for (const auto& [name, n] : t.source_counts) {
    if (EndsWith(name, "_ns")) continue;
    std::string piece = name + " " + std::to_string(n);
    std::replace(piece.begin(), piece.end(), '_', ' ');
    read += separator + piece;
    separator = ", ";
  }
  return read;
}

std::string TokenLine(const TrialSummary& t) {
  std::string tokens = "tokens: " + std::to_string(t.tokens) + " (" +
                       (t.tokens_source.empty() ? std::string("given") : t.tokens_source) + ")";
  if (t.tokens_in_trace && *t.tokens_in_trace != t.tokens) {
    tokens += ", " + std::to_string(*t.tokens_in_trace) + " counted in the trace";
  }
  if (const std::optional<int64_t> intervals = attribution::FindSourceCount(t, "gpu_intervals_union_ns")) {
    const double us = static_cast<double>(*intervals) / 1000.0 / static_cast<double>(std::max<int64_t>(t.tokens, 1));
    tokens += " | gpu-intervals union " + Fixed(us, 1) + " µs/tok (" +
              Percent(util::PercentOf(static_cast<double>(*intervals - t.busy_union_ns),
                                      static_cast<double>(t.busy_union_ns)),
                      2) +
              " vs busy)";
  }
  return tokens;
}

// A trial's item and its counts, one level below it.
void TrialItems(const TrialSummary& t, List& inputs) {
  const auto source = sources::FindSource(t.source);
  const sources::SourceWords& words = (source.ok() ? *source : &sources::BuiltinSources().front())->descriptor.words;
  inputs.items.push_back({"",
                          util::BaseName(t.path) + ": " + std::string(words.units) + "=" + std::to_string(t.items) +
                              " (" + Fixed(t.items_per_token, 1) + "/tok), gpu=" + Fixed(t.gpu_us_per_token, 1) +
                              " µs/tok summed, " + Fixed(t.busy_us_per_token, 1) + " µs/tok busy (union)",
                          false, {}, 1});
  inputs.items.push_back({"", ReadCounts(t, words), false, {}, 2});
  inputs.items.push_back({"",
                          "excluded: other process " + std::to_string(t.excluded_other_process) + ", no owner " +
                              std::to_string(t.excluded_no_owner) + ", unnamed owner " +
                              std::to_string(t.excluded_unnamed_owner) + ", outside window " +
                              std::to_string(t.excluded_outside_window),
                          false, {}, 2});
  inputs.items.push_back({"", TokenLine(t), false, {}, 2});
}

void Inputs(const Context& c, Document& d) {
  AddFoldedHeading(d, "Inputs", 3);
  List inputs;
  inputs.wrap = true;
  for (const EngineSummary& e : c.report.engines) {
    inputs.items.push_back({"", e.name + " trials: " + std::to_string(e.trials.size())});
    for (const TrialSummary& t : e.trials) TrialItems(t, inputs);
  }
  d.blocks.push_back(inputs);
}

// The seed's md-bucket summary: count/token × p50 = µs/token, Δ as % of the baseline total.
void MdBucketSummary(const Context& c, Document& d) {
  const attribution::Comparison& cmp = *c.report.comparison;
  const std::string md = "md_8_32us";
  const auto it = std::find_if(cmp.buckets.begin(), cmp.buckets.end(), [&](const Delta& x) { return x.name == md; });
  if (it == cmp.buckets.end()) return;
  const std::string sub(util::WordsOf(c.report).unit_abbrev), per_sub = util::PerTok(sub);
  const std::string hint = util::BucketHint(c.report, md);
  List summary;
  summary.wrap = true;
  summary.items.push_back({"", md + " bucket summary" + (hint.empty() ? std::string() : " (" + hint + ")") + ":"});
  for (const EngineSummary* s : {c.sides.engine, c.sides.baseline}) {
    const attribution::BucketMedians& b = util::FindBucket(*s, md);
    const double us = s == c.sides.engine ? it->engine : it->baseline;
    summary.items.push_back({"", NameOf(c, s) + ": " + Fixed(b.items_per_token.median, 1) + " " + per_sub + " × " +
                                     Fixed(b.p50_us.median, 2) + " µs/" + sub + " (p50) = " + Fixed(us, 1) + " µs/tok",
                             false, {}, 1});
  }
  summary.items.push_back({"", "delta: " + Signed(it->delta, 1) + " µs/tok (" +
                                   Percent(util::PercentOf(it->delta, cmp.total.baseline), 2) +
                                   " of the baseline's total GPU µs/tok)",
                           false, {}, 1});
  d.blocks.push_back(summary);
}

// A bucket's cells for one side: per-token count, p50 duration, µs/token.
void SideBucketCells(const attribution::BucketMedians& b, double us, std::vector<Cell>& row) {
  row.push_back(Cell::Fixed(b.items_per_token.median, 1));
  row.push_back(Cell::Fixed(b.p50_us.median, 2));
  row.push_back(Cell::Fixed(us, 1));
}

// The bucket table: each side's count, p50 and µs per token, then Δ, Δ% and p; the
// totals and the busy (union) time below.
document::Table BucketTable(const Context& c) {
  const EngineSummary& e = *c.sides.engine;
  const EngineSummary& b = *c.sides.baseline;
  const attribution::Comparison& cmp = *c.report.comparison;
  const std::string sub(util::WordsOf(c.report).unit_abbrev);
  document::Table table{"buckets", {sections::Left("bucket")}};
  for (int side = 0; side < 2; ++side) {
    for (const std::string& title : {util::PerTok(sub), "p50 µs/" + sub, std::string("µs/tok")}) {
      table.columns.push_back(sections::Right(title));
    }
  }
  for (const char* title : {"Δµs/tok", "Δ%", "p"}) table.columns.push_back(sections::Right(title));
  table.groups = {{c.engine + " (engine)", 1, 3}, {c.baseline + " (baseline)", 4, 3}};
  for (const Delta& x : cmp.buckets) {
    std::vector<Cell> row = {Cell::Code(x.name)};
    SideBucketCells(util::FindBucket(e, x.name), x.engine, row);
    SideBucketCells(util::FindBucket(b, x.name), x.baseline, row);
    row.insert(row.end(), {Cell::Signed(x.delta, 1), Cell::Percent(x.delta_pct), Cell::PValue(x.p_value)});
    table.rows.push_back(row);
  }
  const Delta& t = cmp.total;
  table.totals.push_back({Cell::Text("TOTAL"), Cell::Fixed(e.items_per_token.median, 1), Dash(),
                          Cell::Fixed(t.engine, 1), Cell::Fixed(b.items_per_token.median, 1), Dash(),
                          Cell::Fixed(t.baseline, 1), Cell::Signed(t.delta, 1), Cell::Percent(t.delta_pct),
                          Cell::PValue(t.p_value)});
  const stats::Delta busy = stats::CompareTrials(b.busy_us_per_token.per_trial, e.busy_us_per_token.per_trial);
  table.totals.push_back({Cell::Text("busy (union)"), Blank(), Blank(), Cell::Fixed(busy.after, 1), Blank(), Blank(),
                          Cell::Fixed(busy.before, 1), Cell::Signed(busy.delta, 1), Cell::Percent(busy.delta_pct),
                          Blank()});
  return table;
}

void BucketSection(const Context& c, Document& d) {
  const attribution::Comparison& cmp = *c.report.comparison;
  const sources::SourceWords& words = util::WordsOf(c.report);
  const std::string dispatch(words.unit), sub(words.unit_abbrev);
  AddHeading(d, "Side-by-side bucketed attribution (medians across trials)");
  AddParagraph(d, "Columns: " + util::PerTok(sub) + " = " + dispatch + "s per token; p50 µs/" + sub + " = median " +
                      dispatch + " duration (median over trials); p = two-sided Mann-Whitney U over per-trial values, "
                      "n = " + std::to_string(c.sides.engine->trials.size()) + " vs " +
                      std::to_string(c.sides.baseline->trials.size()) + " trials.");
  d.blocks.push_back(BucketTable(c));
  const Delta& s = cmp.items_per_token;
  AddParagraph(d, util::Capitalized(dispatch) + "s/tok: " + Fixed(s.engine, 1) + " vs " + Fixed(s.baseline, 1) +
                      ", Δ " + Signed(s.delta, 1) + " (" + Percent(s.delta_pct) + "), p = " + PValue(s.p_value));
  MdBucketSummary(c, d);
}

void EngineOnlyBucketSection(const Context& c, Document& d) {
  const EngineSummary& e = *c.sides.engine;
  const std::string sub(util::WordsOf(c.report).unit_abbrev);
  AddHeading(d, c.engine + "-only partial attribution (no baseline given)");
  document::Table table{"buckets",
                        {sections::Left("bucket"), sections::Right(util::PerTok(sub)), sections::Right("p50 µs/" + sub),
                         sections::Right("µs/tok")}};
  for (const auto& [name, b] : e.buckets) {
    table.rows.push_back({Cell::Code(name), Cell::Fixed(b.items_per_token.median, 1), Cell::Fixed(b.p50_us.median, 2),
                          Cell::Fixed(b.us_per_token.median, 1)});
  }
  table.totals.push_back(
      {Cell::Text("TOTAL"), Cell::Fixed(e.items_per_token.median, 1), Dash(), Cell::Fixed(e.gpu_us_per_token.median, 1)});
  table.totals.push_back({Cell::Text("busy (union)"), Blank(), Blank(), Cell::Fixed(e.busy_us_per_token.median, 1)});
  d.blocks.push_back(table);
}

double Spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 ? (*hi - *lo) / *lo * 100.0 : 0;
}

void PerTrial(const Context& c, Document& d) {
  List per_trial;
  per_trial.wrap = true;
  for (const EngineSummary* s : SidesOf(c)) {
    const std::vector<double>& gpu = s->gpu_us_per_token.per_trial;
    const std::vector<double>& busy = s->busy_us_per_token.per_trial;
    if (!gpu.empty()) {
      per_trial.items.push_back({"", NameOf(c, s) + " per-trial gpu µs/tok (summed): " + Joined(gpu) + " (spread " +
                                         Fixed(Spread(gpu), 1) + "%)"});
    }
    if (!busy.empty()) per_trial.items.push_back({"", NameOf(c, s) + " per-trial busy µs/tok (union): " + Joined(busy)});
  }
  if (per_trial.items.empty()) return;
  AddFoldedHeading(d, "Per-trial GPU time");
  d.blocks.push_back(per_trial);
}

// What changed from the baseline to the engine, the top movers of each level (perfgate
// diff's, which lists every change).
void Movers(const std::optional<diff::Diff>& movers, Document& d) {
  if (!movers) return;
  AddHeading(d, "Top movers (perfgate diff BASELINE ENGINE lists every change)");
  AddParagraph(d, diff_cells::SidesLine(*movers) + ".");
  AddDiffSummary(*movers, d);
  AddMoversTables(*movers, kReportMovers, d);
}

void AddDiagnostics(const Context& c, Document& d) {
  document::Table table{"diagnostics",
                        {sections::Left("engine"), sections::Left("code"), sections::Left("severity"),
                         sections::Right("count"), sections::Left("meaning")}};
  for (const EngineSummary& e : c.report.engines) {
    for (const auto& entry : e.diagnostics.Entries()) {
      const DiagnosticDescriptor* descriptor = FindDiagnostic(entry.code);
      table.rows.push_back({Cell::Text(e.name), Cell::Code(entry.code), Cell::Text(std::string(SeverityName(entry.severity))),
                            Cell::Integer(entry.count),
                            Cell::Text(descriptor ? std::string(descriptor->summary) : std::string())});
    }
  }
  if (table.rows.empty()) return;
  AddHeading(d, "Diagnostics (counted anomalies, merged over trials)");
  d.blocks.push_back(table);
}

Context ContextOf(const Report& report) {
  Context c{report, util::FindSides(report), "", ""};
  if (c.sides.engine != nullptr) c.engine = util::SideName(report, c.sides.engine, false);
  if (c.sides.baseline != nullptr) c.baseline = util::SideName(report, c.sides.baseline, true);
  return c;
}

}  // namespace

document::Document AttributeDocument(const Report& report) {
  const Context c = ContextOf(report);
  const std::optional<diff::Diff> movers = MoversOf(report);
  Document d;
  d.json = RenderJsonWithMovers(report, movers);
  AddHeading(d, Title(c), 1);
  if (c.sides.engine == nullptr) {
    AddParagraph(d, "No traces summarised.");
    return d;
  }
  Headline(c, d);
  sections::Charts(c, d);
  Method(c, d);
  Inputs(c, d);
  if (c.sides.baseline != nullptr) {
    BucketSection(c, d);
  } else {
    EngineOnlyBucketSection(c, d);
  }
  sections::CounterSection(c, d);
  sections::FamilySection(c, d);
  sections::KernelNameSection(c, d);
  sections::PhaseSection(c, d);
  Movers(movers, d);
  sections::RegistrySection(c, d);
  PerTrial(c, d);
  AddDiagnostics(c, d);
  AddParagraph(d, std::string(util::WordsOf(report).dispatch_note) + " Medians over trials" +
                      (report.comparison ? "; p: two-sided Mann-Whitney U over per-trial values" : "") + ".");
  return d;
}

}  // namespace perfgate::report
