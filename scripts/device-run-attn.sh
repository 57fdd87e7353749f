#!/usr/bin/env bash
# One GPU call for the attention family after a kernel change: check (+ memcheck) of
# every attention variant, a full calibration (every family and switch: the built-in
# entry is one measurement), bench of the attention keys on compiled and calibrated
# routes, the SDPA baselines and the comparisons, all in the same run.
# Usage on the GPU machine: OUT=/some/dir BIN=/dir/with/binaries scripts/device-run-attn.sh
LOG_NAME=summary-attn.txt
source "$(dirname "$0")/device-common.sh"
say "== ninfer check --only attn_i8_small"
$B/ninfer check --only attn_i8_small > "$OUT/check-attn.txt" 2>&1
say "check rc=$?"; grep -E "FAIL|checks of|fp16 P.V|kv_append" "$OUT/check-attn.txt" | tee -a "$log"
for key in attn_i8_small/h24/int8/w1 attn_i8_small/h24/rk4v4/w8; do
  say "== compute-sanitizer memcheck ($key)"
  compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only "$key" > "$work/mc.txt" 2>&1
  say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$work/mc.txt" | tail -2 | tee -a "$log"
done
say "== ninfer-calibrate (every family and switch)"
$B/ninfer-calibrate --detail --print > "$work/calibrated.json" 2> "$OUT/calibrate.txt"
grep -E "keys measured|error" "$OUT/calibrate.txt" | tee -a "$log"
cp "$NINFER_DEVICE_PROFILES" "$OUT/device-profiles.json"
say "== bench attn_i8_small, compiled routes, then the calibrated profile"
$B/ninfer bench --only attn_i8_small --device-profile off --out "$OUT/bench-attn-compiled.json" > /dev/null 2>&1
$B/ninfer bench --only attn_i8_small --out "$OUT/bench-attn-calibrated.json" 2>/dev/null | tee -a "$log"
python3 scripts/compare_routes.py "$OUT/bench-attn-compiled.json" "$OUT/bench-attn-calibrated.json" | tail -3 | tee -a "$log"
say "== SDPA baselines (BF16 KV) and the comparison"
python3 scripts/torch_attention_baselines.py --windows 8192,65536,262144 --widths 1,2,4,8 --backends flash,cudnn --replays 9 --out "$work/torch-attention.json" 2> "$work/torch-attention.txt" || tail -5 "$work/torch-attention.txt"
cp "$work/torch-attention.json" "$OUT/torch-attention.json"
python3 scripts/compare_attention_baselines.py "$OUT/torch-attention.json" "$OUT/bench-attn-calibrated.json" | tee -a "$log"
