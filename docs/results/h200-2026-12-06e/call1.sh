#!/usr/bin/env bash
# call 1 (for an H200 only; any other card stops at once). Binaries
# FINAL8 = main at the session's end (build: scripts/build-ab.sh FINAL8 <commit>):
# (1) `ninfer check --only q4_linear_add` and `--only t2_i8_small` (every variant, width);
# (2) device-run-recalibrate.sh FAMILY="q4_linear_add t2_i8_small" SECOND=1 for the H200
#     entry (bench on the re-stamped entry, recalibration, bench, ratios, second calibration);
# (3) device-run-baselines.sh on FINAL8's built-in entry (the routes before (2)), PyTorch in
#     the same run: the issue 4 and 5 numbers on the H200.
# Merge (2)'s H200 routes of both families into runtime/src/profile/builtin-device-profiles.json
# (the H200 entry's calibration block too) and add an item to docs/builtin-profiles.md.
# Run: OUT=$OUT BUDGET=560 bash call1.sh (carry target/ab/FINAL8).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
case "$gpu" in *H200*) ;; *) say "not an H200: stopped"; exit 0 ;; esac
scripts/device-unpack.sh FINAL8 || exit 1
F=/tmp/bin/FINAL8
crc=0
for fam in q4_linear_add t2_i8_small; do
  timeout 150 $F/ninfer check --only $fam > $OUT/check-$fam.txt 2>&1
  rc=$?; [ $rc = 0 ] || crc=$rc
  say "check $fam rc=$rc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$fam.txt | head -4 | tee -a "$S"
done
[ $crc = 0 ] || { say "a check failed: stopped"; exit 1; }
RC=$OUT/recal
OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 100 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
BL=$OUT/baselines
OUT=$BL BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
say "baselines rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S"
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
