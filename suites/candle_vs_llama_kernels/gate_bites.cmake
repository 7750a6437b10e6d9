# Proof that the gate bites: the suite on build-tree copies of the corpus reports, first
# with candle's (the engine's) µs figures 30 % higher, then llama.cpp's (the baseline's),
# must fail where that shows, and nowhere else.
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE PYTHON CORPUS GOLDEN SLOWER WORK_DIR)
if(DEFINED ENV{PERFGATE_CORPUS_DIR} AND NOT "$ENV{PERFGATE_CORPUS_DIR}" STREQUAL "")
  set(CORPUS "$ENV{PERFGATE_CORPUS_DIR}")
endif()
set(reports candle ggml)
foreach(side ${reports})
  if(NOT EXISTS "${CORPUS}/hf2q/phase0-${side}-perkernel.json")
    # The suite itself decides: it fails under CI, and skips elsewhere.
    execute_process(COMMAND "${SUITE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "no corpus report under ${CORPUS}/hf2q, and the suite failed:\n${out}${err}")
    endif()
    message(STATUS "candle_vs_llama_kernels gate check skipped: no ${CORPUS}/hf2q/phase0-${side}-perkernel.json")
    return()
  endif()
endforeach()

# Runs the suite with `slower` 30 % slower; checks each regex of the lists after it.
function(run_with_slower slower)
  set(WORK_DIR "${WORK_DIR}/${slower}")
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}/corpus/hf2q")
  foreach(side ${reports})
    set(file "phase0-${side}-perkernel.json")
    if(side STREQUAL slower)
      execute_process(COMMAND "${PYTHON}" "${SLOWER}" "${CORPUS}/hf2q/${file}" "${WORK_DIR}/corpus/hf2q/${file}" 1.3
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "slower_report.py failed (${rc})")
      endif()
    else()
      file(CREATE_LINK "${CORPUS}/hf2q/${file}" "${WORK_DIR}/corpus/hf2q/${file}" SYMBOLIC)
    endif()
  endforeach()
  set(ENV{PERFGATE_CORPUS_DIR} "${WORK_DIR}/corpus")
  gate_bites_run_failing_suite("${slower} report made 30 % slower" out)
  foreach(expected ${ARGN})
    if(NOT out MATCHES "${expected}")
      message(FATAL_ERROR "expected /${expected}/ in the suite's output (${slower} slower):\n${out}")
    endif()
  endforeach()
endfunction()

run_with_slower(candle
  "\\[  FAILED  \\] CandleVsLlamaKernels.CandleGolden"
  "CandleGolden\\.json:[0-9]+: kernels/kernel_mul_mv_q4_0_f32/us_per_token_median: 213\\.382 vs golden 164\\.14"
  "\\[       OK \\] CandleVsLlamaKernels.LlamaGolden"
  "\\[  FAILED  \\] CandleVsLlamaKernels.TheAttackTargetIsCandlesGemm"
  "hf2q\\+candle\\.family\\.dense_gemm\\.us_per_token 244\\.4 vs limit 188: beyond the limit, regressed: fails"
  "\\[  FAILED  \\] CandleVsLlamaKernels.TheGapPerCallIsInTheMoeMatVecAndThePrefillGemm"
  "\\[       OK \\] CandleVsLlamaKernels.LlamaCppIsDominatedByMatVecsAndNorms")
run_with_slower(ggml
  "\\[  FAILED  \\] CandleVsLlamaKernels.LlamaGolden"
  "LlamaGolden\\.json:[0-9]+: kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median: 3286\\.86 vs golden 2528\\.35"
  "\\[       OK \\] CandleVsLlamaKernels.CandleGolden"
  "\\[       OK \\] CandleVsLlamaKernels.TheAttackTargetIsCandlesGemm")
