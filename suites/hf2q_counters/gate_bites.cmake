# Proof that the gate bites: the hf2q_counters suite, pointed at the same recording
# with trial 2's counters.txt over the dispatch budget (dispatches_per_token 1270.52
# where the others hold 1070.52: the median moves only if two trials move, so trials 2
# and 3 both get it), must fail, and say the figure came from the engine's counters.
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE RECORDINGS GOLDEN WORK_DIR)
file(REMOVE_RECURSE "${WORK_DIR}")
foreach(k 1 2 3)
  set(dst "${WORK_DIR}/recordings/hf2q/trial-${k}")
  file(MAKE_DIRECTORY "${dst}")
  file(GLOB trial_files RELATIVE "${RECORDINGS}/hf2q/trial-${k}" "${RECORDINGS}/hf2q/trial-${k}/*")
  foreach(f ${trial_files})
    if(NOT f STREQUAL "counters.txt")
      file(CREATE_LINK "${RECORDINGS}/hf2q/trial-${k}/${f}" "${dst}/${f}" SYMBOLIC)
    endif()
  endforeach()
  file(READ "${RECORDINGS}/hf2q/trial-${k}/counters.txt" text)
  if(NOT k EQUAL 1)
    string(REPLACE "dispatches_per_token: 1070.52" "dispatches_per_token: 1270.52" text "${text}")
    string(REPLACE "total_dispatches: 67443" "total_dispatches: 80043" text "${text}")
  endif()
  file(WRITE "${dst}/counters.txt" "${text}")
endforeach()
gate_bites_run_failing_suite("counters over budget" out)
foreach(expected
    "\\[  FAILED  \\] Hf2qCounters.DispatchBudget"
    "hf2q dispatches/token budget 1100 \\(from the engine's counters, [^\n]*trial-1/counters\\.txt\\)"
    "hf2q\\.counters\\.dispatches_per_token +1100 +1270\\.52 +\\+170\\.5[0-9]* .* regressed"
    "\\(engine counters: [^\n]*trial-2/counters\\.txt\\)"
    "\\[  FAILED  \\] Hf2qCounters.Hf2qGolden"
    "counters/dispatches_per_token: 1270\\.52 vs golden 1070\\.52"
    "\\[       OK \\] Hf2qCounters.SubmissionsFromTheTrace")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
message(STATUS "the gate bites: the suite failed on counters over budget as expected")
