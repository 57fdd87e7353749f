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
# (c) RING8 (branch t2-bulk-ring8, BULK1 with warpgroup rings of at least 8 stages, so
#     the 3-stage `w1` schedules' weights run 8 groups ahead; its route catalog differs,
#     so it has no built-in entry): check, memcheck, two calibrations (compared offline
#     with (a)'s B logs);
# (d) scripts/device-run-ab.sh: `ninfer bench` of the built-in routes, A B A B.
# Run: OUT=$OUT bash call2.sh (carry target/ab/TRIO).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT bash "$here/call1.sh"; exit 0 ;;
esac
S=$OUT/summary-call2.txt
# the three builds as one bundle (scripts/bundle-ab.sh TRIO FINAL13 BULK1 RING8): under
# 64 MiB of carry, where three target/ab folders are not
scripts/device-unpack.sh TRIO || exit 1
A=/tmp/bin/FINAL13 B=/tmp/bin/BULK1 C=/tmp/bin/RING8
OUT=$OUT/cal A=$A B=$B CHECK=1 ONLY=t2_i8_small ROUNDS=2 MATCH=g WIDTHS=10,12,16,20,24,28,32 \
  timeout 300 bash scripts/device-run-calibrate-ab.sh > /dev/null 2>&1
echo "calibrate-ab rc=$? (${SECONDS}s)" | tee $S; cat $OUT/cal/summary-calibrate-ab.txt >> $S
for s in r64c32k4s3w2p0x4m0clg r64c16k4s3w1p0x8m0clg; do
  timeout 90 compute-sanitizer --tool memcheck $B/ninfer check --only t2_i8_small/5120x6144 --schedule $s > $OUT/memcheck-$s.txt 2>&1
  echo "memcheck $s rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck-$s.txt | tail -1) (${SECONDS}s)" | tee -a $S
done
mkdir -p $OUT/ring8
timeout 120 $C/ninfer check --only t2_i8_small > $OUT/ring8/check.txt 2>&1
echo "RING8 check rc=$?: $(grep -E 'checks of' $OUT/ring8/check.txt) (${SECONDS}s)" | tee -a $S
grep FAIL $OUT/ring8/check.txt | head -5 | tee -a $S
timeout 90 compute-sanitizer --tool memcheck $C/ninfer check --only t2_i8_small/5120x6144 --schedule r64c32k4s3w1p0x4m0clg > $OUT/ring8/memcheck.txt 2>&1
echo "RING8 memcheck r64c32k4s3w1p0x4m0clg rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/ring8/memcheck.txt | tail -1)" | tee -a $S
for r in 1 2; do
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 60 $C/ninfer-calibrate --detail --only t2_i8_small > $OUT/ring8/calibrate-C-$r.txt 2>&1
  echo "RING8 calibrate $r rc=$?: $(tail -1 $OUT/ring8/calibrate-C-$r.txt) (${SECONDS}s)" | tee -a $S
done
python3 scripts/compare_calibrate_detail.py --a $OUT/cal/calibrate-B-*.txt --b $OUT/ring8/calibrate-C-*.txt --match g \
  --widths 10,12,16,20,24,28,32 > $OUT/ring8/compare-B-C.txt 2>&1
echo "== B (BULK1) against RING8, calibration medians" >> $S; cat $OUT/ring8/compare-B-C.txt >> $S
OUT=$OUT/ab A=$A B=$B WIDTHS=1,12,16,20,24,28,32 ROUNDS=2 timeout $(( 540 - SECONDS )) bash scripts/device-run-ab.sh \
  t2_i8_small/5120x17408 t2_i8_small/5120x6144 t2_i8_small/17408x5120 > /dev/null 2>&1
echo "ab rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/ab/summary-ab.txt >> $S
(cd $OUT && tar -cJf raw-call2.tar.xz cal ab ring8 memcheck-* && rm -rf cal ab ring8 memcheck-*)
