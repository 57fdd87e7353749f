#!/usr/bin/env bash
# One GPU call for q4_linear_add after a kernel change: check and memcheck of every
# variant, calibration of the family, bench on compiled and calibrated routes, the PyTorch
# baselines of its shapes and the comparisons, all in the same run.
# Usage on the GPU machine: OUT=/some/dir BIN=/dir/with/binaries scripts/device-run-q4.sh
LOG_NAME=summary-q4.txt
source "$(dirname "$0")/device-common.sh"
say "== ninfer check --only q4_linear_add"
$B/ninfer check --only q4_linear_add > "$OUT/check-q4.txt" 2>&1
say "check rc=$?"; grep -E "FAIL|checks of" "$OUT/check-q4.txt" | tail -5 | tee -a "$log"
if [ "${MEMCHECK:-1}" = 1 ]; then
  say "== compute-sanitizer memcheck (every variant of q4_linear_add/5120x6144)"
  compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only q4_linear_add/5120x6144 > "$work/mc.txt" 2>&1
  say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$work/mc.txt" | tail -2 | tee -a "$log"
fi
say "== ninfer-calibrate --only q4_linear_add"
$B/ninfer-calibrate --detail --only q4_linear_add --print > "$OUT/calibrated-q4.json" 2> "$OUT/calibrate-q4.txt"
grep -E "keys measured|error" "$OUT/calibrate-q4.txt" | tee -a "$log"
say "== bench q4_linear_add, compiled routes, then the calibrated profile"
$B/ninfer bench --only q4_linear_add --device-profile off --out "$OUT/bench-q4-compiled.json" 2>/dev/null | tee -a "$log"
$B/ninfer bench --only q4_linear_add --out "$OUT/bench-q4-calibrated.json" 2>/dev/null | tee -a "$log"
python3 scripts/compare_routes.py "$OUT/bench-q4-compiled.json" "$OUT/bench-q4-calibrated.json" | tail -4 | tee -a "$log"
if [ "${BASELINES:-1}" = 1 ]; then
  say "== PyTorch baselines (5120x6144, 5120x17408) and the comparison"
  python3 scripts/torch_baselines.py --shapes 5120x6144,5120x17408 --widths 1,2,4,8,16,32,64 --out "$OUT/torch-q4.json" 2> "$work/torch.txt" || tail -5 "$work/torch.txt"
  python3 scripts/compare_baselines.py --all "$OUT/torch-q4.json" "$OUT/bench-q4-calibrated.json" | grep -E "q4|key" | tee -a "$log"
fi
