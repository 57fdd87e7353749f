#!/usr/bin/env bash
# call 2 (prepared; run after call 1 passes): the speed of natural-k. ninfer bench of
# q4_linear_add, MAIN (main) against NK (natural-k) on the built-in entry (the route
# catalog is the same), ten widths, two interleaved rounds (scripts/device-run-ab.sh), and
# the per-width table. Expected from call 9 of h200-2026-12-04e: the warpgroup routes
# (5120x17408 T = 17-64, 5120x6144 T = 33-64) 3.7-4.7 µs faster an op, the int8 rings as
# before (their PTX is byte-identical; only their quantization kernel's stores moved).
# Build: scripts/build-ab.sh MAIN main; rm target/ab/MAIN/ninfer-calibrate.xz (NK as in
#   call1.sh).
# carry target/ab/MAIN, target/ab/NK.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh MAIN NK || exit 1
S=$OUT/summary-call2.txt
OUT=$OUT A=/tmp/bin/MAIN B=/tmp/bin/NK WIDTHS=1,4,8,16,20,24,32,40,48,64 timeout 300 \
  bash scripts/device-run-ab.sh q4_linear_add > /dev/null 2>&1
echo "bench A/B rc=$?" >> $S
cat $OUT/summary-ab.txt >> $S
cat $S
