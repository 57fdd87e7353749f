#!/usr/bin/env bash
# call 8: ncu of one launch of the warpgroup schedule r64c32k4s4w1p0x6m0g (FINAL7, its route) at
# 5120x17408, T = 32 (profile-g-ncu7.json: call 7's recalibrated entry): speed of light,
# occupancy, warp states and the per-instruction stall samples (SourceCounters).
set -u
cd "$(dirname "$0")/../.."
for b in FINAL7; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call8.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
p=$(mktemp -d)/p.json; cp target/ab/profile-g-ncu7.json $p
NINFER_DEVICE_PROFILES=$p timeout 300 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters --section LaunchStats -k regex:'t2_i8_small__r64c32k4s4w1p0x6m0g' -c 1 /tmp/bin/FINAL7/ninfer bench --only t2_i8_small/5120x17408 --widths 32 --samples 1 > $OUT/ncu-g-call8.txt 2>&1; say "rc=$?"
grep -E "t2_i8_small__|Duration|Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers|Stall|stall" $OUT/ncu-g-call8.txt | head -40 | tee -a $S
NINFER_DEVICE_PROFILES=$p timeout 200 ncu --page source --print-source sass --section SourceCounters -k regex:'t2_i8_small__r64c32k4s4w1p0x6m0g' -c 1 /tmp/bin/FINAL7/ninfer bench --only t2_i8_small/5120x17408 --widths 32 --samples 1 > $OUT/ncu-g-sass-call8.txt 2>&1; say "rc=$?"
gzip -f $OUT/ncu-g-sass-call8.txt
