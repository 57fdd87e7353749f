#!/usr/bin/env bash
# call 8: as call 7 with --clock-control none (the GPU's own clocks); ncu of the T = 8 projection at 5120x17408, FINAL (10d8a25, PTX = HEAD's) on its
# built-in entry (r16c8k8s2w1p0x1m0l8) and on the compiled route (r16c8k8s2w1p0x1m0): one
# launch each, the speed-of-light, memory and warp-state sections.
set -u
cd "$(dirname "$0")/../.."
for b in FINAL; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL
S=$OUT/summary-call8.txt
say() { echo "$@" | tee -a $S; }
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for side in l8 compiled; do
  args=""; [ $side = compiled ] && args="--device-profile off"
  say "== ncu t2_i8_small/5120x17408 T = 8 ($side)"
  ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy -k regex:'t2_i8_small__' -c 1 $F/ninfer bench --only t2_i8_small/5120x17408 --widths 8 --samples 1 $args > $OUT/ncu-t2-t8-$side-call8.txt 2>&1; say "rc=$?"
  grep -E "t2_i8_small__|Duration|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|Achieved Occupancy|L2 Hit Rate|Stall Long" $OUT/ncu-t2-t8-$side-call8.txt | head -14 | tee -a $S
done
