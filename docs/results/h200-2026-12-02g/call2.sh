#!/usr/bin/env bash
# call 2: G2 (the warpgroup schedules reading quant_act_i8_wg's k-ordered codes with 16-byte
# copies, one register set, shared addresses precomputed): the same checks and recalibration.
set -u
cd "$(dirname "$0")/../.."
for b in G2; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/G2
S=$OUT/summary-call2.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json
for s in r64c32k4s4w1p0x3m0g r64c32k4s4w1p0x1m0g r128c32k8s4w1p0x3m0g r64c16k4s4w1p0x3m0g; do
  say "== check --schedule $s"
  timeout 120 $F/ninfer check --only t2_i8_small --schedule $s --every-width > /tmp/check-$s.txt 2>&1; say "rc=$?"
  grep -E 'FAIL|checks of|rror' /tmp/check-$s.txt | head -8 | tee -a $S
done
say "== check --only t2_i8_small/5120x6144 (every variant, and the quantization helpers)"
timeout 120 $F/ninfer check --only t2_i8_small/5120x6144 > /tmp/check-key.txt 2>&1; say "rc=$?"
grep -E 'quant_act|FAIL|checks of|rror' /tmp/check-key.txt | head -8 | tee -a $S
cat /tmp/check-r*.txt /tmp/check-key.txt > $OUT/check-g-call2.txt
say "== memcheck r64c32k4s4w1p0x3m0g 5120x6144"
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $F/ninfer check --only t2_i8_small/5120x6144 --schedule r64c32k4s4w1p0x3m0g > /tmp/mc.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of|rror' /tmp/mc.txt | head -5 | tee -a $S
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (G2)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 280 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-builtin.json bench-t2_i8_small-recalibrated.json profile-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call2.${f##*.}; done
tail -60 /tmp/rc/summary-recalibrate.txt | tee -a $S
