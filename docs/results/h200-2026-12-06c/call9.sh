#!/usr/bin/env bash
# call 9 (binaries FINAL3 = commit 9177358, main; TMA2 = branch t2-tma2 82c09a8: the t2
# warpgroup kernel's activation codes by one TMA copy a group, issued by warp 0's elected
# lane behind a warp-uniform branch (call 1's trial, redone on the unrolled rounds)):
# on an H200: FINAL3's recalibration of q4_linear_add and t2_i8_small into the H200 entry
#   (device-run-recalibrate.sh SECOND=1), then its baselines against PyTorch;
# on any other card: TMA2's checks of the three `g` schedules at every width, memcheck of
#   r64c32k4s3w1p0x8m0g on 5120x17408, and `ninfer bench` A/B (A = FINAL3) of t2_i8_small at
#   T = 10-32, 3 interleaved rounds.
# Run: OUT=$OUT BUDGET=300 bash call9.sh (carry target/ab/FINAL3, target/ab/TMA2).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call9.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-300} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL3 TMA2 || exit 1
F=/tmp/bin/FINAL3 B=/tmp/bin/TMA2
case "$gpu" in
  *H200*)
    RC=$OUT/recal
    OUT=$RC BIN=$F FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 70 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
    say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    BL=$OUT/baselines
    OUT=$BL BIN=$F FAMILIES="t2_i8_small q4_linear_add" timeout $(( $(left) - 10 )) bash scripts/device-run-baselines.sh > /dev/null 2>&1
    say "baselines rc=$? (${SECONDS}s)"; cat $BL/summary-baselines.txt >> "$S" ;;
  *)
    for s in r64c32k4s3w1p0x8m0g r64c32k4s3w1p0x2m0g r64c16k4s3w1p0x8m0g; do
      timeout 60 $B/ninfer check --only t2_i8_small --schedule $s --every-width > $OUT/check-$s.txt 2>&1
      say "check $s rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-$s.txt | head -4 | tee -a "$S"
    done
    timeout 90 compute-sanitizer --tool memcheck --print-limit 20 $B/ninfer check --schedule r64c32k4s3w1p0x8m0g \
      --only t2_i8_small/5120x17408 > $OUT/memcheck.txt 2>&1
    say "memcheck rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck.txt | tail -2 | tee -a "$S"
    OUT=$OUT/ab A=$F B=$B ROUNDS=3 WIDTHS=10,16,17,24,32 timeout $(( $(left) - 10 )) bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
    say "ab rc=$? (${SECONDS}s)"; cat $OUT/ab/summary-ab.txt >> "$S" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call9.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call9.tar.xz $OUT/
