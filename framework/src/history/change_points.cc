// Change points as Apache Otava computes them (split: E-divisive with a t-test in
// overlapping windows, at a relaxed p-value; merge: drop the weakest split until every
// one left passes), made local so that the newest runs can be checked in O(window^2):
// the windows lie on a fixed grid, and each block of half a window is merged on its
// own context (the block and a window either side). docs/change-points.md says why and
// how this differs from Otava.
#include "perfgate/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "history/change_points_divisive.h"

namespace perfgate::history {
namespace change_point_windows {
namespace {

using divisive::SideStats;

// The windows and blocks of a series of `n` points. Window j is
// [j*step, j*step + window) and block k is [k*step, (k+1)*step), both cut at n; block
// k's context is [k*step - window, (k+1)*step + window), cut at 0 and n.
struct Layout {
  int64_t n = 0;
  int64_t window = 0;
  int64_t step = 0;

  int64_t ContextBegin(int64_t block) const { return std::max<int64_t>(0, block * step - window); }
  int64_t ContextEnd(int64_t block) const { return std::min(n, (block + 1) * step + window); }
  // The first window that reaches past `point`.
  int64_t FirstWindowReaching(int64_t point) const { return point < window ? 0 : (point - window) / step + 1; }
};

// Otava's first pass: splits are kept at a p-value ten times (two times, above 0.05)
// the final one, so that a change the window hides partly still reaches the merge.
double FirstPassPValue(double max_pvalue) {
  if (max_pvalue < 0.05) return max_pvalue * 10;
  if (max_pvalue < 0.5) return max_pvalue * 2;
  return max_pvalue;
}

// A programming error (the store refuses non-finite figures, the CLI checks options):
// say so and abort, as perfgate does on every broken precondition.
[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "perfgate: Check failed: change points: %s\n", what.c_str());
  std::abort();
}

// The points read, from `first_read` on.
void CheckFinite(const std::vector<double>& series, int64_t first_read) {
  for (size_t i = static_cast<size_t>(first_read); i < series.size(); ++i) {
    if (!std::isfinite(series[i])) Fail("series[" + std::to_string(i) + "] is not finite");
  }
}

// The weak change points of the windows from `first_window` on: the splits E-divisive
// keeps at the first-pass p-value, as absolute indices, sorted, each once.
std::vector<int64_t> WeakChangePoints(const std::vector<double>& series, const Layout& layout, int64_t first_window,
                                      double first_pass_pvalue) {
  std::vector<int64_t> weak;
  for (int64_t j = first_window; j * layout.step < layout.n; ++j) {
    const int64_t begin = j * layout.step;
    const int64_t end = std::min(layout.n, begin + layout.window);
    for (const divisive::Split& s : divisive::DivisiveSplits(series, begin, end, first_pass_pvalue)) {
      weak.push_back(begin + s.index);
    }
  }
  std::sort(weak.begin(), weak.end());
  weak.erase(std::unique(weak.begin(), weak.end()), weak.end());
  return weak;
}

struct WeakPoint {
  int64_t index = 0;
  SideStats stats;
};

double RelativeChange(const SideStats& s) { return s.mean_before == 0 ? 0 : s.mean_after / s.mean_before - 1; }

// Each point's t-test against its neighbours (or the context's ends).
void Judge(const std::vector<double>& series, int64_t begin, int64_t end, std::vector<WeakPoint>* points, size_t at) {
  if (at >= points->size()) return;
  const int64_t left = at == 0 ? begin : (*points)[at - 1].index;
  const int64_t right = at + 1 == points->size() ? end : (*points)[at + 1].index;
  (*points)[at].stats = divisive::CompareSides(series, left, (*points)[at].index, right);
}

// Otava's weakest point: the one of largest p-value (the first on ties) while it is
// above max_pvalue, then the one of smallest |relative change| while that is below
// min_magnitude; points->size() when every point passes.
size_t Weakest(const std::vector<WeakPoint>& points, const ChangePointOptions& options) {
  size_t weakest = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].stats.pvalue > points[weakest].stats.pvalue) weakest = i;
  }
  if (points[weakest].stats.pvalue > options.max_pvalue) return weakest;
  for (size_t i = 1; i < points.size(); ++i) {
    if (std::fabs(RelativeChange(points[i].stats)) < std::fabs(RelativeChange(points[weakest].stats))) weakest = i;
  }
  if (std::fabs(RelativeChange(points[weakest].stats)) < options.min_magnitude) return weakest;
  return points.size();
}

// Otava's merge on series[begin, end): the weak points inside it, each judged against
// its neighbours, lose their weakest until all pass; a removal re-judges both
// neighbours.
std::vector<WeakPoint> Merge(const std::vector<double>& series, int64_t begin, int64_t end,
                             const std::vector<int64_t>& weak, const ChangePointOptions& options) {
  std::vector<WeakPoint> points;
  for (auto it = std::upper_bound(weak.begin(), weak.end(), begin); it != weak.end() && *it < end; ++it) {
    points.push_back({*it, {}});
  }
  for (size_t i = 0; i < points.size(); ++i) Judge(series, begin, end, &points, i);
  while (!points.empty()) {
    const size_t weakest = Weakest(points, options);
    if (weakest == points.size()) break;
    points.erase(points.begin() + static_cast<std::ptrdiff_t>(weakest));
    if (weakest > 0) Judge(series, begin, end, &points, weakest - 1);
    Judge(series, begin, end, &points, weakest);
  }
  return points;
}

ChangePoint ToChangePoint(const WeakPoint& p) {
  ChangePoint c;
  c.index = p.index;
  c.mean_before = p.stats.mean_before;
  c.mean_after = p.stats.mean_after;
  c.stddev_before = p.stats.stddev_before;
  c.stddev_after = p.stats.stddev_after;
  c.pvalue = p.stats.pvalue;
  return c;
}

// The change points at index >= from: each block from the one holding `from` on keeps
// what the merge of its context leaves inside it.
std::vector<ChangePoint> ChangePointsFrom(const std::vector<double>& series, int64_t from,
                                          const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  const int64_t n = static_cast<int64_t>(series.size());
  if (std::string why = ChangePointOptionsError(options); !why.empty()) Fail(why);
  from = std::max<int64_t>(from, 0);
  if (from >= n) return found;
  const Layout layout{n, options.window, options.window / 2};
  const int64_t first_block = from / layout.step;
  const int64_t first_window = layout.FirstWindowReaching(layout.ContextBegin(first_block));
  CheckFinite(series, first_window * layout.step);
  const std::vector<int64_t> weak = WeakChangePoints(series, layout, first_window, FirstPassPValue(options.max_pvalue));
  for (int64_t block = first_block; block * layout.step < n; ++block) {
    const int64_t block_begin = std::max(block * layout.step, from);
    const int64_t block_end = (block + 1) * layout.step;
    const auto first = std::lower_bound(weak.begin(), weak.end(), block_begin);
    if (first == weak.end() || *first >= block_end) continue;
    for (const WeakPoint& p : Merge(series, layout.ContextBegin(block), layout.ContextEnd(block), weak, options)) {
      if (p.index >= block_begin && p.index < block_end) found.push_back(ToChangePoint(p));
    }
  }
  return found;
}

}  // namespace
}  // namespace change_point_windows

double ChangePoint::Magnitude() const { return mean_before == 0 ? 0 : mean_after / mean_before - 1; }

std::string ChangePointOptionsError(const ChangePointOptions& options) {
  if (options.window < 2) return "window must be at least 2 (it is " + std::to_string(options.window) + ")";
  if (!(options.max_pvalue >= 0 && options.max_pvalue <= 1)) return "max_pvalue must be within [0, 1]";
  if (!(options.min_magnitude >= 0) || std::isinf(options.min_magnitude)) {
    return "min_magnitude must be finite and at least 0";
  }
  return "";
}

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options) {
  return change_point_windows::ChangePointsFrom(series, 0, options);
}

std::vector<ChangePoint> FindChangePointsSince(const std::vector<double>& series, int64_t from,
                                               const ChangePointOptions& options) {
  return change_point_windows::ChangePointsFrom(series, from, options);
}

}  // namespace perfgate::history
