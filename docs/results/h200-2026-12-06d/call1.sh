#!/usr/bin/env bash
# call 1 (binaries A = MAIN5: commit b5adc60, main at the session's start; Q4S8 = branch
# q4-s8: the q4 int8 rings decode a code u = c + 8 as the signed byte 16c (one LOP3 per
# nibble half with the mask in a register), s8.s8 MMAs from zero, no offset correction per
# accumulator, the 16x taken back once after the loop):
# (1) Q4S8 `ninfer check --only q4_linear_add` (every variant and width); memcheck of
#     ring_c16_k4_s3_g4_a8_cl and ring_c8_k4_s3_g4_a8_cl on 5120x6144;
# (2) `ninfer bench` A/B, 3 interleaved rounds, q4_linear_add T = 1-20;
# (3) on an H200 only: recalibration of q4_linear_add and t2_i8_small into the H200 entry,
#     with Q4S8 if its check passed, else MAIN5.
# Run: OUT=$OUT BUDGET=560 bash call1.sh (carry target/ab/MAIN5, target/ab/Q4S8).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh MAIN5 Q4S8 || exit 1
A=/tmp/bin/MAIN5 B=/tmp/bin/Q4S8
timeout 120 $B/ninfer check --only q4_linear_add > $OUT/check-q4-Q4S8.txt 2>&1
crc=$?
say "check Q4S8 q4_linear_add rc=$crc (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-q4-Q4S8.txt | head -6 | tee -a "$S"
for s in ring_c16_k4_s3_g4_a8_cl ring_c8_k4_s3_g4_a8_cl; do
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule $s \
    --only q4_linear_add/5120x6144 > $OUT/memcheck-q4-$s.txt 2>&1
  say "memcheck Q4S8 $s rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-q4-$s.txt | tail -2 | tee -a "$S"
done
case "$gpu" in *H200*) share=2 ;; *) share=1 ;; esac
OUT=$OUT/ab-q4 A=$A B=$B ROUNDS=3 WIDTHS=1,2,4,8,10,12,16,20 timeout $(( ($(left) - 30) / share )) bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
case "$gpu" in
  *H200*)
    R=$A; [ $crc = 0 ] && R=$B
    if [ "$(left)" -gt 150 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$R FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200, $R) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
