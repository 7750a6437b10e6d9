#!/usr/bin/env bash
# Long libFuzzer runs in the background, at the lowest CPU priority, over a fuzz build
# (PERFGATE_FUZZ=ON; the `fuzz` preset or tools/test's build-asan). Runs PARALLEL
# targets at a time, each for MINUTES, rotating through TARGETS so every target gets
# time, for ROUNDS rounds (0: until stopped). Each target runs with -fork=1 and
# -ignore_crashes/-ignore_timeouts/-ignore_ooms, so it goes on after a known crash.
#
#   BUILD_DIR=/work/build-fuzz tests/fuzz/run_long.sh            # in the foreground
#   nohup tests/fuzz/run_long.sh >/dev/null 2>&1 &                # in the background
#   kill -- -"$(cat /work/fuzz-logs/run_long.pgid)"               # stop everything
#
# Directories (all outside the repository; created when missing):
#   CORPUS_ROOT/<target>/    the growing corpus (seeded from BUILD_DIR's seeds)
#   FINDINGS_ROOT/<target>/  crash-*, timeout-*, oom-*, leak-* inputs
#   LOG_ROOT/<target>.log    libFuzzer's output, appended to (cov:, ft:, exec/s)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD_DIR="${BUILD_DIR:-/work/build-fuzz}"
CORPUS_ROOT="${CORPUS_ROOT:-/work/fuzz-corpus}"
FINDINGS_ROOT="${FINDINGS_ROOT:-/work/fuzz-findings}"
LOG_ROOT="${LOG_ROOT:-/work/fuzz-logs}"
MINUTES="${MINUTES:-20}"
PARALLEL="${PARALLEL:-2}"
ROUNDS="${ROUNDS:-0}"
read -r -a targets <<< "${TARGETS:-xctrace_export json_trace xctrace_toc golden kernel_families ane_replay}"

for t in "${targets[@]}"; do
  exe="$BUILD_DIR/tests/fuzz/perfgate_fuzz_$t"
  [ -x "$exe" ] || { echo "run_long.sh: no $exe; build the perfgate_fuzz target first" >&2; exit 2; }
  mkdir -p "$CORPUS_ROOT/$t" "$FINDINGS_ROOT/$t"
done
mkdir -p "$LOG_ROOT"
echo "$(ps -o pgid= $$ | tr -d ' ')" > "$LOG_ROOT/run_long.pgid"

# One target for MINUTES: its own corpus first (libFuzzer adds to the first
# directory), the build's seeds second (read only).
fuzz_one() {
  local t="$1"
  echo "=== $(date -u +%FT%TZ) run_long.sh: $t for $MINUTES min" >> "$LOG_ROOT/$t.log"
  nice -n 19 "$BUILD_DIR/tests/fuzz/perfgate_fuzz_$t" \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -print_funcs=0 -max_total_time=$((MINUTES * 60)) -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
    -dict="$here/$t.dict" -artifact_prefix="$FINDINGS_ROOT/$t/" \
    "$CORPUS_ROOT/$t" "$BUILD_DIR/tests/fuzz/seeds/$t" >> "$LOG_ROOT/$t.log" 2>&1 || true
}

round=0
next=0
while [ "$ROUNDS" = 0 ] || [ "$round" -lt "$ROUNDS" ]; do
  for ((slot = 0; slot < PARALLEL && slot < ${#targets[@]}; slot++)); do
    fuzz_one "${targets[next]}" &
    next=$(((next + 1) % ${#targets[@]}))
    [ "$next" = 0 ] && round=$((round + 1))
  done
  wait
done
