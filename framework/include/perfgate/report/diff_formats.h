// A diff (perfgate/diff/diff.h) as `perfgate diff`'s document, and the movers section
// every failing assertion, golden check and baseline report appends.
#ifndef PERFGATE_REPORT_DIFF_FORMATS_H_
#define PERFGATE_REPORT_DIFF_FORMATS_H_

#include <cstddef>
#include <optional>
#include <string>

#include "perfgate/diff/diff.h"
#include "perfgate/document/document.h"

namespace perfgate::report {

// Rows per level in the tables and charts (the JSON holds every change).
inline constexpr size_t kDefaultDiffRows = 10;

// The diff as a document: the sides and the total, the cautions and per-token
// figures, a Δ bar chart per level (SVG, signed log scale), then per level a table of
// its `rows` largest changes and "N more". Its JSON is RenderDiffJson's.
document::Document DiffDocument(const diff::Diff& d, size_t rows = kDefaultDiffRows);
// {"kind": "perfgate.diff", "schema_version": 1, ...}: every change of every level,
// every double lossless (docs/cli.md, "perfgate diff").
std::string RenderDiffJson(const diff::Diff& d);

// What a failure explains: the failing figure and its change.
struct Explained {
  std::string metric;  // as the verdict table names it: "hf2q.md_8_32us.us_per_token"
  double delta = 0;    // its change, engine minus reference
  bool is_time = true;  // GPU µs per token; false: a count per token of `calls_word`
  // What the count counts ("submissions", "kernels"): only levels whose calls are
  // the same (LevelDiff::calls_word) can explain it.
  std::string calls_word;
};

// The movers section: a headline per level naming the change that explains most of
// `what`'s Δ (buckets only where no other level does) ("hf2q.md_8_32us.us_per_token +50.2 µs/tok: 71 % from command-buffer
// phase layer.moe_gather (added, 1.00 sub/tok, 35.4 µs/tok)"), then the top `n`
// movers of each level. "" when n is 0.
std::string RenderMovers(const diff::Diff& d, const std::optional<Explained>& what, size_t n);

}  // namespace perfgate::report

#endif  // PERFGATE_REPORT_DIFF_FORMATS_H_
