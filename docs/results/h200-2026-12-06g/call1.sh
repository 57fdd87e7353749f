#!/usr/bin/env bash
# call 1 (06g): the build FINAL13 (= main 831a40f: the H100 entry with call 6's
# routes, route catalog f11e8a3518c0925f). An H200: call 6's steps with it (t2 check, the
# H200 entry's recalibration of q4 and t2, baselines). Any other card:
# device-run-baselines.sh of t2 and q4 on its built-in entry (PyTorch in the same run).
# Run: OUT=$OUT bash call1.sh (carry target/ab/FINAL13).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUILD=FINAL13 BUDGET=575 bash "$here/../h200-2026-12-06f/call6.sh"; exit 0 ;;
esac
scripts/device-unpack.sh FINAL13 || exit 1
OUT=$OUT/baselines BIN=/tmp/bin/FINAL13 FAMILIES="t2_i8_small q4_linear_add" WIDTHS=1,8,16,32,64 \
  timeout 400 bash scripts/device-run-baselines.sh > /dev/null 2>&1
echo "baselines rc=$? (${SECONDS}s)" | tee $OUT/summary-call1.txt
cat $OUT/baselines/summary-baselines.txt >> $OUT/summary-call1.txt
(cd $OUT && tar -cJf raw-call1.tar.xz baselines && rm -rf baselines)
