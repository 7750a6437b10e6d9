# Change points: the unit tests (in history_test), the drivers of tests/history/ and the
# cross-check of the C++ E-divisive against the Python reference written from the paper.
list(APPEND PERFGATE_HISTORY_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/change_points_test.cc)

set(perfgate_change_points_dir ${CMAKE_CURRENT_LIST_DIR}/../../history)
# One window's hierarchical E-divisive (splits, q-hat, t-test p) for series on stdin.
add_executable(change_points_edivisive ${perfgate_change_points_dir}/edivisive_driver.cc)
target_include_directories(change_points_edivisive PRIVATE ${PROJECT_SOURCE_DIR}/framework/src)
target_link_libraries(change_points_edivisive PRIVATE perfgate::framework perfgate_build_flags)
# Detection rate, delay and false alarms of planted steps (run by hand: docs/change-points.md).
add_executable(change_points_simulation ${perfgate_change_points_dir}/simulation.cc)
target_link_libraries(change_points_simulation PRIVATE perfgate::framework perfgate_build_flags)

find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME history.change_points_cross_check
  COMMAND Python3::Interpreter ${perfgate_change_points_dir}/cross_check.py
          --driver $<TARGET_FILE:change_points_edivisive>)
set_tests_properties(history.change_points_cross_check PROPERTIES LABELS unit TIMEOUT 120)
# ... and the comparison fails where it must (a q-hat 1e-6 off, a split moved, a p flipped).
add_test(NAME history.change_points_cross_check_fails_on_a_difference
  COMMAND Python3::Interpreter ${perfgate_change_points_dir}/cross_check.py --self-test)
set_tests_properties(history.change_points_cross_check_fails_on_a_difference PROPERTIES LABELS unit TIMEOUT 120)
# The simulation's own smoke run: a few trials of every row, so that it keeps working.
add_test(NAME history.change_points_simulation_smoke
  COMMAND change_points_simulation --trials 3 --no-step-trials 3)
set_tests_properties(history.change_points_simulation_smoke PROPERTIES LABELS unit TIMEOUT 120)
