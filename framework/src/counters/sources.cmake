# Sources of engine counter reports (hf2q generate --benchmark), paths relative to framework/.
set(PERFGATE_COUNTERS_SOURCES
  src/counters/counter_report.cc
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_COUNTERS_GTEST_SOURCES
  src/gtest/counter_assertions.cc
)
# `perfgate history`'s text, Markdown and SVG renderers (the JSON one is in json_report.cc).
list(APPEND PERFGATE_COUNTERS_SOURCES src/report/history_report.cc)
