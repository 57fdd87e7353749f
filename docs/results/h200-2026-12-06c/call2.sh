#!/usr/bin/env bash
# call 2 (binaries A = FINAL: commit d6b97cf, the runtime of main 287d8cc; B = I2F: branch
# t2-i2f 6e633c6, the t2 warpgroup schedules' chunk sums from zero (wgmma scale-d 0), I2FP):
# (1) B: `ninfer check --only t2_i8_small --schedule S --every-width` for both `g`
#     schedules, memcheck of x8m0g on 5120x17408;
# (2) `ninfer bench` A/B of t2_i8_small, 3 interleaved rounds (device-run-ab.sh);
# (3) B's t2 calibration with every candidate's time;
# (4) on an H200 only, with the budget left: the prepared call 4 of h200-2026-12-06b (the
#     H200 entry's q4 recalibration with `ring_c8_k4_s3_g4_cl`).
# Run: OUT=$OUT BUDGET=560 bash call2.sh (carry target/ab/FINAL, target/ab/I2F).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL I2F || exit 1
A=/tmp/bin/FINAL B=/tmp/bin/I2F
for s in r64c32k4s3w1p0x8m0g r64c32k4s3w1p0x2m0g; do
  timeout 90 $B/ninfer check --only t2_i8_small --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule r64c32k4s3w1p0x8m0g \
  --only t2_i8_small/5120x17408 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
AB=$OUT/ab
OUT=$AB A=$A B=$B ROUNDS=3 WIDTHS=1,16,17,20,24,28,32 timeout $(( $(left) - 20 )) bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
say "ab rc=$? (${SECONDS}s)"; cat $AB/summary-ab.txt >> "$S"
# B's t2 calibration (every candidate's time), into a scratch profile: does a `g` schedule
# now win widths below 17?
NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 60 $B/ninfer-calibrate --detail --only t2_i8_small > $OUT/calibrate-t2-B.txt 2>&1
say "calibrate t2 (B) rc=$? (${SECONDS}s): $(tail -1 $OUT/calibrate-t2-B.txt)"
python3 scripts/t2_warpgroup_table.py $OUT/calibrate-t2-B.txt --widths 1,8,12,16,17,20,24,28,32 >> "$S" 2>&1
case "$gpu" in
  *H200*)
    if [ "$(left)" -gt 200 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$A FAMILY=q4_linear_add SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call2.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call2.tar.xz $OUT/
