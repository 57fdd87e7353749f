#!/usr/bin/env bash
# One GPU call, A/B of two builds on the prompt attention (issue 7), same run: check of
# every prompt kernel, format and switch with build B (+ memcheck of int8 and rk4v4), the
# prompt bench of every route with build A and then B (compiled routes), the SDPA
# baselines, and the comparison against B.
# Usage on the GPU machine: OUT=/dir A=/dir/with/old/ninfer B=/dir/with/new/ninfer \
#   scripts/device-run-prompt-ab.sh   (MEMCHECK=0, BASELINES=0 skip those)
LOG_NAME=summary-prompt-ab.txt
BIN=${B:?B: the new build}
source "$(dirname "$0")/device-common.sh"
A=${A:?A: the old build}
check_prompt
for side in A B; do
  bin=${!side}
  say "== ninfer bench --only attn_prompt, compiled routes ($side: $bin)"
  $bin/ninfer bench --only attn_prompt --device-profile off --samples 7 --out "$OUT/bench-prompt-$side.json" 2>"$work/bench.err" | tee -a "$log"
  tail -3 "$work/bench.err"
done
if [ "${BASELINES:-1}" = 1 ]; then
  say "== SDPA baselines (BF16 KV) and the comparison (B)"
  python3 scripts/torch_prompt_baselines.py --out "$OUT/torch-prompt.json" 2> "$work/torch-prompt.txt" || tail -20 "$work/torch-prompt.txt"
  tail -12 "$work/torch-prompt.txt" | tee -a "$log"
  python3 scripts/compare_prompt_baselines.py "$OUT/torch-prompt.json" "$OUT/bench-prompt-B.json" | tee -a "$log"
fi
