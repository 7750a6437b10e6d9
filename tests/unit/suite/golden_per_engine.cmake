# Two golden checks in one test used to share <test>.json, so that test could never
# pass; and trace-event JSON goldens had no recording context. Run the suite once to
# write its goldens, check the files, then run it again: it must pass.
foreach(var SUITE FIXTURES WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "golden_per_engine.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/golden" "${WORK_DIR}/recordings")
file(CREATE_LINK "${FIXTURES}/torch_decode_h200/graphs" "${WORK_DIR}/recordings/graphs" SYMBOLIC)
file(CREATE_LINK "${FIXTURES}/decode_q4_0/hf2q" "${WORK_DIR}/recordings/hf2q" SYMBOLIC)
function(run_suite expect_rc)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PERFGATE_GOLDEN_DIR=${WORK_DIR}/golden
                          PERFGATE_RECORDINGS=${WORK_DIR}/recordings ${ARGN} "${SUITE}"
                          --gtest_output=json:${WORK_DIR}/result.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "the suite exited ${rc}, expected ${expect_rc}:\n${out}${err}")
  endif()
endfunction()

run_suite(0 PERFGATE_UPDATE_GOLDEN=new PERFGATE_UPDATE_GOLDEN_FORCE=1)
# Each engine its own file: <test>.json for the first, <test>.<engine>.json after.
function(expect_context file key want)
  file(READ "${WORK_DIR}/golden/${file}" text)
  string(JSON got ERROR_VARIABLE missing GET "${text}" context ${key})
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${file}: context.${key} is '${got}' ${missing}, expected '${want}'")
  endif()
endfunction()
expect_context(BothGoldens.json engine graphs)
expect_context(BothGoldens.hf2q.json engine hf2q)
expect_context(OneEngineTwiceIsRefused.json engine graphs)
# Context from each engine's first trial's meta.json, whatever its source (values as
# fixtures/recordings/torch_decode_h200/graphs/trial-1/meta.json and
# decode_q4_0/hf2q/trial-1/meta.json hold them).
expect_context(BothGoldens.json recording_device "NVIDIA H200")
expect_context(BothGoldens.json meta.environment.torch "2.11.0+cu130")
expect_context(BothGoldens.hf2q.json meta.generator "perfgate-xctrace-gen")
expect_context(BothGoldens.hf2q.json meta.process.name "hf2q")

run_suite(0 --unset=PERFGATE_UPDATE_GOLDEN)
# RecordProperty values are lossless: the ratio of two medians is no 4-digit number.
# (graphs' 470.2 µs/token over hf2q's 9752.1: about 0.048.)
file(READ "${WORK_DIR}/result.json" result)
string(REGEX MATCH "\"graphs\\.gpu_time_ratio\": \"([^\"]*)\"" _ "${result}")
set(ratio "${CMAKE_MATCH_1}")
if(NOT ratio MATCHES "^0\\.04[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]+$")
  message(FATAL_ERROR "graphs.gpu_time_ratio was recorded as '${ratio}', not in round-trip form")
endif()
message(STATUS "goldens per engine with meta context; ratio recorded as ${ratio}")
