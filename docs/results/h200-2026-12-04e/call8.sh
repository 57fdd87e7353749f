#!/usr/bin/env bash
# call 8: the q4_linear_add routes recalibrated with the final binaries (FINAL, call 7:
# with the helper kernels padded, wg_c64_k6_s4 beat the routed wg_c64_k4_s4 at 5120x6144
# T = 40-56 by 5-6 %): scripts/device-run-recalibrate.sh (built-in entry as the profile
# file, bench, calibrate q4 into it, bench again). carry target/ab/FINAL.
set -u
cd "$(dirname "$0")/../../.."
scripts/device-unpack.sh FINAL || exit 1
OUT=$OUT BIN=/tmp/bin/FINAL FAMILY=q4_linear_add timeout 300 bash scripts/device-run-recalibrate.sh > /dev/null 2>&1
echo "recalibrate rc=$?" >> $OUT/summary-recalibrate.txt
cat $OUT/summary-recalibrate.txt
