#!/usr/bin/env bash
# call 6: NEW5 = 4f06d1c + three 4-warp act_smem T = 1 schedules with l2_prefetch
# (r16c1k4s2w1p0x1m1l8, r16c1k4s3w1p0x1m1l8, r16c1k4s2w1p0x1m1l16; no spills at 128
# threads x 3 CTAs): their checks and memcheck, then t2_i8_small recalibrated.
set -u
cd "$(dirname "$0")/../.."
for b in NEW5; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/NEW5
S=$OUT/summary-call6.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for sch in r16c1k4s2w1p0x1m1l8 r16c1k4s3w1p0x1m1l8 r16c1k4s2w1p0x1m1l16; do
  say "== ninfer check --only t2_i8_small --schedule $sch, and under memcheck"
  $F/ninfer check --only t2_i8_small --schedule $sch > /tmp/c.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/c.txt | tee -a $S
  compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only t2_i8_small --schedule $sch > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (NEW5)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call6.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
grep -E "^t2_i8_small/\S+ +1 " /tmp/rc/calibrate-t2_i8_small.txt | sort -k1,1 -k4n | tee -a $S
