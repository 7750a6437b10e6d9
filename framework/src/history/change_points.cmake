# Change points of a series (E-divisive with a t-test, as Apache Otava computes them;
# docs/change-points.md).
list(APPEND PERFGATE_HISTORY_SOURCES
  src/history/change_points.cc
  src/history/change_points_divisive.cc
)
