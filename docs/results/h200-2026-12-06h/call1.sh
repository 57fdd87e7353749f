#!/usr/bin/env bash
# call 1: an H200: call 6 of 06f with FINAL14 (= main 1d2ba2c's kernels; t2 check, the H200
# entry's recalibration of q4 and t2 with a second calibration, baselines), bounded by
# BUDGET. Any other card: `ninfer bench` of t2 on the built-in entry, HBM weights only.
# Run: OUT=$OUT BUDGET=<seconds> bash call1.sh (carry target/ab/FINAL14).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUILD=FINAL14 BUDGET=${BUDGET:-380} bash "$here/../h200-2026-12-06f/call6.sh"; exit 0 ;;
esac
S=$OUT/summary-call1.txt
scripts/device-unpack.sh FINAL14 || exit 1
F=/tmp/bin/FINAL14
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $S
timeout 90 $F/ninfer bench --only t2_i8_small --widths 1,16,32 --weights-from hbm >> $S 2>&1
echo "== bench rc=$? (${SECONDS}s)" | tee -a $S
