# perfgate_add_perf_suite(): registers a perf-regression suite with CTest.
#
#   perfgate_add_perf_suite(NAME
#     SOURCES a_perf.cc ...          # gtest sources, compiled straight into the executable
#     [GOLDEN_DIR dir]               # default: <top source dir>/golden/NAME
#     [RECORDINGS dir]               # default: <current source dir>/recordings
#     [LABELS extra ...]             # added to the label `perf`
#     [TIMEOUT seconds]              # per test; default 300
#     [RESOURCE_LOCK name ...]       # tests naming the same lock never run at once (e.g. gpu, ane)
#     [PARALLEL])                    # allow ctest -j to run its tests concurrently (default: serial)
#
# One executable per suite; its tests are discovered with gtest_discover_tests and
# labelled `perf`, so `ctest -L perf` runs every suite and fails the build on a
# regression. The target NAME_update_golden reruns the suite with
# PERFGATE_UPDATE_GOLDEN=all to accept new figures.
include_guard(GLOBAL)
include(GoogleTest)

function(perfgate_add_perf_suite NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PARALLEL" "GOLDEN_DIR;RECORDINGS;TIMEOUT" "SOURCES;LABELS;RESOURCE_LOCK")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_GOLDEN_DIR)
    set(ARG_GOLDEN_DIR "${CMAKE_SOURCE_DIR}/golden/${NAME}")
  endif()
  if(NOT ARG_RECORDINGS)
    set(ARG_RECORDINGS "${CMAKE_CURRENT_SOURCE_DIR}/recordings")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  get_filename_component(golden_dir "${ARG_GOLDEN_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(recordings_dir "${ARG_RECORDINGS}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")

  add_executable(${NAME} ${ARG_SOURCES})
  target_link_libraries(${NAME} PRIVATE perfgate::gtest GTest::gtest_main)
  target_compile_definitions(${NAME} PRIVATE
    PERFGATE_SUITE_NAME="${NAME}"
    PERFGATE_GOLDEN_DIR="${golden_dir}"
    PERFGATE_RECORDINGS_DIR="${recordings_dir}")

  # LABELS is a list; gtest_discover_tests flattens lists in PROPERTIES, so escape it.
  set(labels perf ${ARG_LABELS})
  list(REMOVE_DUPLICATES labels)
  string(REPLACE ";" "\\;" labels "${labels}")
  set(props LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT})
  if(NOT ARG_PARALLEL)
    list(APPEND props RUN_SERIAL TRUE)
  endif()
  if(ARG_RESOURCE_LOCK)
    string(REPLACE ";" "\\;" locks "${ARG_RESOURCE_LOCK}")
    list(APPEND props RESOURCE_LOCK "${locks}")
  endif()
  gtest_discover_tests(${NAME}
    DISCOVERY_TIMEOUT 60
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/perf-results/${NAME}"
    PROPERTIES ${props})

  add_custom_target(${NAME}_update_golden
    COMMAND ${CMAKE_COMMAND} -E env PERFGATE_UPDATE_GOLDEN=all $<TARGET_FILE:${NAME}>
    DEPENDS ${NAME}
    COMMENT "Rewriting the goldens of ${NAME} in ${golden_dir}"
    VERBATIM)
endfunction()
