# Proof that the gate bites: the hf2q_decode suite, pointed at a regressed hf2q
# recording (+2 submissions/token, md-bucket submissions 10 % longer) beside the usual
# llama.cpp baseline, must fail, and say where.
foreach(var SUITE FIXTURES GOLDEN WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gate_bites.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/recordings")
file(CREATE_LINK "${FIXTURES}/decode_q4_0_regressed/hf2q" "${WORK_DIR}/recordings/hf2q" SYMBOLIC)
file(CREATE_LINK "${FIXTURES}/decode_q4_0/llama" "${WORK_DIR}/recordings/llama" SYMBOLIC)
file(COPY "${GOLDEN}/" DESTINATION "${WORK_DIR}/golden")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=PERFGATE_UPDATE_GOLDEN
          PERFGATE_RECORDINGS=${WORK_DIR}/recordings PERFGATE_GOLDEN_DIR=${WORK_DIR}/golden "${SUITE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the suite passed on the regressed recording:\n${out}")
endif()
foreach(expected
    "\\[  FAILED  \\] Hf2qDecode.SubmissionsPerTokenBudget"
    "hf2q\\.submissions_per_token +46\\.5 +47\\.61[0-9]* +\\+1\\.11[0-9]* .* regressed"
    "\\[  FAILED  \\] Hf2qDecode.BucketDeltasVsLlama"
    "hf2q\\.md_8_32us\\.us_per_token .* 25 "
    "\\[  FAILED  \\] Hf2qDecode.Hf2qGolden"
    "Hf2qGolden\\.json:[0-9]+: /values/buckets~1md_8_32us~1us_per_token/value: 53\\.8"
    "Hf2qGolden\\.json:[0-9]+: /values/submissions_per_token/value: 47\\.61"
    "\\[       OK \\] Hf2qDecode.LlamaGolden")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
if(out MATCHES "\\[  SKIPPED \\]")
  message(FATAL_ERROR "a skip in the output would let CTest report the failure as skipped:\n${out}")
endif()
message(STATUS "the gate bites: the suite failed on the regressed recording as expected")
