# What "the suite passed" means to the packaging and scaffold tests. CTest prints
# "100% tests passed, 0 tests failed out of N" also when tests were SKIPPED (a suite
# whose recording is missing skips outside CI), so a pass is checked two ways:
#   - perfgate_ctest_ci_env: the prefix that runs ctest as CI does (CI=1, no
#     PERFGATE_ALLOW_SKIP), under which a missing recording fails;
#   - perfgate_ctest_passed(): exactly <count> tests passed and none was skipped.
set(perfgate_ctest_ci_env ${CMAKE_COMMAND} -E env --unset=PERFGATE_ALLOW_SKIP CI=1)

# perfgate_ctest_passed(<result var> <ctest output> <count>): TRUE or FALSE.
function(perfgate_ctest_passed result_var output count)
  set(passed FALSE)
  if(output MATCHES "100% tests passed, 0 tests failed out of ${count}\n"
     AND NOT output MATCHES "did not run|Skipped|\\*\\*\\*Skipped")
    set(passed TRUE)
  endif()
  set(${result_var} ${passed} PARENT_SCOPE)
endfunction()
