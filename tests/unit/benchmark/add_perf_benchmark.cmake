# perfgate_add_perf_benchmark defines the suite's name and paths exactly as
# perfgate_add_perf_suite does (same defaults, same absolute paths), and fails the
# configure on an unknown argument or without SOURCES. Configures project/ (stub
# targets, nothing is built) once per case.
foreach(var SUITE_CMAKE PROJECT_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "add_perf_benchmark.cmake needs -D${var}=...")
  endif()
endforeach()

function(configure case)
  file(REMOVE_RECURSE "${WORK_DIR}/${case}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${PROJECT_DIR}" -B "${WORK_DIR}/${case}" -G "${GENERATOR}"
                          "-DPERFGATE_SUITE_CMAKE=${SUITE_CMAKE}" "-DCASE=${case}" "-DGTest_DIR=${GTEST_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endfunction()

function(defs target out_var)
  file(READ "${WORK_DIR}/paths/defs_${target}.txt" d)
  set(${out_var} "${d}" PARENT_SCOPE)
endfunction()

configure(paths)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the paths project failed to configure (${rc}):\n${out}")
endif()
get_filename_component(parent "${PROJECT_DIR}" DIRECTORY)
set(expected_given
  "PERFGATE_SUITE_NAME=\"given_suite\";PERFGATE_GOLDEN_DIR=\"${parent}/gold\";PERFGATE_RECORDINGS_DIR=\"${PROJECT_DIR}/rec\"")
set(expected_default
  "PERFGATE_SUITE_NAME=\"default_suite\";PERFGATE_GOLDEN_DIR=\"${PROJECT_DIR}/golden/default_suite\";PERFGATE_RECORDINGS_DIR=\"${PROJECT_DIR}/recordings\"")
foreach(pair "given_suite;given_bench;${expected_given}" "default_suite;default_bench;${expected_default}")
  list(GET pair 0 suite)
  list(GET pair 1 bench)
  list(SUBLIST pair 2 -1 expected)
  defs(${suite} suite_defs)
  defs(${bench} bench_defs)
  if(NOT suite_defs STREQUAL expected OR NOT bench_defs STREQUAL expected)
    message(FATAL_ERROR "definitions differ:\n  expected        ${expected}\n  ${suite}  ${suite_defs}\n  ${bench}  ${bench_defs}")
  endif()
endforeach()
defs(default_suite_name d)
if(NOT d MATCHES "PERFGATE_SUITE_NAME=\"default_suite_name\";PERFGATE_GOLDEN_DIR=\"${PROJECT_DIR}/golden/default_suite_name\"")
  message(FATAL_ERROR "SUITE does not default to NAME: ${d}")
endif()

configure(unknown_argument)
if(rc EQUAL 0 OR NOT out MATCHES "perfgate_add_perf_benchmark\\(typo_bench\\): unknown arguments RECORDING;rec")
  message(FATAL_ERROR "an unknown argument did not fail the configure (${rc}):\n${out}")
endif()
configure(unknown_argument_after_sources)  # lands in SOURCES: still a keyword
if(rc EQUAL 0 OR NOT out MATCHES "perfgate_add_perf_benchmark\\(typo_bench\\): unknown arguments RECORDING[ \n]")
  message(FATAL_ERROR "an unknown argument after SOURCES did not fail the configure (${rc}):\n${out}")
endif()
configure(no_sources)
if(rc EQUAL 0 OR NOT out MATCHES "perfgate_add_perf_benchmark\\(empty_bench\\): SOURCES is required")
  message(FATAL_ERROR "a call without SOURCES did not fail the configure (${rc}):\n${out}")
endif()
message(STATUS "perfgate_add_perf_benchmark: same definitions as perfgate_add_perf_suite; bad calls fail")
