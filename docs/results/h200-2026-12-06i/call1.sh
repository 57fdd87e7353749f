#!/usr/bin/env bash
# call 1 (and later tries): an H200: call 6 of 06f with FINAL15 (t2 check, the H200 entry's
# recalibration of q4 and t2 with a second calibration, baselines), bounded by BUDGET.
# Any other card: its name only (06h call 1 already measured the H100).
# Run: OUT=$OUT BUDGET=<seconds> bash call1.sh (carry target/ab/FINAL15).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
case "$gpu" in
  *H200*) OUT=$OUT BUILD=FINAL15 BUDGET=${BUDGET:-380} bash "$here/../h200-2026-12-06f/call6.sh" ;;
  *) echo "$gpu: not an H200, nothing run" | tee $OUT/summary-call1.txt ;;
esac
