#!/usr/bin/env bash
# call 3: whichever card comes. An H200: call 1's H200 steps (checks, recalibration of the
# H200 entry, baselines; then its bench and L2 calibration as the budget allows, not its
# trial). Any other card: call 2 (ncu), whose try got no machine.
# Run: OUT=$OUT bash call3.sh (carry target/ab/FINAL11).
set -u
here=$(cd "$(dirname "$0")" && pwd)
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUDGET=${BUDGET:-575} bash "$here/call1.sh" ;;
  *) OUT=$OUT bash "$here/call2.sh" ;;
esac
