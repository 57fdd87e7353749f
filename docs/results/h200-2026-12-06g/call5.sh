#!/usr/bin/env bash
# call 5: the session's last device time. An H200: call 6 of 06f with FINAL14 (= main
# 1d2ba2c; t2 check, the H200 entry's recalibration of q4 and t2 with a second
# calibration, baselines), each step bounded by BUDGET. Any other card: `ninfer bench` of
# t2 on the built-in entry (as merged after call 4) from HBM and with the weights in L2.
# Run: OUT=$OUT BUDGET=<seconds> bash call5.sh (carry target/ab/FINAL14).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUILD=FINAL14 BUDGET=${BUDGET:-380} bash "$here/../h200-2026-12-06f/call6.sh"; exit 0 ;;
esac
S=$OUT/summary-call5.txt
scripts/device-unpack.sh FINAL14 || exit 1
F=/tmp/bin/FINAL14
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $S
for mode in hbm l2; do
  timeout 90 $F/ninfer bench --only t2_i8_small --widths 1,8,16,24,32 --weights-from $mode > $OUT/bench-$mode.txt 2>&1
  echo "== bench t2_i8_small --weights-from $mode rc=$? (${SECONDS}s)" | tee -a $S; cat $OUT/bench-$mode.txt >> $S
done
rm -f $OUT/bench-*.txt
