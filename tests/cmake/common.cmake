# Shared by the drivers in tests/cmake: configure, build and query throwaway
# projects that include the PerfGateSuite.cmake named by -DSUITE_CMAKE=.
foreach(var SUITE_CMAKE PROJECTS_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "${CMAKE_SCRIPT_MODE_FILE} needs -D${var}=...")
  endif()
endforeach()

# run(<command>...): runs it; sets run_rc and run_output (stdout and stderr together)
# in the caller.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(run_rc "${rc}" PARENT_SCOPE)
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# must_run(<command>...): run() that fails the test unless the command succeeds.
function(must_run)
  run(${ARGN})
  if(NOT run_rc EQUAL 0)
    message(FATAL_ERROR "failed (${run_rc}): ${ARGN}\n${run_output}")
  endif()
  set(run_output "${run_output}" PARENT_SCOPE)
endfunction()

# configure_project(<source> <binary> [-D...]...): run() of a fresh configure.
function(configure_project source binary)
  file(REMOVE_RECURSE "${binary}")
  set(args -S "${source}" -B "${binary}" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
      "-DPERFGATE_SUITE_CMAKE=${SUITE_CMAKE}")
  foreach(forwarded CXX_COMPILER CXX_COMPILER_LAUNCHER MAKE_PROGRAM)
    if(NOT "${${forwarded}}" STREQUAL "")
      list(APPEND args "-DCMAKE_${forwarded}=${${forwarded}}")
    endif()
  endforeach()
  if(NOT "${GTEST_DIR}" STREQUAL "")
    list(APPEND args "-DGTest_DIR=${GTEST_DIR}")
  endif()
  run(${CMAKE_COMMAND} ${args} ${ARGN})
  set(run_rc "${run_rc}" PARENT_SCOPE)
  set(run_output "${run_output}" PARENT_SCOPE)
endfunction()

# expect_total(<ctest -N output> <n> <what>): `ctest -N` listed exactly n tests.
function(expect_total output n what)
  if(NOT output MATCHES "Total Tests: ([0-9]+)")
    message(FATAL_ERROR "${what}: no test count in:\n${output}")
  endif()
  if(NOT CMAKE_MATCH_1 EQUAL n)
    message(FATAL_ERROR "${what}: ${CMAKE_MATCH_1} tests, expected ${n}:\n${output}")
  endif()
endfunction()
