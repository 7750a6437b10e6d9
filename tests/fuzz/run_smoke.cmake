# One fuzz.<target> CTest test: runs FUZZER over SEEDS (every seed must pass), then
# fuzzes for SECONDS. New inputs go to WORK_DIR/corpus, crash/timeout/OOM/leak inputs
# to WORK_DIR/artifacts/; any of those fails the test (libFuzzer exits non-zero).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=1048576
          -dict=${DICT} -print_funcs=0 -artifact_prefix=${WORK_DIR}/artifacts/ -print_final_stats=1
          ${WORK_DIR}/corpus ${SEEDS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB artifacts ${WORK_DIR}/artifacts/*)
  message(FATAL_ERROR "fuzz.${TARGET}: libFuzzer exited with ${rc}; inputs kept: ${artifacts}")
endif()
