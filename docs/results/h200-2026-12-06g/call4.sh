#!/usr/bin/env bash
# call 4: FINAL14 (= main 1d2ba2c: the t2 warpgroup schedules without AHEAD and with a
# K-split of at most 4 run their in-range ring rounds without the range checks; call 3
# measured that code as UNGUARD; the other schedules' PTX is FINAL13's). Whichever card:
# an H200: call 6 of 06f with FINAL14 (t2 check, the H200 entry's recalibration of q4 and
# t2 with a second calibration, baselines), within the device time left. Otherwise:
# `ninfer check --only t2_i8_small`, memcheck of a changed schedule, the card's built-in
# entry recalibrated for t2 (scripts/device-run-recalibrate.sh SECOND=1), and the t2
# baselines on it (scripts/device-run-baselines.sh).
# Run: OUT=$OUT bash call4.sh (carry target/ab/FINAL14).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUILD=FINAL14 BUDGET=470 bash "$here/../h200-2026-12-06f/call6.sh"; exit 0 ;;
esac
S=$OUT/summary-call4.txt
scripts/device-unpack.sh FINAL14 || exit 1
F=/tmp/bin/FINAL14
timeout 100 $F/ninfer check --only t2_i8_small > $OUT/check-t2.txt 2>&1
echo "check t2_i8_small rc=$? (${SECONDS}s): $(grep -E 'checks of' $OUT/check-t2.txt)" | tee $S
grep FAIL $OUT/check-t2.txt | head -5 | tee -a $S
timeout 60 compute-sanitizer --tool memcheck $F/ninfer check --only t2_i8_small/5120x6144 --schedule r64c16k4s3w1p0x4m0clg > $OUT/memcheck.txt 2>&1
echo "memcheck r64c16k4s3w1p0x4m0clg rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.txt | tail -1) (${SECONDS}s)" | tee -a $S
OUT=$OUT/recal BIN=$F FAMILY=t2_i8_small SECOND=1 timeout 200 bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
echo "recalibrate t2_i8_small rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/recal/summary-recalibrate.txt >> $S
cp $OUT/recal/profile*.json $OUT/ 2>/dev/null
OUT=$OUT/baselines BIN=$F FAMILIES=t2_i8_small WIDTHS=1,8,16,32,64 timeout 150 bash scripts/device-run-baselines.sh > /dev/null 2>&1
echo "baselines rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/baselines/summary-baselines.txt >> $S
(cd $OUT && tar -cJf raw-call4.tar.xz check-t2.txt memcheck.txt recal baselines && rm -rf check-t2.txt memcheck.txt recal baselines)
