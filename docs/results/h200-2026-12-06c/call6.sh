#!/usr/bin/env bash
# call 6 (binaries A = MAIN3: commit ebf4ae6, main; B = UNR: branch t2-unroll a58c86d, the
# warpgroup kernel's ring rounds unrolled, constant stage offsets):
# (1) B: `ninfer check --only t2_i8_small --schedule S --every-width` for the three `g`
#     schedules, memcheck of r64c32k4s3w1p0x8m0g on 5120x17408;
# (2) `ninfer bench` A/B of t2_i8_small, 3 interleaved rounds;
# (3) on an H200 only: A's recalibration of q4_linear_add and t2_i8_small into the built-in
#     H200 entry (device-run-recalibrate.sh SECOND=1).
# Run: OUT=$OUT BUDGET=560 bash call6.sh (carry target/ab/MAIN3, target/ab/UNR).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh MAIN3 UNR || exit 1
A=/tmp/bin/MAIN3 B=/tmp/bin/UNR
for s in r64c32k4s3w1p0x8m0g r64c32k4s3w1p0x2m0g r64c16k4s3w1p0x8m0g; do
  timeout 90 $B/ninfer check --only t2_i8_small --schedule $s --every-width > $OUT/check-$s.txt 2>&1
  say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
done
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule r64c32k4s3w1p0x8m0g \
  --only t2_i8_small/5120x17408 > $OUT/memcheck.txt 2>&1
say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
AB=$OUT/ab
OUT=$AB A=$A B=$B ROUNDS=3 WIDTHS=1,10,12,16,17,20,24,28,32 timeout $(( $(left) - 20 )) bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
say "ab rc=$? (${SECONDS}s)"; cat $AB/summary-ab.txt >> "$S"
case "$gpu" in
  *H200*)
    if [ "$(left)" -gt 200 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$A FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call6.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call6.tar.xz $OUT/
