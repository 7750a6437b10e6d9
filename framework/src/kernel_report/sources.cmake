# Sources of per-kernel timing reports (llama.cpp / candle phase0 JSON), paths relative to framework/.
set(PERFGATE_KERNEL_REPORT_SOURCES
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_KERNEL_REPORT_GTEST_SOURCES
)
