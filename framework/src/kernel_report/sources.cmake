# Sources of per-kernel timing reports (llama.cpp / candle phase0 JSON, nsys stats), paths relative to framework/.
set(PERFGATE_KERNEL_REPORT_SOURCES
  src/kernel_report/compare.cc
  src/kernel_report/families.cc
  src/kernel_report/metrics.cc
  src/kernel_report/nsys_stats_report.cc
  src/kernel_report/nsys_stats_tables.cc
  src/kernel_report/reader.cc
  src/kernel_report/render.cc
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_KERNEL_REPORT_GTEST_SOURCES
  src/gtest/kernel_report_assertions.cc
)
