#!/usr/bin/env bash
# call 5: whichever card comes. An H200: call 1's H200 steps first (checks, recalibration
# of the H200 entry, baselines). Otherwise:
# (a) the trial build AHD2 (branch exp-ahead 2nd commit: main + the warpgroup schedules with `words` = 2:
#     group i's wgmma in flight while group i - 1 is rescaled, within each unrolled ring
#     round; 102-152 registers, 3 CTAs an SM, no spills, no ptxas wgmma serialization):
#     checks, memcheck, calibration detail from HBM (twice) and in L2 at T = 10-32, through
#     scripts/device-run-new-schedules.sh, against the routed warpgroup schedules. Call 4's
#     lead (3 stages, ring of 8: 3-4 % ahead at 5120x17408 T = 20-32) again, with 16-column,
#     4-stage and k_split 8 and 4 copies; the 2-stage ones (ring of 4) lost and are gone.
# Run: OUT=$OUT bash call5.sh (carry target/ab/AHD2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
  *H200*) OUT=$OUT BUDGET=575 bash "$here/call1.sh"; exit 0 ;;
esac
scripts/device-unpack.sh AHD2 || exit 1
OUT=$OUT/ahd BIN=/tmp/bin/AHD2 FAMILY=t2_i8_small \
  NEW="r64c32k4s3w2p0x4m0clg r64c16k4s3w2p0x8m0clg r64c32k4s4w2p0x4m0clg r64c32k4s3w2p0x8m0clg r64c16k4s3w2p0x4m0clg" \
  BASE="r64c32k4s3w1p0x4m0clg r64c32k4s3w1p0x2m0clg r64c16k4s3w1p0x8m0clg r64c16k4s3w1p0x2m0clg" \
  WIDTHS=10,12,16,20,24,28,32 MEMCHECK_KEY=t2_i8_small/5120x6144 timeout 330 bash scripts/device-run-new-schedules.sh > /dev/null 2>&1
echo "ahd rc=$? (${SECONDS}s)" | tee $OUT/summary-call5.txt
cat $OUT/ahd/summary-new-schedules.txt >> $OUT/summary-call5.txt
(cd $OUT && tar -cJf raw-call5.tar.xz ahd && rm -rf ahd)
