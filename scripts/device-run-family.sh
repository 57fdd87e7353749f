#!/usr/bin/env bash
# One GPU call for one projection family after a kernel change: check and memcheck of
# every variant, calibration of the family, bench on compiled and calibrated routes, the
# PyTorch baselines of its shapes and the comparisons, all in the same run.
# Usage on the GPU machine:
#   OUT=/some/dir BIN=/dir FAMILY=t2_i8_small SHAPES=5120x6144,5120x17408,17408x5120 \
#     MEMCHECK_KEY=t2_i8_small/5120x6144 WIDTHS=1,2,4,8,16,32 scripts/device-run-family.sh
FAMILY=${FAMILY:?FAMILY names the route-key prefix}
LOG_NAME=summary-$FAMILY.txt
source "$(dirname "$0")/device-common.sh"
say "== ninfer check --only $FAMILY"
$B/ninfer check --only "$FAMILY" > "$OUT/check-$FAMILY.txt" 2>&1
say "check rc=$?"; grep -E "FAIL|checks of" "$OUT/check-$FAMILY.txt" | tail -5 | tee -a "$log"
if [ "${MEMCHECK:-1}" = 1 ]; then
  key=${MEMCHECK_KEY:-$FAMILY}
  say "== compute-sanitizer memcheck (every variant of $key)"
  compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --only "$key" > "$work/mc.txt" 2>&1
  say "memcheck rc=$?"; grep -E "ERROR SUMMARY|checks of" "$work/mc.txt" | tail -2 | tee -a "$log"
fi
say "== ninfer-calibrate --only $FAMILY"
$B/ninfer-calibrate --detail --only "$FAMILY" --print > "$OUT/calibrated-$FAMILY.json" 2> "$OUT/calibrate-$FAMILY.txt"
grep -E "keys measured|error" "$OUT/calibrate-$FAMILY.txt" | tee -a "$log"
say "== bench $FAMILY, compiled routes, then the calibrated profile"
$B/ninfer bench --only "$FAMILY" --device-profile off --out "$OUT/bench-$FAMILY-compiled.json" 2>/dev/null | tee -a "$log"
$B/ninfer bench --only "$FAMILY" --out "$OUT/bench-$FAMILY-calibrated.json" 2>/dev/null | tee -a "$log"
python3 scripts/compare_routes.py "$OUT/bench-$FAMILY-compiled.json" "$OUT/bench-$FAMILY-calibrated.json" | tail -4 | tee -a "$log"
if [ "${BASELINES:-1}" = 1 ]; then
  say "== PyTorch baselines ($SHAPES) and the comparison"
  python3 scripts/torch_baselines.py --shapes "$SHAPES" --widths "${WIDTHS:-1,2,4,8,16,32}" --out "$OUT/torch-$FAMILY.json" 2> "$work/torch.txt" || tail -5 "$work/torch.txt"
  python3 scripts/compare_baselines.py --all "$OUT/torch-$FAMILY.json" "$OUT/bench-$FAMILY-calibrated.json" | grep -E "$FAMILY|key" | tee -a "$log"
fi
