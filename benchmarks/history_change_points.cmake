# Change points (perfgate/history/change_points.h): one run's check of the newest runs
# of a 10,000-run series, of 200 such series, and the whole series' analysis. Included
# from benchmarks/CMakeLists.txt.
add_executable(history_change_points_benchmark ${CMAKE_CURRENT_LIST_DIR}/history_change_points_benchmark.cc)
target_link_libraries(history_change_points_benchmark PRIVATE perfgate::framework perfgate_build_flags
                      benchmark::benchmark)
