#!/usr/bin/env bash
# The README's main job, given the built perfgate binary: show what one bundled trial's
# exports hold, then the hf2q-vs-llama.cpp attribution report over all trials.
set -euo pipefail
perfgate="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rec="$root/fixtures/recordings/decode_q4_0"
head=output_head.fused_norm_lm_argmax
echo "== What one trial's exports hold (perfgate info) =="
"$perfgate" info "$rec"/hf2q/trial-1/*.xml.gz "$rec"/hf2q/trial-1/toc.xml
echo
echo "== hf2q vs llama.cpp, per decode token (perfgate attribute) =="
"$perfgate" attribute \
  --trace hf2q="$rec/hf2q" --trace llama="$rec/llama" --baseline llama \
  --tokens hf2q=auto:$head --window hf2q=label:$head \
  --tokens llama=64 --window llama=skip:6 \
  --format all --output "${PERFGATE_REPORT_PREFIX:-$root/build/report}"
cat "${PERFGATE_REPORT_PREFIX:-$root/build/report}.txt"
