# Included by run_consumer.cmake after configuring an embedding project (${build}):
# perfgate left the consumer's cache, its targets' flags and its `all` alone.

# No build type written for the consumer (it configured without one).
file(STRINGS "${build}/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT build_type STREQUAL "CMAKE_BUILD_TYPE:STRING=")
  message(FATAL_ERROR "embedded perfgate set the consumer's build type: ${build_type}")
endif()

# perfgate's warnings reach perfgate's own sources, never the consumer's suite.
file(READ "${build}/compile_commands.json" commands)
string(JSON count LENGTH "${commands}")
math(EXPR last "${count} - 1")
set(suite_command "")
set(framework_command "")
foreach(i RANGE ${last})
  string(JSON file GET "${commands}" ${i} file)
  string(JSON command GET "${commands}" ${i} command)
  if(file MATCHES "/my_decode_perf\\.cc$")
    set(suite_command "${command}")
  elseif(framework_command STREQUAL "" AND file MATCHES "perfgate_framework\\.dir/Unity/unity_[0-9]+_cxx\\.cxx$|/framework/src/")
    # One of the framework's translation units: its unity batches
    # (cmake/PerfGateUnityBuild.cmake), or a source kept out of them.
    set(framework_command "${command}")
  endif()
endforeach()
if(suite_command STREQUAL "" OR framework_command STREQUAL "")
  message(FATAL_ERROR "compile_commands.json lacks my_decode_perf.cc or a translation unit of perfgate_framework")
endif()
if(NOT framework_command MATCHES " -Wall " OR NOT framework_command MATCHES " -Wextra ")
  message(FATAL_ERROR "perfgate's own flags are not where this check looks for them:\n${framework_command}")
endif()
if(suite_command MATCHES " -W")
  message(FATAL_ERROR "perfgate's warning flags reached the consumer's suite:\n${suite_command}")
endif()

# The consumer's `all` (every command `ninja all` runs) builds perfgate's framework and
# gtest libraries, which the suite links, and nothing else of perfgate.
find_program(ninja NAMES ninja ninja-build REQUIRED)
execute_process(COMMAND ${ninja} -C "${build}" -t commands all OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commands MATCHES "libperfgate_framework\\.a" OR NOT commands MATCHES "libperfgate_gtest\\.a")
  message(FATAL_ERROR "the consumer's `all` does not build perfgate's libraries as expected (rc ${rc}):\n${commands}")
endif()
foreach(unwanted "tools/perfgate/" "xctrace_gen" "/tests/unit/" "/tests/badinput/" "/benchmarks/" "/suites/" "libperfgate_benchmark")
  string(FIND "${commands}" "${unwanted}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "embedded perfgate put `${unwanted}` in the consumer's `all`:\n${commands}")
  endif()
endforeach()
message(STATUS "${WAY}: the consumer's build type, flags and `all` are its own")
