# Proof that the gate bites: the hf2q_toks_ratio suite over a copy of the fixtures whose
# apex engine report is 5 % slower (108.8 -> 103.4 tok/s: ratio 1.0095, floor 1.05) must
# fail that cell, and no other.
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE PYTHON CORPUS GOLDEN REGRESS WORK_DIR)
if(DEFINED ENV{PERFGATE_CORPUS_DIR} AND NOT "$ENV{PERFGATE_CORPUS_DIR}" STREQUAL "")
  set(CORPUS "$ENV{PERFGATE_CORPUS_DIR}")
endif()
set(policy "${CORPUS}/hf2q/perf_baseline.json")
if(NOT EXISTS "${policy}")
  # The suite itself decides: it fails under CI, and skips elsewhere.
  execute_process(COMMAND "${SUITE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "no corpus policy at ${policy}, and the suite failed:\n${out}${err}")
  endif()
  message(STATUS "hf2q_toks_ratio gate check skipped: no corpus policy at ${policy} (set PERFGATE_CORPUS_DIR)")
  return()
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${PYTHON}" "${REGRESS}" --regress qwen3.6-35b-a3b-apex 0.95 "${WORK_DIR}/recordings"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_fixtures.py --regress failed (${rc})")
endif()
gate_bites_run_failing_suite("slower apex engine" out)
foreach(expected
    "\\[  FAILED  \\] Hf2qToksRatio.CellsHoldTheirFloors"
    "FAIL qwen3\\.6-35b-a3b-apex: toks/qwen3\\.6-35b-a3b-apex/ratio 1\\.009[0-9]* vs floor 1\\.05 \\(tolerance 0\\.01\\): beyond the floor, regressed"
    "\\[       OK \\] Hf2qToksRatio.PeerDriftCellThroughTheAssertion")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
if(out MATCHES "FAIL qwen3\\.6-35b-a3b-dwq|FAIL qwen3\\.6-27b|FAIL gemma")
  message(FATAL_ERROR "a cell that was not regressed failed:\n${out}")
endif()
message(STATUS "the gate bites: the suite failed on the slower apex engine as expected")
