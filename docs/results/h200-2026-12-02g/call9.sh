#!/usr/bin/env bash
# call 9: G6 (the W4 warpgroup kernel bounded to 5 CTAs per SM: 96 registers, 8 bytes
# spilled; new copies with 3 stages (a ring of 4: 28 KiB, 7 CTAs fit), k_split 2, 3, 6, 8)
# against FINAL7 (4 CTAs per SM, 115 registers; 4 stages, k_split 3, 6),
# interleaved calibrations (A B A B), g candidates tabled; checks of the new schedules.
set -u
cd "$(dirname "$0")/../.."
for b in G6 FINAL7; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call9.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in r64c32k4s3w1p0x2m0g r64c32k4s3w1p0x3m0g r64c32k4s3w1p0x6m0g r64c32k4s3w1p0x8m0g; do
  say "== G6 check --schedule $s"
  timeout 120 /tmp/bin/G6/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
cat /tmp/check-r*.txt > $OUT/check-g-call9.txt
for round in 1 2; do for b in FINAL7 G6; do
  say "== $b (round $round): ninfer-calibrate --only t2_i8_small --detail"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --only t2_i8_small --detail > $OUT/calibrate-$b-$round-call9.txt 2>&1; say "rc=$?"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-$b-$round-call9.txt --widths 20,32 | tee -a $S
done; done
