#!/usr/bin/env bash
# call 5 (binaries FINAL2 = commit 62bc309, main; GKS = branch t2-gks c7924c3: FINAL2 plus
# the trial candidates r64c16k4s3w1p0x{4,2}m0g and r64c32k4s3w1p0x4m0g):
# (1) on an H200 only: FINAL2's recalibration of q4_linear_add and t2_i8_small into the
#     built-in H200 entry (device-run-recalibrate.sh SECOND=1), first;
# (2) GKS: `ninfer check --only t2_i8_small --schedule S --every-width` of the trials;
#     two `ninfer-calibrate --detail --only t2_i8_small`, the warpgroup table;
# (3) FINAL2: device-run-baselines.sh (t2_i8_small, q4_linear_add; PyTorch in the same run).
# Run: OUT=$OUT BUDGET=560 bash call5.sh (carry target/ab/FINAL2, target/ab/GKS).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call5.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL2 GKS || exit 1
F=/tmp/bin/FINAL2 G=/tmp/bin/GKS
case "$gpu" in
  *H200*)
    RC=$OUT/recal
    OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout 300 bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
    say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S" ;;
esac
for s in r64c16k4s3w1p0x4m0g r64c32k4s3w1p0x4m0g r64c16k4s3w1p0x2m0g; do
  timeout 90 $G/ninfer check --only t2_i8_small --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 60 $G/ninfer-calibrate --detail --only t2_i8_small > $OUT/calibrate-t2-GKS-$r.txt 2>&1
  say "calibrate t2 (GKS, $r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-t2-GKS-$r.txt)"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-t2-GKS-$r.txt --widths 8,12,16,20,24,32 >> "$S" 2>&1
done
if [ "$(left)" -gt 150 ]; then
  BL=$OUT/baselines
  OUT=$BL BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 15 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
  say "baselines rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S"
else say "$(left) s left: no baselines"; fi
cd $OUT && tar -cJf /tmp/raw-call5.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call5.tar.xz $OUT/
