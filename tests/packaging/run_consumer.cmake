# Installs this build into a scratch prefix, then configures, builds and runs
# (ctest -L perf) the consumer project against it.
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR RECORDINGS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# The README's suite example is the consumer's my_decode_perf.cc, byte for byte (the
# block of step 2, its three-space indentation removed).
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "2. Write the suite" step)
string(SUBSTRING "${readme}" ${step} -1 readme)
string(FIND "${readme}" "   ```cpp\n" open)
math(EXPR open "${open} + 10")
string(SUBSTRING "${readme}" ${open} -1 readme)
string(FIND "${readme}" "\n   ```\n" close)
math(EXPR close "${close} + 1")
string(SUBSTRING "${readme}" 0 ${close} block)
# (CMake's ^ also matches after each replacement, so the first line is cut apart.)
string(SUBSTRING "${block}" 3 -1 block)
string(REPLACE "\n   " "\n" block "${block}")
file(READ "${SOURCE_DIR}/tests/packaging/consumer/my_decode_perf.cc" example)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "README.md's suite example and tests/packaging/consumer/my_decode_perf.cc differ:\n"
                      "--- README\n${block}--- consumer\n${example}")
endif()
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/packaging/consumer" -B "${WORK_DIR}/build" -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DPERFGATE_TEST_RECORDINGS=${RECORDINGS})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
# Step 4 of the README: create the goldens once (forced: CI refuses golden writes).
run(${CMAKE_COMMAND} -E env PERFGATE_UPDATE_GOLDEN=new PERFGATE_UPDATE_GOLDEN_FORCE=1
    ${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/build" -L perf --output-on-failure)
run(${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/build" -L perf --output-on-failure)
if(NOT last_output MATCHES "100% tests passed, 0 tests failed out of 3")
  message(FATAL_ERROR "the consumer suites did not run exactly three passing perf tests:\n${last_output}")
endif()
message(STATUS "consumer suites passed:\n${last_output}")

# The README example fails on the regressed hf2q recording beside the usual llama.
file(MAKE_DIRECTORY "${WORK_DIR}/regressed")
file(CREATE_LINK "${RECORDINGS}/../decode_q4_0_regressed/hf2q" "${WORK_DIR}/regressed/hf2q" SYMBOLIC)
file(CREATE_LINK "${RECORDINGS}/llama" "${WORK_DIR}/regressed/llama" SYMBOLIC)
execute_process(COMMAND ${CMAKE_COMMAND} -E env PERFGATE_RECORDINGS=${WORK_DIR}/regressed
                        ${CMAKE_CTEST_COMMAND} --test-dir "${WORK_DIR}/build" -L decode --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT out MATCHES "hf2q\\.submissions_per_token +46\\.5 +47\\.61")
  message(FATAL_ERROR "the README example did not fail on the regressed recording (rc ${rc}):\n${out}${err}")
endif()
message(STATUS "the README example fails on the regressed recording")
