#!/usr/bin/env bash
# call 7 (binaries A = MAIN4: commit a2460c8, main; Q4W = branch q4-c64-rounds-w0 ab92454: the
# q4 warpgroup kernel's ring rounds unrolled at 64 columns too (20873bc) and its copies by warp
# 0's elected lane behind a warp-uniform branch; T2P = branch t2-pw-i2f
# 4b00b14: the t2 per-warp kernels' second chunk from zero, I2FP):
# (1) checks: Q4W `--only q4_linear_add` and T2P `--only t2_i8_small` (every variant and
#     width); memcheck of Q4W wg_c64_k6_s4 and wg_c32_k8_s4 on
#     5120x6144 and of T2P r16c8k8s2w1p0x1m0l4 on 5120x17408;
# (2) `ninfer bench` A/B, 3 interleaved rounds: A vs Q4W on q4_linear_add T = 1-64, A vs
#     T2P on t2_i8_small T = 1-16;
# (3) on an H200 only: A's recalibration of q4_linear_add and t2_i8_small into the H200 entry.
# Run: OUT=$OUT BUDGET=560 bash call7.sh (carry target/ab/MAIN4, target/ab/Q4W, target/ab/T2P).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call7.txt
say() { echo "$@" | tee -a "$S"; }
left() { echo $(( ${BUDGET:-560} - SECONDS )); }
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
say "$gpu"
scripts/device-unpack.sh MAIN4 Q4W T2P || exit 1
A=/tmp/bin/MAIN4 Q=/tmp/bin/Q4W P=/tmp/bin/T2P
timeout 120 $Q/ninfer check --only q4_linear_add > $OUT/check-q4-Q4W.txt 2>&1
say "check Q4W q4_linear_add rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-q4-Q4W.txt | head -4 | tee -a "$S"
timeout 120 $P/ninfer check --only t2_i8_small > $OUT/check-t2-T2P.txt 2>&1
say "check T2P t2_i8_small rc=$? (${SECONDS}s)"; grep -E "checks of|FAIL" $OUT/check-t2-T2P.txt | head -4 | tee -a "$S"
for s in wg_c64_k6_s4 wg_c32_k8_s4; do
  timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $Q/ninfer check --schedule $s \
    --only q4_linear_add/5120x6144 > $OUT/memcheck-q4-$s.txt 2>&1
  say "memcheck Q4W $s rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-q4-$s.txt | tail -2 | tee -a "$S"
done
timeout 120 compute-sanitizer --tool memcheck --print-limit 20 $P/ninfer check --schedule r16c8k8s2w1p0x1m0l4 \
  --only t2_i8_small/5120x17408 > $OUT/memcheck-t2.txt 2>&1
say "memcheck T2P rc=$? (${SECONDS}s)"; grep -E "ERROR SUMMARY|checks of" $OUT/memcheck-t2.txt | tail -2 | tee -a "$S"
OUT=$OUT/ab-q4 A=$A B=$Q ROUNDS=3 WIDTHS=1,17,24,32,40,48,64 timeout $(( ($(left) - 30) / 2 )) bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
say "ab q4 rc=$? (${SECONDS}s)"; cat $OUT/ab-q4/summary-ab.txt >> "$S"
OUT=$OUT/ab-t2 A=$A B=$P ROUNDS=3 WIDTHS=1,2,4,8,10,12,16 timeout $(( $(left) - 20 )) bash scripts/device-run-ab.sh t2_i8_small > /dev/null 2>&1
say "ab t2 rc=$? (${SECONDS}s)"; cat $OUT/ab-t2/summary-ab.txt >> "$S"
case "$gpu" in
  *H200*)
    if [ "$(left)" -gt 200 ]; then
      RC=$OUT/recal
      OUT=$RC BIN=$A FAMILY="q4_linear_add t2_i8_small" SECOND=1 timeout $(( $(left) - 20 )) bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
      say "recalibrate q4 + t2 (H200) rc=$? (${SECONDS}s)"; cat $RC/summary-recalibrate.txt >> "$S"
    else say "H200, but $(left) s left: no recalibration"; fi ;;
  *) say "not an H200: no recalibration" ;;
esac
cd $OUT && tar -cJf /tmp/raw-call7.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call7.tar.xz $OUT/
