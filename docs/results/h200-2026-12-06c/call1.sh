#!/usr/bin/env bash
# call 1 (binaries A = FINAL: commit d6b97cf, the runtime of main 287d8cc; B = TMA: branch
# t2-tma 059511a, the t2 warpgroup schedules' activation codes by one TMA copy a group):
# (1) B: `ninfer check --only t2_i8_small --schedule S --every-width` for both `g`
#     schedules, memcheck of x8m0g on 5120x17408;
# (2) `ninfer bench` A/B of t2_i8_small, 3 interleaved rounds (device-run-ab.sh);
# (3) on an H200 only, with the budget left: the prepared call 4 of h200-2026-12-06b (the
#     H200 entry's q4 recalibration with `ring_c8_k4_s3_g4_cl`).
# Run: OUT=$OUT BUDGET=560 bash call1.sh (carry target/ab/FINAL, target/ab/TMA).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh FINAL TMA || exit 1
A=/tmp/bin/FINAL B=/tmp/bin/TMA
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
case "$gpu" in
  *H200*)
    if [ "$(left)" -gt 200 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$A FAMILY=q4_linear_add SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
