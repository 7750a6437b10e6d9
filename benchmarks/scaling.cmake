# Every source's reader at 20 MB, 200 MB and 2 GB (scaling_benchmark.cc); included from
# benchmarks/CMakeLists.txt, after nsys.cmake and json_trace.cmake (SQLite, zlib).
add_executable(scaling_benchmark
  ${CMAKE_CURRENT_LIST_DIR}/scaling_benchmark.cc
  ${CMAKE_CURRENT_LIST_DIR}/scaling_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/nsys_ceiling.cc
  ${CMAKE_CURRENT_LIST_DIR}/heap_meter.cc
  ${CMAKE_CURRENT_LIST_DIR}/../tests/unit/json_trace/kineto_gen.cc)
target_include_directories(scaling_benchmark PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/../tests ${CMAKE_CURRENT_LIST_DIR}/../tests/unit/json_trace)
# The nsys input is grown from the corpus export (PERFGATE_CORPUS_DIR wins over the cache).
target_compile_definitions(scaling_benchmark PRIVATE PERFGATE_DEFAULT_CORPUS_DIR="${PERFGATE_CORPUS_DIR}")
target_link_libraries(scaling_benchmark PRIVATE perfgate::framework perfgate::xctrace_gen perfgate_build_flags
                      benchmark::benchmark pugixml::static SQLite::SQLite3 ZLIB::ZLIB)
