#!/usr/bin/env bash
# call 1: G1 (0e0efe8 + the warpgroup (wgmma) t2 schedules, suffix g): check of every t2
# variant, memcheck of one g schedule, then FAMILY=t2_i8_small recalibration (candidates'
# medians in calibrate-*.txt) and the bench on old and new routes.
set -u
cd "$(dirname "$0")/../.."
for b in G1; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/G1
S=$OUT/summary-call1.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in r64c32k4s4w1p0x3m0g r64c32k4s4w1p0x1m0g r128c32k8s4w1p0x3m0g r64c16k4s4w1p0x3m0g; do
  say "== check --schedule $s"
  timeout 120 $F/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
cat /tmp/check-r*.txt > $OUT/check-g-call1.txt
say "== memcheck r64c32k4s4w1p0x3m0g 5120x6144"
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $F/ninfer check --only t2_i8_small/5120x6144 --schedule r64c32k4s4w1p0x3m0g > /tmp/mc.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of|rror' /tmp/mc.txt | head -5 | tee -a $S
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (G1)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 280 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-builtin.json bench-t2_i8_small-recalibrated.json profile-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call1.${f##*.}; done
tail -60 /tmp/rc/summary-recalibrate.txt | tee -a $S
