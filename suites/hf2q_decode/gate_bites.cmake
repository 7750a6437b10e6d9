# Proof that the gate bites: the hf2q_decode suite, pointed at a regressed hf2q
# recording (+2 submissions/token, md-bucket submissions 10 % longer) beside the usual
# llama.cpp baseline, must fail, and say where.
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE FIXTURES GOLDEN WORK_DIR)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/recordings")
file(CREATE_LINK "${FIXTURES}/decode_q4_0_regressed/hf2q" "${WORK_DIR}/recordings/hf2q" SYMBOLIC)
file(CREATE_LINK "${FIXTURES}/decode_q4_0/llama" "${WORK_DIR}/recordings/llama" SYMBOLIC)
gate_bites_run_failing_suite("regressed recording" out)
# The budget under a column called budget, the delta table with llama's median as the
# baseline and the allowance as the tolerance, each with its legend; the golden report
# with its root cause before the field lines (names unescaped) and the README's accept
# command.
foreach(expected
    "\\[  FAILED  \\] Hf2qDecode.SubmissionsPerTokenBudget"
    "metric +budget +current +Δ +Δ% +tolerance +p-value +n +verdict"
    "hf2q\\.submissions_per_token +46\\.5 +47\\.61[0-9]* +\\+1\\.11[0-9]* +\\+2\\.4% +\\+0 +- +0 vs 3 +regressed"
    "legend: budget = the most the median may be; [^\n]*; n 0 vs 3 = budget vs current trials\n"
    "hf2q\\.submissions_per_token 47\\.61[0-9]* vs budget 46\\.5: beyond the budget, regressed: fails"
    "\\[  FAILED  \\] Hf2qDecode.BucketDeltasVsLlama"
    "metric +baseline +current"
    "hf2q\\.md_8_32us\\.us_per_token +3\\.6[0-9]* +53\\.8[0-9]* .* \\+25 +0\\.100 +3 vs 3 +regressed"
    "legend: baseline = median of the baseline's trials; [^\n]*; n 3 vs 3 = baseline vs current trials\n"
    "\\[  FAILED  \\] Hf2qDecode.Hf2qGolden"
    "golden mismatch: [^\n]*Hf2qGolden\\.json \\(3 of 39 values failed\\)\nwhat changed: hf2q against golden Hf2qGolden\\.json: 3 vs 3 trials"
    "\n  buckets/md_8_32us/us_per_token \\+36\\.33 µs/tok: 98 % from command-buffer phase layer\\.moe_gather \\(added, 2\\.00 instances/tok, 35\\.4 µs/tok\\)\n"
    "\n  layer\\.moe_gather +added +0 → 2\\.00 +0 → 35\\.4 +\\+35\\.4 +-81 % "
    "\ncause: a new command-buffer phase 'layer\\.moe_gather' \\(2 values not in the golden\\)\n  FAIL "
    # Budgets are explained against the engine's golden, deltas against the baseline.
    "hf2q\\.submissions_per_token 47\\.61[0-9]* vs budget 46\\.5: beyond the budget, regressed: fails\n+what changed: hf2q against golden Hf2qGolden\\.json"
    # A golden counts a phase's instances, not its submissions: the buckets explain the count.
    # The headlines say the Δ their verdict lines say (medians): +2.02 submissions, +36.33
    # and +50.24 µs/token.
    "\n  hf2q\\.submissions_per_token \\+2\\.02/tok: 99 % from duration bucket md_8_32us \\(changed, 1\\.00 → 3\\.00 submissions/tok"
    "what changed: hf2q against llama: 3 vs 3 trials"
    "\n  hf2q\\.md_8_32us\\.us_per_token \\+50\\.24 µs/tok: 71 % from command-buffer phase layer\\.moe_gather \\(added, 2\\.00 submissions/tok, 35\\.4 µs/tok\\)\n"
    "Hf2qGolden\\.json:[0-9]+: buckets/md_8_32us/submissions_per_token: 3 vs golden 1 "
    "Hf2qGolden\\.json:[0-9]+: buckets/md_8_32us/us_per_token: 53\\.8"
    "Hf2qGolden\\.json:[0-9]+: submissions_per_token: 47\\.61[0-9]* vs golden 45\\.5968"
    "accept with: PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R 'Hf2qDecode\\.Hf2qGolden'"
    "\\[       OK \\] Hf2qDecode.LlamaGolden")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
foreach(unexpected "/values/" "~1" "submissions/token budget 46\\.5\nmetric +baseline")
  if(out MATCHES "${unexpected}")
    message(FATAL_ERROR "/${unexpected}/ in the suite's output (escaped pointers, or a budget under 'baseline'):\n${out}")
  endif()
endforeach()
message(STATUS "the gate bites: the suite failed on the regressed recording as expected")
