// Private: what the verdict statistics (verdict.cc) and the judge (judge.cc) share, so
// a spread, a printed value and the bad direction mean the same in both.
#ifndef PERFGATE_SRC_GATES_GATES_INTERNAL_H_
#define PERFGATE_SRC_GATES_GATES_INTERNAL_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "perfgate/gates/verdict.h"

namespace perfgate::gates::internal {

// max - min of the values; 0 for none.
inline double Spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

// Values: six significant digits (9735.6, 44, 0.0123).
inline std::string FormatValue(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// How far `delta` goes in the bad direction (either way for kBoth).
inline double BadwardDelta(double delta, Direction direction) {
  if (direction == Direction::kBoth) return std::fabs(delta);
  return direction == Direction::kLowerIsBetter ? delta : -delta;
}

}  // namespace perfgate::gates::internal

#endif  // PERFGATE_SRC_GATES_GATES_INTERNAL_H_
