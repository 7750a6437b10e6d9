# The trace-event JSON reader's benchmark; included from benchmarks/CMakeLists.txt.
# It builds the Kineto-trace generator of the unit tests into the program.
set(perfgate_json_trace_bench_root ${CMAKE_CURRENT_LIST_DIR}/..)
# The reader's walker is benchmarked on its own too (BM_SimdjsonWalkNull).
find_package(simdjson REQUIRED)
add_executable(json_trace_benchmark
  ${CMAKE_CURRENT_LIST_DIR}/json_trace_benchmark.cc
  ${CMAKE_CURRENT_LIST_DIR}/heap_meter.cc
  ${perfgate_json_trace_bench_root}/tests/unit/json_trace/kineto_gen.cc)
target_include_directories(json_trace_benchmark PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}
  ${perfgate_json_trace_bench_root}/tests/unit/json_trace
  ${perfgate_json_trace_bench_root}/framework/src)
target_link_libraries(json_trace_benchmark PRIVATE perfgate::framework perfgate_build_flags benchmark::benchmark
                      nlohmann_json::nlohmann_json pugixml::static ZLIB::ZLIB simdjson::simdjson)
# The real JAX trace it reads lives in the source tree.
target_compile_definitions(json_trace_benchmark PRIVATE PERFGATE_SOURCE_DIR="${perfgate_json_trace_bench_root}")

# The diff's cost beyond reading, on two synthetic 50 MB traces (the same generator).
add_executable(diff_benchmark
  ${CMAKE_CURRENT_LIST_DIR}/diff_benchmark.cc
  ${perfgate_json_trace_bench_root}/tests/unit/json_trace/kineto_gen.cc)
target_include_directories(diff_benchmark PRIVATE ${perfgate_json_trace_bench_root}/tests/unit/json_trace)
target_link_libraries(diff_benchmark PRIVATE perfgate::framework perfgate_build_flags benchmark::benchmark
                      nlohmann_json::nlohmann_json ZLIB::ZLIB)
