#!/usr/bin/env bash
# call 1: FINAL15 (= main 8e7164f: the kernels of 1d2ba2c and the merged H100 entry).
# An H200: call 6 of 06f with FINAL15 (t2 check, the H200 entry's
# recalibration of q4 and t2 with a second calibration, baselines), bounded by BUDGET.
# Any other card: device-run-baselines.sh of t2 and q4 on that card's built-in entry
# (widths 1, 8, 16, 32, 64; PyTorch in the same run).
# Run: OUT=$OUT BUDGET=<seconds> bash call1.sh (carry target/ab/FINAL15).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUILD=FINAL15 BUDGET=${BUDGET:-380} bash "$here/../h200-2026-12-06f/call6.sh"; exit 0 ;;
esac
scripts/device-unpack.sh FINAL15 || exit 1
OUT=$OUT/baselines BIN=/tmp/bin/FINAL15 FAMILIES="t2_i8_small q4_linear_add" timeout 300 bash scripts/device-run-baselines.sh > /dev/null 2>&1
echo "baselines rc=$? (${SECONDS}s)" > $OUT/summary-call1.txt
cat $OUT/baselines/summary-baselines.txt >> $OUT/summary-call1.txt
cd $OUT && tar -cJf /tmp/raw-call1.tar.xz --exclude='summary-*' . && \
  find . -mindepth 1 -maxdepth 1 ! -name 'summary-*' -exec rm -rf {} + && mv /tmp/raw-call1.tar.xz $OUT/
