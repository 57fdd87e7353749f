#!/usr/bin/env bash
# call 3: G3 = G2 with the host's ring size fixed (the power of two above `stages`, as the
# kernel has it; G2 trapped where PDL padding did not hide it): the same checks and recalibration.
set -u
cd "$(dirname "$0")/../.."
for b in G3; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/G3
S=$OUT/summary-call3.txt
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
cat /tmp/check-r*.txt /tmp/check-key.txt > $OUT/check-g-call3.txt
say "== memcheck r64c32k4s4w1p0x3m0g 5120x6144"
timeout 150 compute-sanitizer --tool memcheck --print-limit 10 $F/ninfer check --only t2_i8_small/5120x6144 --schedule r64c32k4s4w1p0x3m0g > /tmp/mc.txt 2>&1; say "rc=$?"
grep -E 'ERROR SUMMARY|checks of|rror' /tmp/mc.txt | head -5 | tee -a $S
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (G3)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 280 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-builtin.json bench-t2_i8_small-recalibrated.json profile-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call3.${f##*.}; done
tail -60 /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== warpgroup candidates against the best other candidate (calibration medians, µs)"
python3 - $OUT/calibrate-t2_i8_small-call3.txt <<'PY' | tee -a $S
import re, sys, collections
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(t2_i8_small/\S+)\s+(\d+)\s+(\S+)\s+([\d.]+)", line)
    if m:
        key, w, v, us = m.group(1), int(m.group(2)), m.group(3), float(m.group(4))
        best[(key, w)][v] = min(us, best[(key, w)].get(v, 1e9))
for (key, w), c in sorted(best.items()):
    g = {v: u for v, u in c.items() if v.endswith("g")}
    o = {v: u for v, u in c.items() if not v.endswith("g")}
    if g and o and w in (1, 8, 16, 20, 24, 28, 32):
        bo = min(o, key=o.get)
        print(f"{key} T={w}: best other {bo} {o[bo]:.2f}; " + ", ".join(f"{v} {u:.2f}" for v, u in sorted(g.items())))
PY
