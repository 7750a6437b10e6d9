# Proof that the gate bites: the nsys_h100 suite, with gpu0 pointed at a regressed copy
# of the export (regress_export.py) and gpu1 at the export itself, must fail where the
# regression is, and nowhere else.
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE PYTHON CORPUS GOLDEN REGRESS WORK_DIR)
if(DEFINED ENV{PERFGATE_CORPUS_DIR} AND NOT "$ENV{PERFGATE_CORPUS_DIR}" STREQUAL "")
  set(CORPUS "$ENV{PERFGATE_CORPUS_DIR}")
endif()
set(export "${CORPUS}/nsys/h100_2gpu_1s.sqlite")
if(NOT EXISTS "${export}")
  # The suite itself decides: it fails under CI, and skips elsewhere.
  execute_process(COMMAND "${SUITE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "no corpus export at ${export}, and the suite failed:\n${out}${err}")
  endif()
  message(STATUS "nsys_h100 gate check skipped: no corpus export at ${export} (set PERFGATE_CORPUS_DIR)")
  return()
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/recordings/gpu0" "${WORK_DIR}/recordings/gpu1")
execute_process(COMMAND "${PYTHON}" "${REGRESS}" "${export}" "${WORK_DIR}/recordings/gpu0/regressed.sqlite"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "regress_export.py failed (${rc})")
endif()
file(CREATE_LINK "${export}" "${WORK_DIR}/recordings/gpu1/h100_2gpu_1s.sqlite" SYMBOLIC)
gate_bites_run_failing_suite("regressed export" out)
foreach(expected
    "\\[  FAILED  \\] NsysH100.KernelsPerTokenBudgets"
    "gpu0\\.kernels_per_token 13\\.45 vs budget 12\\.5: beyond the budget, regressed: fails"
    "\\[  FAILED  \\] NsysH100.GpuTimePerTokenBudgets"
    "gpu0\\.gpu_us_per_token 194\\.4[0-9]* vs budget 165: beyond the budget, regressed: fails"
    "\\[       OK \\] NsysH100.RanksCostTheSame"  # gpu1 is now the cheaper rank
    "\\[  FAILED  \\] NsysH100.Gpu0Golden"
    "Gpu0Golden\\.json:[0-9]+: submissions_per_token: 13\\.45 vs golden 12\\.2786"
    "\\[       OK \\] NsysH100.Gpu1Golden")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
if(out MATCHES "gpu1\\.[a-z_.]+ [0-9.]+ vs budget")
  message(FATAL_ERROR "gpu1 (not regressed) failed a gate:\n${out}")
endif()
message(STATUS "the gate bites: the suite failed on the regressed export as expected")
