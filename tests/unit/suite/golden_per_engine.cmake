# Two golden checks in one test used to share <test>.json, so that test could never
# pass; and trace-event JSON goldens had no recording context. Run the suite once to
# write its goldens, check the files, then run it again: it must pass.
foreach(var SUITE WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "golden_per_engine.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/golden")
function(run_suite expect_rc)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PERFGATE_GOLDEN_DIR=${WORK_DIR}/golden ${ARGN} "${SUITE}"
                          --gtest_output=json:${WORK_DIR}/result.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "the suite exited ${rc}, expected ${expect_rc}:\n${out}${err}")
  endif()
endfunction()

run_suite(0 PERFGATE_UPDATE_GOLDEN=new PERFGATE_UPDATE_GOLDEN_FORCE=1)
# Each engine its own file: <test>.json for the first, <test>.<engine>.json after.
foreach(pair "BothGoldens.json:graphs" "BothGoldens.eager.json:eager" "OneEngineTwiceIsRefused.json:graphs")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 file)
  list(GET pair 1 engine)
  file(READ "${WORK_DIR}/golden/${file}" text)
  string(JSON got GET "${text}" context engine)
  if(NOT got STREQUAL engine)
    message(FATAL_ERROR "${file} holds engine '${got}', expected '${engine}'")
  endif()
  # Context from the trials' meta.json (fixtures/recordings/torch_decode_h200/*/trial-1).
  string(JSON device GET "${text}" context recording_device)
  string(JSON torch GET "${text}" context meta.environment.torch)
  if(NOT device STREQUAL "NVIDIA H200" OR NOT torch STREQUAL "2.11.0+cu130")
    message(FATAL_ERROR "${file}: context lacks the recording's meta.json: device '${device}', torch '${torch}'")
  endif()
endforeach()

run_suite(0 --unset=PERFGATE_UPDATE_GOLDEN)
# RecordProperty values are lossless: the ratio of two medians is no 4-digit number.
file(READ "${WORK_DIR}/result.json" result)
string(REGEX MATCH "\"graphs\\.gpu_time_ratio\": \"([^\"]*)\"" _ "${result}")
if(NOT CMAKE_MATCH_1 MATCHES "^0\\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]+$")
  message(FATAL_ERROR "graphs.gpu_time_ratio was recorded as '${CMAKE_MATCH_1}', not in round-trip form")
endif()
message(STATUS "goldens per engine with meta context; ratio recorded as ${CMAKE_MATCH_1}")
