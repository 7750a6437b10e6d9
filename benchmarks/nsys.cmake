# The nsys SQLite reader's benchmark; included from benchmarks/CMakeLists.txt. It reads
# the 2xH100 export of shared/corpus (PERFGATE_CORPUS_DIR wins over the CMake cache).
find_package(SQLite3 REQUIRED)
add_executable(nsys_benchmark ${CMAKE_CURRENT_LIST_DIR}/nsys_benchmark.cc ${CMAKE_CURRENT_LIST_DIR}/nsys_ceiling.cc)
target_compile_definitions(nsys_benchmark PRIVATE PERFGATE_DEFAULT_CORPUS_DIR="${PERFGATE_CORPUS_DIR}")
target_include_directories(nsys_benchmark PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../tests)
target_link_libraries(nsys_benchmark PRIVATE perfgate::framework perfgate_build_flags benchmark::benchmark
                      SQLite::SQLite3)
