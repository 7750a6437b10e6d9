# What the suites' gate_bites.cmake scripts share (cmake -P): each points its suite at
# a regressed recording and checks that the suite fails where the regression is.

# Fails unless every variable named is given (-DVAR=...).
function(gate_bites_require)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "gate_bites.cmake needs -D${var}=...")
    endif()
  endforeach()
endfunction()

# Runs SUITE on WORK_DIR/recordings against a copy of GOLDEN (never updating it), and
# fails when the suite passes: `what` names the regressed input in that message. Its
# stdout and stderr go to `out_var`, and any skip in them fails too: CTest would report
# the failure as skipped.
function(gate_bites_run_failing_suite what out_var)
  file(COPY "${GOLDEN}/" DESTINATION "${WORK_DIR}/golden")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=PERFGATE_UPDATE_GOLDEN
            PERFGATE_RECORDINGS=${WORK_DIR}/recordings PERFGATE_GOLDEN_DIR=${WORK_DIR}/golden "${SUITE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(out "${out}${err}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "the suite passed on the ${what}:\n${out}")
  endif()
  if(out MATCHES "\\[  SKIPPED \\]")
    message(FATAL_ERROR "a skip in the output would let CTest report the failure as skipped:\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
