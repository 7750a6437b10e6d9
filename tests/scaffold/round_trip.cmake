# The scaffold round trip, as a user runs it: install this build into a scratch prefix,
# let the installed `perfgate new-suite` write a suite from the bundled recordings, run
# the two commands it prints, exactly as printed, and check that the suite passes as
# written, then fails on the regressed recording (budget and golden). Then the same on
# the trace-event JSON recordings of the H200: written, built, passing.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "round_trip.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
include(${SOURCE_DIR}/tests/packaging/ctest_passed.cmake)
set(fixtures "${SOURCE_DIR}/fixtures/recordings")
# The consumer builds with Ninja (a package perfgate's CI installs) whatever CMake's
# default generator; the printed commands name none.
set(ENV{CMAKE_GENERATOR} Ninja)

# run(<output var> <rc var> <command>...): runs in WORK_DIR, stdout and stderr apart.
function(run out_var rc_var)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(last_stderr "${err}" PARENT_SCOPE)
endfunction()

# Runs the printed ctest command as CI does; it must pass exactly <count> tests, none skipped.
function(expect_passed what run_command count)
  run(out rc ${perfgate_ctest_ci_env} sh -c "${run_command}")
  must_succeed("${run_command}" "${rc}" "${out}")
  perfgate_ctest_passed(passed "${out}" ${count})
  if(NOT passed)
    message(FATAL_ERROR "${what} did not pass exactly its ${count} tests, none skipped:\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

function(must_succeed what rc out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${last_stderr}")
  endif()
endfunction()

# Writes suite NAME with new-suite ARGN and returns its two printed commands.
function(new_suite name build_var run_var)
  run(out rc "${prefix}/bin/perfgate" new-suite ${name} ${ARGN})
  must_succeed("perfgate new-suite ${name}" "${rc}" "${out}")
  set(expected
      "cmake -S suites/${name} -B build/${name} -DCMAKE_PREFIX_PATH=${prefix} && cmake --build build/${name}\n"
      "ctest --test-dir build/${name} -L perf --no-tests=error --output-on-failure\n")
  string(CONCAT expected ${expected})
  if(NOT out STREQUAL expected)
    message(FATAL_ERROR "new-suite ${name} printed\n${out}instead of\n${expected}")
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  list(GET lines 0 build)
  list(GET lines 1 run)
  set(${build_var} "${build}" PARENT_SCOPE)
  set(${run_var} "${run}" PARENT_SCOPE)
endfunction()

run(out rc ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
must_succeed("cmake --install" "${rc}" "${out}")

# Metal: hf2q against llama.cpp, the README's command word for word (its recordings
# reached through a link, as the command names them from the repository root).
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "### Scaffold a suite: `perfgate new-suite`" at)
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "\nperfgate new-suite " start)
string(SUBSTRING "${readme}" ${start} -1 readme)
string(FIND "${readme}" "\n```" end)
math(EXPR end "${end} - 1")
string(SUBSTRING "${readme}" 1 ${end} command)
string(REPLACE "\\\n" " " command "${command}")
separate_arguments(readme_args UNIX_COMMAND "${command}")
list(POP_FRONT readme_args tool subcommand name)
if(NOT tool STREQUAL "perfgate" OR NOT subcommand STREQUAL "new-suite" OR NOT name STREQUAL "my_decode")
  message(FATAL_ERROR "README.md's new-suite command was not found:\n${command}")
endif()
file(CREATE_LINK "${SOURCE_DIR}/fixtures" "${WORK_DIR}/fixtures" SYMBOLIC)
new_suite(my_decode build run ${readme_args})
# The README shows the two commands it prints (with its own prefix).
string(REPLACE "${prefix}" "$HOME/perfgate" shown "${build}")
foreach(line "\n${shown}\n" "\n${run} ")
  string(FIND "${readme}" "${line}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "README.md does not show the command new-suite printed:${line}")
  endif()
endforeach()
run(out rc sh -c "${build}")
must_succeed("${build}" "${rc}" "${out}")
expect_passed("the written suite" "${run}" 2)
message(STATUS "my_decode, the README's suite, passes as written:\n${out}")

# The checks above cannot be met by skipped tests: with its recordings gone the suite
# fails as CI runs it, and where a skip is allowed, its "100% tests passed" is refused.
set(gone "PERFGATE_RECORDINGS=${WORK_DIR}/no-such-recordings")
run(out rc ${perfgate_ctest_ci_env} ${gone} sh -c "${run}")
if(rc EQUAL 0 OR NOT out MATCHES "so a missing recording fails")
  message(FATAL_ERROR "my_decode without its recordings did not fail under CI (rc ${rc}):\n${out}")
endif()
run(out rc ${CMAKE_COMMAND} -E env PERFGATE_ALLOW_SKIP=1 ${gone} sh -c "${run}")
perfgate_ctest_passed(passed "${out}" 2)
if(NOT rc EQUAL 0 OR NOT out MATCHES "100% tests passed, 0 tests failed out of 2\n" OR passed)
  message(FATAL_ERROR "skipped tests were taken for a pass (rc ${rc}):\n${out}")
endif()
message(STATUS "my_decode without its recordings fails under CI; skipped, it is not a pass")

# The regressed hf2q (+2 submissions/token, md-bucket submissions 10 % longer) beside
# the usual llama fails the budget and the golden.
file(MAKE_DIRECTORY "${WORK_DIR}/regressed")
file(CREATE_LINK "${fixtures}/decode_q4_0_regressed/hf2q" "${WORK_DIR}/regressed/hf2q" SYMBOLIC)
file(CREATE_LINK "${fixtures}/decode_q4_0/llama" "${WORK_DIR}/regressed/llama" SYMBOLIC)
run(out rc ${CMAKE_COMMAND} -E env PERFGATE_RECORDINGS=${WORK_DIR}/regressed sh -c "${run}")
foreach(expected
    "0% tests passed, 2 tests failed out of 2"
    # the budget: 45.5968 + 0.5 measured, 47.6129 regressed
    "hf2q\\.submissions_per_token +46\\.0968 +47\\.6129"
    # the golden
    "submissions_per_token(/value)?: 47\\.6129 vs golden 45\\.5968")
  if(rc EQUAL 0 OR NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the written suite did not fail on the regressed recording with '${expected}' (rc ${rc}):\n"
                        "${out}${last_stderr}")
  endif()
endforeach()
message(STATUS "my_decode fails on the regressed recording")

# Trace-event JSON: torch.compile CUDA graphs against eager, the README's options.
new_suite(torch_decode build run
  --engine graphs=${fixtures}/torch_decode_h200/graphs --baseline eager=${fixtures}/torch_decode_h200/eager
  --tokens auto:decode_step --window label:decode_step)
file(READ "${WORK_DIR}/suites/torch_decode/torch_decode_perf.cc" source)
if(NOT source MATCHES "\"extras/kernels_per_token\", 160\\.5\\);" OR NOT source MATCHES "PERFGATE_EXPECT_LAUNCHES_PER_TOKEN_AT_MOST\\(engine\\(\"graphs\"\\), 3\\.5\\);"
   OR source MATCHES "SUBMISSIONS")
  message(FATAL_ERROR "the trace-event JSON suite is not gated on kernels and launches:\n${source}")
endif()
run(out rc sh -c "${build}")
must_succeed("${build}" "${rc}" "${out}")
expect_passed("the trace-event JSON suite" "${run}" 2)
message(STATUS "torch_decode passes as written:\n${out}")
