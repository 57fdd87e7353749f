#!/usr/bin/env bash
# call 4: whichever card comes. An H200: call 1's H200 steps first (checks, recalibration
# of the H200 entry, baselines). Otherwise:
# (a) the trial build AHD (branch exp-ahead: main + the warpgroup schedules with `words` = 2:
#     group i's wgmma in flight while group i - 1 is rescaled, within each unrolled ring
#     round; 102-152 registers, 3 CTAs an SM, no spills, no ptxas wgmma serialization):
#     checks, memcheck, calibration detail from HBM (twice) and in L2 at T = 10-32, through
#     scripts/device-run-new-schedules.sh, against the routed warpgroup schedules;
# (b) call 2 (ncu of the routed T = 32 and T = 1 schedules) as the budget allows.
# Run: OUT=$OUT bash call4.sh (carry target/ab/FINAL11, target/ab/AHD).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUDGET=575 bash "$here/call1.sh"; exit 0 ;;
esac
scripts/device-unpack.sh AHD || exit 1
OUT=$OUT/ahd BIN=/tmp/bin/AHD FAMILY=t2_i8_small \
  NEW="r64c32k4s2w2p0x4m0clg r64c32k4s3w2p0x4m0clg r64c16k4s2w2p0x8m0clg r64c32k4s2w2p0x2m0clg" \
  BASE="r64c32k4s3w1p0x4m0clg r64c32k4s3w1p0x2m0clg r64c16k4s3w1p0x8m0clg r64c16k4s3w1p0x2m0clg" \
  WIDTHS=10,12,16,20,24,28,32 MEMCHECK_KEY=t2_i8_small/5120x6144 timeout 330 bash scripts/device-run-new-schedules.sh > /dev/null 2>&1
echo "ahd rc=$? (${SECONDS}s)" | tee $OUT/summary-call4.txt
cat $OUT/ahd/summary-new-schedules.txt >> $OUT/summary-call4.txt
(cd $OUT && tar -cJf raw-call4.tar.xz ahd && rm -rf ahd)
[ $SECONDS -lt 330 ] && OUT=$OUT timeout $(( 560 - SECONDS )) bash "$here/call2.sh"
