#!/usr/bin/env bash
# call 2: whichever card comes. An H200: call 1's H200 steps (FINAL13: checks, the H200
# entry's recalibration of q4 and t2, baselines). Otherwise the trial build BULK1 (branch
# t2-bulk-weights, 19aa9ae: on sm_90a each warp's weights come by two bulk copies of its
# elected lane, counted on the stage's `full` mbarrier, and a warp refills a stage with its
# weights once it has rescaled the stage's group, so they run RING - AHEAD groups ahead
# instead of `stages`; 65-148 registers, no spills, no ptxas serialization) against
# FINAL13 (main):
# (a) scripts/device-run-calibrate-ab.sh CHECK=1: `ninfer check --only t2_i8_small` with
#     BULK1, then every t2 candidate's calibration time, A B A B;
# (b) compute-sanitizer memcheck of two warpgroup schedules with BULK1;
# (c) scripts/device-run-ab.sh: `ninfer bench` of the built-in routes, A B A B.
# Run: OUT=$OUT bash call2.sh (carry target/ab/FINAL13, target/ab/BULK1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT bash "$here/call1.sh"; exit 0 ;;
esac
S=$OUT/summary-call2.txt
scripts/device-unpack.sh FINAL13 && scripts/device-unpack.sh BULK1 || exit 1
A=/tmp/bin/FINAL13 B=/tmp/bin/BULK1
OUT=$OUT/cal A=$A B=$B CHECK=1 ONLY=t2_i8_small ROUNDS=2 MATCH=g WIDTHS=10,12,16,20,24,28,32 \
  timeout 300 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "calibrate-ab rc=$? (${SECONDS}s)" | tee $S; cat $OUT/cal/summary-calibrate-ab.txt >> $S
for s in r64c32k4s3w2p0x4m0clg r64c16k4s3w1p0x8m0clg; do
  timeout 90 compute-sanitizer --tool memcheck $B/ninfer check --only t2_i8_small/5120x6144 --schedule $s > $OUT/memcheck-$s.txt 2>&1
  echo "memcheck $s rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck-$s.txt | tail -1) (${SECONDS}s)" | tee -a $S
done
OUT=$OUT/ab A=$A B=$B WIDTHS=1,12,16,20,24,28,32 ROUNDS=2 timeout $(( 540 - SECONDS )) bash scripts/device-run-ab.sh \
  t2_i8_small/5120x17408 t2_i8_small/5120x6144 t2_i8_small/17408x5120 > /dev/null 2>&1
echo "ab rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/ab/summary-ab.txt >> $S
(cd $OUT && tar -cJf raw-call2.tar.xz cal ab memcheck-* && rm -rf cal ab memcheck-*)
