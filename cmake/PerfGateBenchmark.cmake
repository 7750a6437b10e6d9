# perfgate_add_perf_benchmark(): a suite's Google Benchmark program (compare.py input).
#
#   perfgate_add_perf_benchmark(NAME
#     SOURCES a_benchmark.cc ...     # the program; main is PERFGATE_BENCHMARK_MAIN(...)
#     [SUITE name]                   # the suite it reports; default NAME
#     [GOLDEN_DIR dir]               # default: <top source dir>/golden/<SUITE>
#     [RECORDINGS dir])              # default: <current source dir>/recordings
#
# Defines PERFGATE_SUITE_NAME, PERFGATE_GOLDEN_DIR and PERFGATE_RECORDINGS_DIR exactly as
# perfgate_add_perf_suite does (same defaults, relative paths resolved against the
# current source directory; both call _perfgate_suite_definitions), and links
# perfgate::benchmark. Unknown arguments, no SOURCES, or no perfgate::benchmark (the
# package's benchmark component) fail the configure.
# Included by PerfGateSuite.cmake, installed beside it.
include_guard(GLOBAL)

# _perfgate_suite_definitions(<target> <suite> <golden_dir or ""> <recordings or ""> <golden_out>):
# the suite's names and paths as compile definitions of <target>; the absolute golden
# directory in <golden_out>.
function(_perfgate_suite_definitions target suite golden recordings golden_out)
  if(NOT golden)
    set(golden "${CMAKE_SOURCE_DIR}/golden/${suite}")
  endif()
  if(NOT recordings)
    set(recordings "${CMAKE_CURRENT_SOURCE_DIR}/recordings")
  endif()
  get_filename_component(golden_dir "${golden}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(recordings_dir "${recordings}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_definitions(${target} PRIVATE
    PERFGATE_SUITE_NAME="${suite}"
    PERFGATE_GOLDEN_DIR="${golden_dir}"
    PERFGATE_RECORDINGS_DIR="${recordings_dir}")
  set(${golden_out} "${golden_dir}" PARENT_SCOPE)
endfunction()

function(perfgate_add_perf_benchmark NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SUITE;GOLDEN_DIR;RECORDINGS" "SOURCES")
  # A misspelt keyword after SOURCES lands in SOURCES: one in capitals that names no
  # file is taken for a keyword.
  foreach(source IN LISTS ARG_SOURCES)
    if(source MATCHES "^[A-Z][A-Z_]*$" AND NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${source}")
      list(APPEND ARG_UNPARSED_ARGUMENTS "${source}")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "perfgate_add_perf_benchmark(${NAME}): unknown arguments ${ARG_UNPARSED_ARGUMENTS} "
                        "(known: SOURCES, SUITE, GOLDEN_DIR, RECORDINGS)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "perfgate_add_perf_benchmark(${NAME}): SOURCES is required")
  endif()
  if(NOT ARG_SUITE)
    set(ARG_SUITE "${NAME}")
  endif()
  if(NOT TARGET perfgate::benchmark)
    message(FATAL_ERROR "perfgate_add_perf_benchmark(${NAME}): perfgate's benchmark component is missing. "
      "Installed perfgate: find_package(PerfGate CONFIG REQUIRED COMPONENTS benchmark), with Google Benchmark "
      "installed (Debian: libbenchmark-dev; Homebrew: google-benchmark). Embedded perfgate "
      "(add_subdirectory, FetchContent): Google Benchmark must be found when perfgate is configured.")
  endif()
  add_executable(${NAME} ${ARG_SOURCES})
  target_link_libraries(${NAME} PRIVATE perfgate::benchmark)
  _perfgate_suite_definitions(${NAME} "${ARG_SUITE}" "${ARG_GOLDEN_DIR}" "${ARG_RECORDINGS}" golden_dir)
endfunction()
