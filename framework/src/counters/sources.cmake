# Sources of engine counter reports (hf2q generate --benchmark), paths relative to framework/.
set(PERFGATE_COUNTERS_SOURCES
  src/counters/counter_report.cc
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_COUNTERS_GTEST_SOURCES
  src/gtest/counter_assertions.cc
)
