#!/usr/bin/env bash
# call 10: G7 (two groups a step, `words` = 2: one barrier for both, the second group's
# wgmma in flight while the first is rescaled; 6 stages, 164 registers, 3 CTAs per SM;
# copies r64c32k4s6w2p0x{2,8}m0g next to the one-group r64c32k4s3w1p0x{2,8}m0g): checks
# and memcheck of the new schedules, two t2_i8_small calibrations, g candidates tabled.
set -u
cd "$(dirname "$0")/../.."
for b in G7; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/G7
S=$OUT/summary-call10.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in r64c32k4s6w2p0x2m0g r64c32k4s6w2p0x8m0g r64c32k4s3w1p0x8m0g; do
  say "== check --schedule $s"
  timeout 120 $F/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
cat /tmp/check-r*.txt > $OUT/check-g-call10.txt
say "== memcheck r64c32k4s6w2p0x8m0g 17408x5120 (40 groups over 8 splits: odd ranges of 5)"
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $F/ninfer check --only t2_i8_small/17408x5120 --schedule r64c32k4s6w2p0x8m0g > /tmp/mc.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of|rror' /tmp/mc.txt | head -5 | tee -a $S
for round in 1 2; do
  say "== G7 (round $round): ninfer-calibrate --only t2_i8_small --detail"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 $F/ninfer-calibrate --only t2_i8_small --detail > $OUT/calibrate-G7-$round-call10.txt 2>&1; say "rc=$?"
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-G7-$round-call10.txt --widths 20,32 | tee -a $S
done
