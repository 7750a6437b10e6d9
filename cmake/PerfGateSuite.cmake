# perfgate_add_perf_suite(): registers a perf-regression suite with CTest.
#
#   perfgate_add_perf_suite(NAME
#     SOURCES a_perf.cc ...          # gtest sources, compiled straight into the executable
#     [GOLDEN_DIR dir]               # default: <top source dir>/golden/NAME
#     [RECORDINGS dir]               # default: <current source dir>/recordings
#     [LABELS extra ...]             # added to the label `perf`
#     [TIMEOUT seconds]              # per test; default 300
#     [RESOURCE_LOCK name ...]       # tests naming the same lock never run at once (e.g. gpu, ane)
#     [CACHE_DIR dir|OFF]            # attributed trials kept between its tests; default <build dir>/perfgate-cache
#     [PARALLEL])                    # allow ctest -j to run its tests concurrently (default: serial)
#
# Needs perfgate::gtest_main: find_package(PerfGate CONFIG REQUIRED COMPONENTS gtest), or
# perfgate embedded (add_subdirectory, FetchContent) with GoogleTest found; without it,
# a configure error says so. The suite links nothing else, so the calling project needs
# no find_package(GTest) of its own.
#
# One executable per suite; its tests are discovered with gtest_discover_tests and
# labelled `perf`, so `ctest -L perf` runs every suite and fails the build on a
# regression. The target NAME_update_golden reruns the suite with
# PERFGATE_UPDATE_GOLDEN=all to accept new figures.
#
# Fail closed: nothing here lets `ctest -L perf` pass by finding no tests.
#  - Testing must be enabled (enable_testing() or include(CTest)) in the top-level
#    directory and every directory down to the suite's, or configuring fails: without
#    it CTest never sees the suite, says "No tests were found" and exits 0.
#  - Every discovered test carries every property (LABELS perf and the extra labels,
#    TIMEOUT, RUN_SERIAL unless PARALLEL, RESOURCE_LOCK), set after discovery from
#    the discovered test list: gtest_discover_tests (3.25) flattens list values in
#    PROPERTIES, which shifts the key/value pairs and loses properties.
#  - Until a suite is built (or when it discovers no test), a test NAME_NOT_DISCOVERED
#    with the suite's labels fails and says why.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/PerfGateBenchmark.cmake)

# _perfgate_bracket(<out> <value>): <value> as one CMake bracket argument, `;` kept.
function(_perfgate_bracket out value)
  set(eq "=")
  while(value MATCHES "\\]${eq}(\\]|$)")
    string(APPEND eq "=")
  endwhile()
  set(${out} "[${eq}[${value}]${eq}]" PARENT_SCOPE)
endfunction()

# Run once, deferred to the end of the top-level directory, when every directory is
# complete. enable_testing() sets CMAKE_TESTING_ENABLED in its directory and the
# directories added after it below; CMake writes a directory's CTestTestfile.cmake
# only when that variable is true at the end of the directory, and ctest reaches a
# subdirectory only through its parent's file. So the suite's directory and each one
# above it must have it.
function(_perfgate_check_testing_enabled)
  get_property(names GLOBAL PROPERTY _PERFGATE_SUITE_NAMES)
  get_property(dirs GLOBAL PROPERTY _PERFGATE_SUITE_DIRS)
  set(errors "")
  foreach(name dir IN ZIP_LISTS names dirs)
    get_directory_property(suite_source_dir DIRECTORY "${dir}" SOURCE_DIR)
    set(at "${dir}")
    while(NOT "${at}" STREQUAL "")
      get_directory_property(enabled DIRECTORY "${at}" DEFINITION CMAKE_TESTING_ENABLED)
      if(NOT enabled)
        get_directory_property(at_source_dir DIRECTORY "${at}" SOURCE_DIR)
        string(APPEND errors
          "perfgate_add_perf_suite(${name}) in ${suite_source_dir}: testing is not "
          "enabled in ${at_source_dir}, so CTest will never see this suite: "
          "`ctest -L perf` would report \"No tests were found\" and pass.\n")
        break()
      endif()
      get_directory_property(at DIRECTORY "${at}" PARENT_DIRECTORY)
    endwhile()
  endforeach()
  if(errors)
    message(FATAL_ERROR "${errors}"
      "Call enable_testing() (or include(CTest)) in the top-level CMakeLists.txt, before "
      "perfgate_add_perf_suite() and the add_subdirectory() that leads to it. With "
      "include(CTest), BUILD_TESTING=OFF disables testing: then do not add perf suites.")
  endif()
endfunction()

function(perfgate_add_perf_suite NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PARALLEL" "GOLDEN_DIR;RECORDINGS;TIMEOUT;CACHE_DIR" "SOURCES;LABELS;RESOURCE_LOCK")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  # Each discovered test runs in a process of its own: without the cache each one
  # would read and attribute every recording of the suite again.
  if(NOT DEFINED ARG_CACHE_DIR)
    set(ARG_CACHE_DIR "${CMAKE_BINARY_DIR}/perfgate-cache")
  endif()
  if(ARG_CACHE_DIR)
    get_filename_component(ARG_CACHE_DIR "${ARG_CACHE_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    if(ARG_CACHE_DIR MATCHES ";")
      message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): CACHE_DIR may not hold ';': ${ARG_CACHE_DIR}")
    endif()
  endif()

  if(NOT TARGET perfgate::gtest_main)
    message(FATAL_ERROR "perfgate_add_perf_suite(${NAME}): perfgate's gtest component is missing. "
      "Installed perfgate: find_package(PerfGate CONFIG REQUIRED COMPONENTS gtest), with GoogleTest "
      "installed (Debian: libgtest-dev libgmock-dev; Homebrew: googletest). Embedded perfgate "
      "(add_subdirectory, FetchContent): GoogleTest must be found when perfgate is configured.")
  endif()
  # Here, not at file scope: GoogleTest.cmake keeps its discovery script's path in a
  # normal variable, which a consumer embedding perfgate would not see (include_guard).
  include(GoogleTest)
  add_executable(${NAME} ${ARG_SOURCES})
  # perfgate-owned: it resolves GoogleTest where perfgate found it (framework/CMakeLists.txt).
  target_link_libraries(${NAME} PRIVATE perfgate::gtest_main)
  # perfgate's own suites get its warnings; a consumer's suite keeps the consumer's flags.
  get_property(own_source_dir GLOBAL PROPERTY _PERFGATE_OWN_SOURCE_DIR)
  if(own_source_dir AND TARGET perfgate_build_flags)
    file(RELATIVE_PATH from_own_tree "${own_source_dir}" "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT from_own_tree MATCHES "^\\.\\.(/|$)")
      target_link_libraries(${NAME} PRIVATE perfgate_build_flags)
    endif()
  endif()
  # Shared with perfgate_add_perf_benchmark (PerfGateBenchmark.cmake).
  _perfgate_suite_definitions(${NAME} "${NAME}" "${ARG_GOLDEN_DIR}" "${ARG_RECORDINGS}" golden_dir)

  # The complete properties of every test. gtest_discover_tests (3.25) re-expands
  # PROPERTIES on its way to set_tests_properties, so a list value (even escaped as
  # `\;`) becomes several arguments and shifts the key/value pairs. It gets only single
  # values, a floor for a test left out of the discovered list (a name with a square
  # bracket); the complete set comes from a file CTest includes after discovery.
  set(labels perf ${ARG_LABELS})
  list(REMOVE_DUPLICATES labels)
  set(scalar_props LABELS perf TIMEOUT ${ARG_TIMEOUT})
  set(props "")
  _perfgate_bracket(value "${labels}")
  string(APPEND props " LABELS ${value} TIMEOUT ${ARG_TIMEOUT}")
  if(ARG_CACHE_DIR)
    list(APPEND scalar_props ENVIRONMENT "PERFGATE_CACHE_DIR=${ARG_CACHE_DIR}")
    _perfgate_bracket(value "PERFGATE_CACHE_DIR=${ARG_CACHE_DIR}")
    string(APPEND props " ENVIRONMENT ${value}")
  endif()
  if(NOT ARG_PARALLEL)
    list(APPEND scalar_props RUN_SERIAL TRUE)
    string(APPEND props " RUN_SERIAL TRUE")
  endif()
  if(ARG_RESOURCE_LOCK)
    list(REMOVE_DUPLICATES ARG_RESOURCE_LOCK)
    list(LENGTH ARG_RESOURCE_LOCK lock_count)
    if(lock_count EQUAL 1)
      list(APPEND scalar_props RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
    endif()
    _perfgate_bracket(value "${ARG_RESOURCE_LOCK}")
    string(APPEND props " RESOURCE_LOCK ${value}")
  endif()
  set(test_list ${NAME}_TESTS)
  gtest_discover_tests(${NAME}
    DISCOVERY_TIMEOUT 60
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/perf-results/${NAME}"
    TEST_LIST ${test_list}
    PROPERTIES ${scalar_props})

  # Included by CTest after gtest_discover_tests' file, which sets ${test_list} to the
  # discovered names once the suite is built.
  set(not_discovered "${CMAKE_CURRENT_BINARY_DIR}/${NAME}_not_discovered.cmake")
  file(CONFIGURE OUTPUT "${not_discovered}" CONTENT [[
message(FATAL_ERROR "perf suite @NAME@: no test was discovered. Build it first "
  "(cmake --build <build dir> --target @NAME@); a suite that discovers no test fails.")
]] @ONLY)
  _perfgate_bracket(placeholder_command "${CMAKE_COMMAND}")
  _perfgate_bracket(placeholder_script "${not_discovered}")
  set(properties_file "${CMAKE_CURRENT_BINARY_DIR}/${NAME}_perf_properties.cmake")
  file(CONFIGURE OUTPUT "${properties_file}" CONTENT [[
# Written by perfgate_add_perf_suite(@NAME@): the properties of its tests.
if(NOT "${@test_list@}" STREQUAL "")
  set_tests_properties(${@test_list@} PROPERTIES@props@)
else()
  add_test(@NAME@_NOT_DISCOVERED @placeholder_command@ -P @placeholder_script@)
  set_tests_properties(@NAME@_NOT_DISCOVERED PROPERTIES@props@)
endif()
]] @ONLY)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${properties_file}")

  # Checked once the whole tree is configured (see _perfgate_check_testing_enabled).
  set_property(GLOBAL APPEND PROPERTY _PERFGATE_SUITE_NAMES "${NAME}")
  set_property(GLOBAL APPEND PROPERTY _PERFGATE_SUITE_DIRS "${CMAKE_CURRENT_BINARY_DIR}")
  get_property(check_deferred GLOBAL PROPERTY _PERFGATE_TESTING_CHECK_DEFERRED)
  if(NOT check_deferred)
    set_property(GLOBAL PROPERTY _PERFGATE_TESTING_CHECK_DEFERRED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _perfgate_check_testing_enabled)
  endif()

  add_custom_target(${NAME}_update_golden
    COMMAND ${CMAKE_COMMAND} -E env PERFGATE_UPDATE_GOLDEN=all $<TARGET_FILE:${NAME}>
    DEPENDS ${NAME}
    COMMENT "Rewriting the goldens of ${NAME} in ${golden_dir}"
    VERBATIM)
endfunction()
