#!/usr/bin/env bash
# call 4: G4 (tokens >= t no longer copied: at small t every lane read token t - 1's row)
# against G4NF (the same without the proxy fence before the barrier: an experiment on
# whether the fence's MEMBAR waits for the weight loads in flight): checks of the g
# schedules (G4), then each binary's t2_i8_small calibration, its g candidates tabled.
set -u
cd "$(dirname "$0")/../.."
for b in G4 G4NF; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
S=$OUT/summary-call4.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in r64c32k4s4w1p0x3m0g r128c32k8s4w1p0x3m0g r64c16k4s4w1p0x3m0g; do
  say "== G4 check --schedule $s"
  timeout 120 /tmp/bin/G4/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
cat /tmp/check-r*.txt > $OUT/check-g-call4.txt
for b in G4 G4NF; do
  say "== $b: ninfer-calibrate --only t2_i8_small --detail"
  NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json timeout 200 /tmp/bin/$b/ninfer-calibrate --only t2_i8_small --detail > $OUT/calibrate-$b-call4.txt 2>&1; say "rc=$?"
  grep -E 'keys measured|rror' $OUT/calibrate-$b-call4.txt | tee -a $S
  python3 scripts/t2_warpgroup_table.py $OUT/calibrate-$b-call4.txt --widths 1,16,32 | tee -a $S
done
