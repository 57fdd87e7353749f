#!/usr/bin/env bash
# call 3 (binaries MAIN = commit 16111e1, main with the I2F kernel, route catalog
# c78f0da09a5e3aca; G16 = branch t2-g16 1ddf303: MAIN plus the trial candidates
# r64c16k4s3w1p0x{2,8}m0g):
# (1) G16: `ninfer check --only t2_i8_small --schedule S --every-width` for both trial
#     schedules, memcheck of the x8 one on 5120x17408;
# (2) G16: two `ninfer-calibrate --detail --only t2_i8_small` (scratch profiles), the
#     warpgroup candidates against the best other per width;
# (3) on an H200 only: MAIN's recalibration of q4_linear_add and t2_i8_small into the
#     built-in H200 entry, with a second calibration (device-run-recalibrate.sh SECOND=1).
# Run: OUT=$OUT BUDGET=560 bash call3.sh (carry target/ab/MAIN, target/ab/G16).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call3.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh MAIN G16 || exit 1
M=/tmp/bin/MAIN G=/tmp/bin/G16
for s in r64c16k4s3w1p0x8m0g r64c16k4s3w1p0x2m0g; do
  timeout 90 $G/ninfer check --only t2_i8_small --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $G/ninfer check --schedule r64c16k4s3w1p0x8m0g \
  --only t2_i8_small/5120x17408 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 60 $G/ninfer-calibrate --detail --only t2_i8_small > $OUT/calibrate-t2-G16-$r.txt 2>&1
  say "calibrate t2 (G16, $r) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-t2-G16-$r.txt)"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-t2-G16-$r.txt --widths 1,4,8,9,12,16,17,20,24,32 >> "$S" 2>&1
done
case "$gpu" in
  *H200*)
    if [ "$(left)" -gt 240 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$M FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call3.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call3.tar.xz $OUT/
