#!/usr/bin/env bash
# One GPU call for the prompt attention (issue 7), everything in the same run: check of
# every kernel, format and switch (+ compute-sanitizer memcheck), a full calibration
# (every family and switch: the built-in entry is one measurement), bench of every
# prompt route on the issue's cases with the compiled routes and with the calibrated
# profile, the SDPA baselines (flash, cuDNN on BF16 KV) and the comparison.
# Usage on the GPU machine: OUT=/some/dir BIN=/dir/with/binaries scripts/device-run-prompt.sh
# MEMCHECK=0 skips the sanitizer, CALIBRATE=0 the calibration, BASELINES=0 SDPA.
LOG_NAME=summary-prompt.txt
source "$(dirname "$0")/device-common.sh"
check_prompt
if [ "${CALIBRATE:-1}" = 1 ]; then
  say "== ninfer-calibrate (every family and switch)"
  $B/ninfer-calibrate --detail --print > "$OUT/calibrated-entry.json" 2> "$OUT/calibrate.txt"
  grep -E "keys measured|error|attn_pack_gqa|attn_prompt_fast|attn_pv_f16" "$OUT/calibrate.txt" | tee -a "$log"
  cp "$NINFER_DEVICE_PROFILES" "$OUT/device-profiles.json"
  $B/ninfer routes 2>/dev/null | tail -2 | tee -a "$log"
fi
say "== ninfer bench --only attn_prompt: compiled routes"
$B/ninfer bench --only attn_prompt --device-profile off --samples 7 --out "$OUT/bench-prompt.json" 2>"$work/bench.err" | tee -a "$log"
tail -3 "$work/bench.err"
if [ "${CALIBRATE:-1}" = 1 ]; then
  say "== ninfer bench --only attn_prompt: the calibrated profile (installed = its route)"
  $B/ninfer bench --only attn_prompt --samples 7 --out "$OUT/bench-prompt-calibrated.json" 2>/dev/null | grep -E "installed|case" | tee -a "$log"
fi
if [ "${BASELINES:-1}" = 1 ]; then
  say "== SDPA baselines (BF16 KV) and the comparison"
  python3 scripts/torch_prompt_baselines.py --out "$OUT/torch-prompt.json" 2> "$work/torch-prompt.txt" || tail -20 "$work/torch-prompt.txt"
  tail -12 "$work/torch-prompt.txt" | tee -a "$log"
  python3 scripts/compare_prompt_baselines.py "$OUT/torch-prompt.json" "$OUT/bench-prompt.json" | tee -a "$log"
fi
