# The ANE notch's on/off evaluation pairs as Google Benchmark results, replayed from
# fixtures/ane (included from benchmarks/CMakeLists.txt).
add_executable(ane_notch_benchmark ${CMAKE_CURRENT_LIST_DIR}/ane_notch_benchmark.cc)
target_link_libraries(ane_notch_benchmark PRIVATE perfgate::ane perfgate_build_flags benchmark::benchmark)
target_compile_definitions(ane_notch_benchmark PRIVATE
  PERFGATE_ANE_FIXTURES_DIR="${PROJECT_SOURCE_DIR}/fixtures/ane")
