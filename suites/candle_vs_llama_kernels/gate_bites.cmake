# Proof that the gate bites: the suite on build-tree copies of the corpus reports, first
# with candle's (the engine's) µs figures 30 % higher, then llama.cpp's (the baseline's),
# must fail exactly where that shows: each run names every test that must fail.
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

# Runs the suite with `slower` 30 % slower. FAILED: exactly the tests that must fail
# (every other test of the suite must pass); MATCHES: regexes the output must hold.
function(run_with_slower slower)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "FAILED;MATCHES")
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
  # The failed tests, from gtest's closing list (one "[  FAILED  ] Suite.Test" line each).
  string(REGEX MATCHALL "\\[  FAILED  \\] CandleVsLlamaKernels\\.[A-Za-z]+\n" lines "${out}")
  set(failed "")
  foreach(line ${lines})
    string(REGEX REPLACE ".*CandleVsLlamaKernels\\.([A-Za-z]+)\n" "\\1" name "${line}")
    list(APPEND failed "${name}")
  endforeach()
  list(REMOVE_DUPLICATES failed)
  list(SORT failed)
  set(expected_failed ${arg_FAILED})
  list(SORT expected_failed)
  if(NOT failed STREQUAL expected_failed)
    message(FATAL_ERROR "${slower} slower: the failing tests are [${failed}], expected exactly [${expected_failed}]:\n${out}")
  endif()
  foreach(expected ${arg_MATCHES})
    if(NOT out MATCHES "${expected}")
      message(FATAL_ERROR "expected /${expected}/ in the suite's output (${slower} slower):\n${out}")
    endif()
  endforeach()
endfunction()

# candle slower: its golden, the dense_gemm Δ bound of the attack-target test and the
# per-call gap bounds fail; llama.cpp's golden and figures stand.
run_with_slower(candle
  FAILED CandleGolden TheAttackTargetPerCallIsTheMoeMatVec TheGapPerCallIsInTheMoeMatVecAndThePrefillGemm
  MATCHES
  "CandleGolden\\.json:[0-9]+: kernels/kernel_mul_mv_q4_0_f32/us_per_token_median: 213\\.382 vs golden 164\\.14"
  "hf2q\\+candle\\.family\\.dense_gemm\\.us_per_token 244\\.4 vs limit 188: beyond the limit, regressed: fails")
# llama.cpp slower: its golden fails, and per call candle's MoE mat-vec is no longer the
# gap (so the per-call attack target moves and the per-call gap bounds flip).
run_with_slower(ggml
  FAILED LlamaGolden TheAttackTargetPerCallIsTheMoeMatVec TheGapPerCallIsInTheMoeMatVecAndThePrefillGemm
  MATCHES
  "LlamaGolden\\.json:[0-9]+: kernels/kernel_mul_mv_q4_0_f32_nsg=2/us_per_token_median: 3286\\.86 vs golden 2528\\.35")
