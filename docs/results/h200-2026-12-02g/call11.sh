#!/usr/bin/env bash
# call 11: FINAL11 (the shipped build: warpgroup schedules r64c32k4s3w1p0x2m0g and x8m0g, 5 CTAs
# per SM): t2_i8_small recalibrated into the built-in entry, a second calibration to
# compare its routes, checks and memcheck of t2 (and of a g schedule), PyTorch baselines.
set -u
cd "$(dirname "$0")/../.."
for b in FINAL11; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/FINAL11
S=$OUT/summary-call11.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== FAMILY=t2_i8_small scripts/device-run-recalibrate.sh (FINAL11)"
OUT=/tmp/rc BIN=$F FAMILY=t2_i8_small timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-t2_i8_small.txt bench-t2_i8_small-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call11.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== second calibration (fresh profile file), routes against the first"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json $F/ninfer-calibrate --only t2_i8_small --print > $OUT/calibrated-second-call11.json 2> /tmp/cal2.txt; say "rc=$?"; grep -E 'keys measured' /tmp/cal2.txt | tee -a $S
python3 - $OUT/profile-recalibrated-call11.json $OUT/calibrated-second-call11.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p))
    devs = d["devices"] if "devices" in d else [d]
    return {k: v for e in devs for k, v in e.get("routes", {}).items() if k.startswith("t2_i8_small")}
a, b = routes(sys.argv[1]), routes(sys.argv[2])
for k in sorted(a):
    print(k, "same" if a[k] == b.get(k) else f"DIFFERS: first {a[k]} second {b.get(k)}")
PY
say "== FINAL11: ninfer check --only t2_i8_small"
$F/ninfer check --only t2_i8_small > $OUT/check-t2-call11.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-t2-call11.txt | tee -a $S
say "== FINAL11: compute-sanitizer memcheck, ninfer check --only t2_i8_small/5120x6144"
compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only t2_i8_small/5120x6144 > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
say "== PyTorch baselines and the comparison against the recalibrated bench"
timeout 200 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144,17408x5120 --widths 1,8,16,20,24,28,32 --out /tmp/torch-t2-call11.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt
python3 scripts/compare_baselines.py --all /tmp/torch-t2-call11.json $OUT/bench-t2_i8_small-recalibrated-call11.json 2>&1 | grep -E "t2_i8_small|key" | tee -a $S
say "== FINAL11: compute-sanitizer memcheck, ninfer check --only t2_i8_small/17408x5120 --schedule r64c32k4s3w1p0x2m0g"
compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only t2_i8_small/17408x5120 --schedule r64c32k4s3w1p0x2m0g > /tmp/mc2.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc2.txt | tail -2 | tee -a $S
python3 scripts/t2_warpgroup_table.py $OUT/calibrate-t2_i8_small-call11.txt --widths 1,16,20,24,28,32 | tee -a $S

gzip -c /tmp/torch-t2-call11.json > $OUT/torch-t2-call11.json.gz
