#!/usr/bin/env bash
# call 8 (binaries FINAL3 = commit 9177358, main with every kept change of this session,
# route catalog 97ff95a36d047dfa):
# (1) `ninfer check --only q4_linear_add` and `--only t2_i8_small` (every variant, width);
# (2) device-run-recalibrate.sh FAMILY="q4_linear_add t2_i8_small" SECOND=1 for this card's
#     built-in entry (bench on it, recalibration, bench, ratios, second calibration);
# (3) with the budget left: device-run-baselines.sh on the binary's built-in entry (the
#     routes before (2)); PyTorch in the same run.
# Run: OUT=$OUT BUDGET=500 bash call8.sh (carry target/ab/FINAL3).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call8.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-500} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL3 || exit 1
F=/tmp/bin/FINAL3
for fam in q4_linear_add t2_i8_small; do
  timeout 120 $F/ninfer check --only $fam > $OUT/check-$fam.txt 2>&1
  say "check $fam rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam.txt | head -4 | tee -a "$S"
done
RC=$OUT/recal
OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 80 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate q4 + t2 rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
if [ "$(left)" -gt 70 ]; then
  BL=$OUT/baselines
  OUT=$BL BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
  say "baselines rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S"
else say "$(left) s left: no baselines"; fi
cd $OUT && tar -cJf /tmp/raw-call8.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call8.tar.xz $OUT/
