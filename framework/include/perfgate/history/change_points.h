// Change points of a series: E-divisive means with a significance test, as Apache
// Otava (formerly Hunter) computes them: candidate splits by the energy statistic,
// each kept when a two-sample test calls the sides different (p <= max_pvalue) and
// the relative change of means reaches min_magnitude.
#ifndef PERFGATE_HISTORY_CHANGE_POINTS_H_
#define PERFGATE_HISTORY_CHANGE_POINTS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::history {

// Otava's settings; its defaults are ours unless docs/change-points.md says otherwise.
struct ChangePointOptions {
  int window = 50;             // points per analysis window
  double max_pvalue = 1e-5;    // kept when its p-value is at most this (Otava's: 0.001; docs/change-points.md §3)
  double min_magnitude = 0.0;  // ... and |mean_after / mean_before - 1| at least this
};

// A change point: the series changes between index - 1 and index.
struct ChangePoint {
  int64_t index = 0;  // the first point of the new level
  double mean_before = 0;
  double mean_after = 0;
  double stddev_before = 0;
  double stddev_after = 0;
  double pvalue = 1;
  // mean_after / mean_before - 1 (0 when mean_before is 0).
  double Magnitude() const;
};

// Every change point of `series`, in index order.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options);

// The change points at index >= `from` of `series`, computed from the windows that
// reach those points only: O(window^2) work, whatever the series' length, and the same
// change points FindChangePoints reports at those indices.
std::vector<ChangePoint> FindChangePointsSince(const std::vector<double>& series, int64_t from,
                                               const ChangePointOptions& options);

// Why `options` cannot be used ("window must be at least 2 ..."), or "" when they can:
// window >= 2, max_pvalue within [0, 1], min_magnitude finite and >= 0. The functions
// above abort on options it refuses, and on a non-finite point of `series` (the store
// never holds one), as on any broken precondition: check options from flags here.
std::string ChangePointOptionsError(const ChangePointOptions& options);

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_CHANGE_POINTS_H_
