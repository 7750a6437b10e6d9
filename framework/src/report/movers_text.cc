// The movers section every failing assertion, golden check and baseline report
// appends (report/diff_formats.h, RenderMovers), and a report's movers (MoversOf).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/report/diff_formats.h"
#include "perfgate/report/formats.h"
#include "report/diff_tables.h"
#include "report/report_util.h"

namespace perfgate::report {
namespace {

namespace cells = diff_cells;
using util::Left;
using util::Right;

// Columns of a text row (110 in all, with the indent).
constexpr size_t kNameWidth = 30, kStatusWidth = 7, kCallsWidth = 15, kUsWidth = 19, kDeltaWidth = 9,
                 kShareWidth = 6, kPerCallWidth = 9, kPWidth = 6;

std::string TextHeader() {
  return "  " + Left("name", kNameWidth) + " " + Left("status", kStatusWidth) + " " +
         Right("calls/tok", kCallsWidth) + " " + Right("\xC2\xB5s/tok", kUsWidth) + " " +
         Right("\xCE\x94 \xC2\xB5s/tok", kDeltaWidth) + " " + Right("share", kShareWidth) + " " +
         Right("\xCE\x94/call", kPerCallWidth) + " " + Right("p", kPWidth) + "\n";
}

std::string TextRow(const diff::Change& c) {
  // Names as error messages print them: a line break or ESC in a kernel name would
  // forge a line of the failure message, or reach the terminal.
  std::string row = "  " + Left(util::TruncateMiddle(FormatMessage(c.name), kNameWidth), kNameWidth) + " " +
                    Left(cells::Status(c), kStatusWidth) + " " + Right(cells::Calls(c), kCallsWidth) + " " +
                    Right(cells::Us(c), kUsWidth) + " " + Right(cells::DeltaUs(c), kDeltaWidth) + " " +
                    Right(cells::Share(c), kShareWidth) + " " + Right(cells::DeltaPerCall(c), kPerCallWidth) + " " +
                    Right(cells::P(c), kPWidth);
  while (!row.empty() && row.back() == ' ') row.pop_back();
  return row + "\n";
}

// Phases, families and kernels name causes; buckets are duration classes, so a
// headline draws on them only where no other level explains the figure.
bool ExplainsCauses(diff::Level level) { return level != diff::Level::kBucket; }

// A part explains at most its whole: a change more than this much larger than the
// failing figure's own lies mostly outside it (another partition of the work: a
// phase against a duration bucket of a different engine).
constexpr double kPartSlack = 1.1;

// The change explaining most of `what` at `level`: the largest Δ of its quantity with
// the sign of what's Δ and no larger than it (kPartSlack); none when none is.
const diff::Change* Explainer(const diff::LevelDiff& level, const Explained& what) {
  const diff::Change* best = nullptr;
  double best_value = 0;
  const double limit = std::abs(what.delta) * kPartSlack;
  if (!what.is_time && level.calls_word != what.calls_word) return nullptr;  // other calls: not comparable
  for (const diff::Change& c : level.changes) {
    if (c.rest) continue;
    const double value = (what.is_time ? c.delta_us() : c.delta_calls()) * (what.delta < 0 ? -1 : 1);
    if (value > best_value && value <= limit) {
      best = &c;
      best_value = value;
    }
  }
  return best;
}

// "hf2q.md_8_32us.us_per_token +50.2 µs/tok: 71 % from command-buffer phase
// layer.moe_gather (added, 1.00 sub/tok, 35.4 µs/tok)".
std::string Headline(const diff::LevelDiff& level, const diff::Change& c, const Explained& what) {
  const double part = what.is_time ? c.delta_us() : c.delta_calls();
  const std::string unit = what.is_time ? " \xC2\xB5s/tok" : "/tok";
  std::string line = "  " + FormatMessage(what.metric) + " " + util::Signed(what.delta, 2) + unit + ": ";
  if (what.delta != 0) line += util::Fixed(100.0 * part / what.delta, 0) + " % from ";
  line += level.word + " " + FormatMessage(c.name) + " (" + cells::Status(c) + ", ";
  if (c.presence == diff::Presence::kBoth) {
    line += cells::Calls(c) + " " + level.calls_word + "/tok, " + cells::Us(c) + " \xC2\xB5s/tok)";
  } else {
    const bool added = c.presence == diff::Presence::kAdded;
    line += cells::CallsNumber(added ? c.after_calls : c.before_calls) + " " + level.calls_word + "/tok, " +
            cells::UsNumber(added ? c.after_us : c.before_us) + " \xC2\xB5s/tok)";
  }
  return line + "\n";
}

// A headline per level that names causes; the buckets' only where none of those did.
std::string Headlines(const diff::Diff& d, const Explained& what) {
  std::string out;
  const diff::LevelDiff* buckets = nullptr;
  for (const diff::LevelDiff& level : d.levels) {
    if (!ExplainsCauses(level.level)) {
      buckets = &level;
      continue;
    }
    if (const diff::Change* c = Explainer(level, what)) out += Headline(level, *c, what);
  }
  if (out.empty() && buckets != nullptr) {
    if (const diff::Change* c = Explainer(*buckets, what)) out += Headline(*buckets, *c, what);
  }
  return out;
}

// The per-token figures, a line each, indented.
std::string FigureLines(const diff::Diff& d) {
  std::string out;
  for (const diff::FigureChange& f : d.figures) out += "  " + cells::Figure(f) + "\n";
  return out;
}

// What was not compared, a line each after `indent`.
std::string NotComparedLines(const diff::Diff& d, const std::string& indent) {
  std::string out;
  for (const std::string& item : cells::NotCompared(d)) out += indent + "not compared: " + item + "\n";
  return out;
}

}  // namespace

std::optional<diff::Diff> MoversOf(const Report& report) {
  const util::Sides sides = util::FindSides(report);
  if (sides.engine == nullptr || sides.baseline == nullptr || sides.engine->trials.empty() ||
      sides.baseline->trials.empty()) {
    return std::nullopt;  // summaries built without trials (tests, old callers): nothing to diff
  }
  diff::Diff d = diff::Compute(diff::SideOf(*sides.baseline), diff::SideOf(*sides.engine));
  if (d.levels.empty()) return std::nullopt;  // trials without per-level figures
  return d;
}

std::string RenderMovers(const diff::Diff& d, const std::optional<Explained>& what, size_t n) {
  if (n == 0) return "";
  std::string out = "what changed: " + FormatMessage(cells::SidesLine(d)) + "\n  " + cells::TotalLine(d) + "\n";
  for (const std::string& note : d.notes) out += "  caution: " + FormatMessage(note) + "\n";
  out += FigureLines(d) + NotComparedLines(d, "  ");
  if (what) out += Headlines(d, *what);
  for (const diff::LevelDiff& level : d.levels) {
    out += " top " + std::to_string(std::min(n, level.changes.size())) + " " + cells::LevelHeading(level) + "\n";
    out += TextHeader();
    for (const diff::Change& c : diff::TopMovers(level, n)) out += TextRow(c);
  }
  return out;
}

}  // namespace perfgate::report
