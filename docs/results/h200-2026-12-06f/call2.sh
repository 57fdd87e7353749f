#!/usr/bin/env bash
# call 2: ncu of the H100 entry's routes where issue 4 is furthest off, with the weights in
# L2 (`--weights-from l2`, ncu --cache-control none: what the kernel itself takes) and from
# HBM (ncu's default flush): t2 5120x17408 T = 32 (r64c32k4s3w1p0x4m0clg) and t2 5120x6144
# T = 1 (r16c1k8s3w1p0x1m1). Speed of light, occupancy, launch stats, warp states and,
# in L2, the per-instruction stall samples (SASS source page, gzip).
# Run: OUT=$OUT bash call2.sh (carry target/ab/FINAL11).
set -u
cd "$(dirname "$0")/../../.."
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a "$S"; }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
scripts/device-unpack.sh FINAL11 || exit 1
F=/tmp/bin/FINAL11
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
prof() { # name key T schedule mode cache
  timeout 150 ncu $SECTIONS --cache-control $6 -k regex:"t2_i8_small__$4" --launch-skip 3 -c 1 \
    $F/ninfer bench --only t2_i8_small/$2 --widths $3 --samples 3 --weights-from $5 > $OUT/ncu-$1.txt 2>&1
  say "== $1 ($2 T=$3 $4, weights $5) rc=$?"
  grep -E "Duration|Elapsed Cycles|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Memory Throughput|Compute \(SM\)|L2 Cache Throughput|DRAM Throughput|Block Limit" $OUT/ncu-$1.txt | sed 's/  */ /g' | tee -a "$S"
}
prof t32-l2 5120x17408 32 r64c32k4s3w1p0x4m0clg l2 none
prof t32-hbm 5120x17408 32 r64c32k4s3w1p0x4m0clg hbm all
prof t1-l2 5120x6144 1 r16c1k8s3w1p0x1m1 l2 none
prof t1-hbm 5120x6144 1 r16c1k8s3w1p0x1m1 hbm all
for c in "t32 5120x17408 32 r64c32k4s3w1p0x4m0clg" "t1 5120x6144 1 r16c1k8s3w1p0x1m1"; do
  set -- $c
  timeout 150 ncu --section WarpStateStats --section SourceCounters --page source --print-source sass --cache-control none \
    -k regex:"t2_i8_small__$4" --launch-skip 3 -c 1 $F/ninfer bench --only t2_i8_small/$2 --widths $3 --samples 3 --weights-from l2 \
    > $OUT/ncu-sass-$1-l2.txt 2>&1
  say "sass $1 rc=$? $(wc -l < $OUT/ncu-sass-$1-l2.txt) lines"
done
cd $OUT && tar -cJf raw-call2.tar.xz ncu-*.txt && rm -f ncu-*.txt
