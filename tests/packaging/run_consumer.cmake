# Builds the README's consumer project one way and runs its perf suite:
#   WAY=find_package      installs BUILD_DIR into a scratch prefix and builds against it
#                         (plus consumer/, the older names, and components/, what the
#                         package's components load and refuse);
#   WAY=add_subdirectory  third_party/perfgate is a link to SOURCE_DIR;
#   WAY=fetchcontent      FetchContent clones a file:// URL of a scratch repository
#                         holding one commit: SOURCE_DIR's files as they are now,
#                         uncommitted changes included.
# Each way: the suite passes (exactly its two tests) and fails on the regressed hf2q
# recording. Embedded, perfgate must leave the consumer's cache, flags and `all` alone.
foreach(var WAY SOURCE_DIR WORK_DIR RECORDINGS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake needs -D${var}=...")
  endif()
endforeach()
if(NOT WAY MATCHES "^(find_package|add_subdirectory|fetchcontent)$")
  message(FATAL_ERROR "WAY=${WAY}: not find_package, add_subdirectory or fetchcontent")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/readme_blocks.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/ctest_passed.cmake)
perfgate_check_readme("${SOURCE_DIR}" ${WAY})

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()
# Like run(), but the command must fail and print <pattern>.
function(run_fails pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " flat "${out}${err}")  # CMake wraps its messages
  if(rc EQUAL 0 OR NOT flat MATCHES "${pattern}")
    message(FATAL_ERROR "expected failure matching `${pattern}` (rc ${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
# As CI runs it: a skipped test (a recording not found) fails here.
function(expect_passed build_dir count)
  run(${perfgate_ctest_ci_env} ${CMAKE_CTEST_COMMAND} --test-dir "${build_dir}" --output-on-failure ${ARGN})
  perfgate_ctest_passed(passed "${last_output}" ${count})
  if(NOT passed)
    message(FATAL_ERROR "${build_dir}: not exactly ${count} passing tests, none skipped:\n${last_output}")
  endif()
  message(STATUS "${build_dir}: ${count} tests passed")
endfunction()
set(launcher "")
if(CXX_COMPILER_LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER}")
endif()

# The README's project: its CMakeLists.txt, the suite, recordings/ beside them.
set(project "${WORK_DIR}/project")
file(MAKE_DIRECTORY "${project}")
file(COPY "${SOURCE_DIR}/tests/packaging/${WAY}/CMakeLists.txt"
          "${SOURCE_DIR}/tests/packaging/consumer/my_decode_perf.cc" DESTINATION "${project}")
file(CREATE_LINK "${RECORDINGS}" "${project}/recordings" SYMBOLIC)
set(build "${WORK_DIR}/build")

if(WAY STREQUAL "find_package")
  if(NOT DEFINED BUILD_DIR)
    message(FATAL_ERROR "WAY=find_package needs -DBUILD_DIR=<perfgate build to install>")
  endif()
  set(prefix "${WORK_DIR}/prefix")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
  run(${CMAKE_COMMAND} -S "${project}" -B "${build}" -G Ninja ${launcher}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
  include(${CMAKE_CURRENT_LIST_DIR}/check_components.cmake)
  # The older names, and find_package without COMPONENTS.
  run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/packaging/consumer" -B "${WORK_DIR}/compat" -G Ninja ${launcher}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DPERFGATE_TEST_RECORDINGS=${RECORDINGS})
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/compat")
  run(${CMAKE_COMMAND} -E env PERFGATE_UPDATE_GOLDEN=new PERFGATE_UPDATE_GOLDEN_FORCE=1
      ${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/compat" -L perf --output-on-failure)
  expect_passed("${WORK_DIR}/compat" 1 -L perf)
else()
  # Embedded: no build type (so none is written for us), and compile_commands.json to
  # read the consumer target's flags.
  set(embedded_args -G Ninja ${launcher} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  if(EMBEDDED_CXX_COMPILER)
    list(APPEND embedded_args -DCMAKE_CXX_COMPILER=${EMBEDDED_CXX_COMPILER})
  endif()
  if(WAY STREQUAL "add_subdirectory")
    file(MAKE_DIRECTORY "${project}/third_party")
    file(CREATE_LINK "${SOURCE_DIR}" "${project}/third_party/perfgate" SYMBOLIC)
  else()
    include(${CMAKE_CURRENT_LIST_DIR}/snapshot_repo.cmake)
    perfgate_snapshot_repo("${SOURCE_DIR}" "${WORK_DIR}/perfgate.git" snapshot_commit)
    list(APPEND embedded_args "-DPERFGATE_GIT_REPOSITORY=file://${WORK_DIR}/perfgate.git"
                              "-DPERFGATE_GIT_TAG=${snapshot_commit}")
  endif()
  run(${CMAKE_COMMAND} -S "${project}" -B "${build}" ${embedded_args})
endif()

if(NOT WAY STREQUAL "find_package")
  include(${CMAKE_CURRENT_LIST_DIR}/check_embedded.cmake)
endif()
# The add_subdirectory way stops here: configured, its targets, flags and build type
# checked. Building it would compile perfgate's libraries a second time for what the
# fetchcontent way builds, links and runs already (FetchContent ends in the same
# add_subdirectory), 71 s of CI's 2 cores.
if(WAY STREQUAL "add_subdirectory")
  message(STATUS "add_subdirectory: configured, perfgate's targets and flags as expected (fetchcontent builds them)")
  return()
endif()
run(${CMAKE_COMMAND} --build "${build}")
# Step 4 of the README: create the goldens once (forced: CI refuses golden writes).
run(${CMAKE_COMMAND} -E env PERFGATE_UPDATE_GOLDEN=new PERFGATE_UPDATE_GOLDEN_FORCE=1
    ${CMAKE_CTEST_COMMAND} --test-dir "${build}" -L perf --output-on-failure)
# Every test of the project, not only `perf`: embedded perfgate adds none of its own.
expect_passed("${build}" 2)

# The README example fails on the regressed hf2q recording beside the usual llama.
file(MAKE_DIRECTORY "${WORK_DIR}/regressed")
file(CREATE_LINK "${RECORDINGS}/../decode_q4_0_regressed/hf2q" "${WORK_DIR}/regressed/hf2q" SYMBOLIC)
file(CREATE_LINK "${RECORDINGS}/llama" "${WORK_DIR}/regressed/llama" SYMBOLIC)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PERFGATE_RECORDINGS=${WORK_DIR}/regressed
                        ${CMAKE_CTEST_COMMAND} --test-dir "${build}" -L decode --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT out MATCHES "hf2q\\.submissions_per_token +46\\.5 +47\\.61")
  message(FATAL_ERROR "the README example did not fail on the regressed recording (rc ${rc}):\n${out}${err}")
endif()
message(STATUS "${WAY}: the README example fails on the regressed recording")
