#!/usr/bin/env bash
# call 6: G5 (the warpgroup schedules with the weights through the ring as well: no weight
# registers in flight, 77-116 registers, no spills; copy addresses kept in registers; k_split
# 6 copies): checks of every g schedule, memcheck of one, the t2_i8_small calibration and
# its g candidates tabled.
set -u
cd "$(dirname "$0")/../.."
for b in G5; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/G5
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in $(grep -o '^r[0-9a-z]*m0g' catalog.toml); do
  say "== check --schedule $s"
  timeout 120 $F/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
cat /tmp/check-r*.txt > $OUT/check-g-call6.txt
say "== memcheck r64c32k4s4w1p0x6m0g 5120x17408"
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $F/ninfer check --only t2_i8_small/5120x17408 --schedule r64c32k4s4w1p0x6m0g > /tmp/mc.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of|rror' /tmp/mc.txt | head -5 | tee -a $S
say "== ninfer-calibrate --only t2_i8_small --detail"
timeout 200 $F/ninfer-calibrate --only t2_i8_small --detail > $OUT/calibrate-G5-call6.txt 2>&1; say "rc=$?"
grep -E 'keys measured|rror' $OUT/calibrate-G5-call6.txt | tee -a $S
python3 scripts/t2_warpgroup_table.py $OUT/calibrate-G5-call6.txt --widths 1,8,16,24,32 | tee -a $S
