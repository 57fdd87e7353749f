#!/usr/bin/env bash
# call 2: the bench A/B call 1 meant to run (its A_ENV / B_ENV expanded $OUT after the same
# command's OUT=$AB, so the files did not exist and the script stopped). One binary (A8P),
# A = the built-in entry re-stamped for A8P's route catalog (profile-A.json), B = the same
# with call 1's first calibration's q4 routes (profile-B.json: at 5120x6144 T <= 6 and 8 the
# BF16 cluster ring ring_c8_k4_s3_g4_cl). Both files made here from call 1's cal-1.json.
# Run: OUT=$OUT bash call2.sh (carry target/ab/A8P).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD/docs/results/h200-2026-12-06b
scripts/device-unpack.sh A8P || exit 1
B=/tmp/bin/A8P
OUT=$OUT A=$B B=$B ROUNDS=3 WIDTHS=1,2,4,8,16 \
  A_ENV="NINFER_DEVICE_PROFILES=$R/profile-A.json" B_ENV="NINFER_DEVICE_PROFILES=$R/profile-B.json" \
  timeout 400 bash scripts/device-run-ab.sh q4_linear_add/5120x6144 q4_linear_add/5120x17408
