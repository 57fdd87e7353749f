#!/usr/bin/env bash
# call 3 (prepared; run after calls 1-2): q4_linear_add recalibrated with NK. Without
# the helper launch the warpgroup schedules should gain 3.7-4.7 µs an op (call 9 of
# h200-2026-12-04e, timing only), enough to take widths from the rings (5120x17408 T = 17-28,
# 5120x6144 T = 17-32 are ring routes now). scripts/device-run-recalibrate.sh: the built-in
# entry as the profile file, bench, calibrate q4 into it, bench again. carry target/ab/NK.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh NK || exit 1
OUT=$OUT BIN=/tmp/bin/NK FAMILY=q4_linear_add timeout 400 bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
echo "recalibrate rc=$?" >> $OUT/summary-recalibrate.txt
cat $OUT/summary-recalibrate.txt
