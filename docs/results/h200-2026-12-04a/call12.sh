#!/usr/bin/env bash
# call 12: F7 (the shipped build: wg_c32_k8_s4, wg_c64_k4_s4, wg_c64_k6_s4; exact group sums, bulk copies): q4_linear_add
# recalibrated into the built-in entry (benches before and after), a second calibration to
# compare routes, check of q4 on the compute_90a and the baseline (compute_80) PTX of the
# warpgroup schedules, memcheck, PyTorch baselines on the q4 shapes and the comparison.
set -u
cd "$(dirname "$0")/../../.."
for b in F7; do mkdir -p /tmp/bin/$b; for f in target/ab/$b/*.xz; do xz -dc $f > /tmp/bin/$b/$(basename $f .xz); done; chmod +x /tmp/bin/$b/*; done
F=/tmp/bin/F7
S=$OUT/summary-call12.txt
say() { echo "$@" | tee -a $S; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
say "== FAMILY=q4_linear_add scripts/device-run-recalibrate.sh (F7)"
OUT=/tmp/rc BIN=$F FAMILY=q4_linear_add timeout 300 scripts/device-run-recalibrate.sh > /tmp/rc.log 2>&1; say "rc=$?"
for f in profile-recalibrated.json summary-recalibrate.txt calibrate-q4_linear_add.txt bench-q4_linear_add-builtin.json bench-q4_linear_add-recalibrated.json; do cp /tmp/rc/$f $OUT/${f%.*}-call12.${f##*.}; done
grep -E 'keys measured|slower' /tmp/rc/summary-recalibrate.txt | tee -a $S
say "== second calibration (fresh profile file), routes against the first"
NINFER_DEVICE_PROFILES=$(mktemp -d)/p.json $F/ninfer-calibrate --only q4_linear_add --print > $OUT/calibrated-second-call12.json 2> /tmp/cal2.txt; say "rc=$?"; grep -E 'keys measured' /tmp/cal2.txt | tee -a $S
python3 - $OUT/profile-recalibrated-call12.json $OUT/calibrated-second-call12.json <<'PY' | tee -a $S
import json, sys
def routes(p):
    d = json.load(open(p))
    devs = d["devices"] if "devices" in d else [d]
    return {k: v for e in devs for k, v in e.get("routes", {}).items() if k.startswith("q4_linear_add")}
a, b = routes(sys.argv[1]), routes(sys.argv[2])
for k in sorted(a):
    print(k, "same" if a[k] == b.get(k) else f"DIFFERS: first {a[k]} second {b.get(k)}")
PY
say "== F7: ninfer check --only q4_linear_add"
$F/ninfer check --only q4_linear_add > $OUT/check-q4-call12.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' $OUT/check-q4-call12.txt | tee -a $S
for s in wg_c32_k8_s4 wg_c64_k4_s4 wg_c64_k6_s4; do
  say "== F7: NINFER_PTX=baseline ninfer check --only q4_linear_add --schedule $s (mma.sync on the ring)"
  NINFER_PTX=baseline $F/ninfer check --only q4_linear_add --schedule $s > /tmp/b.txt 2>&1; say "rc=$?"; grep -E 'FAIL|checks of' /tmp/b.txt | tee -a $S
done
for v in 5120x17408:wg_c64_k6_s4 5120x6144:wg_c64_k4_s4; do
  say "== F7: compute-sanitizer memcheck, q4_linear_add/${v%%:*} --schedule ${v##*:}"
  compute-sanitizer --tool memcheck --print-limit 20 $F/ninfer check --only q4_linear_add/${v%%:*} --schedule ${v##*:} > /tmp/mc.txt 2>&1; say "rc=$?"; grep -E 'ERROR SUMMARY|checks of' /tmp/mc.txt | tail -2 | tee -a $S
done
say "== PyTorch baselines and the comparison against the recalibrated bench"
timeout 240 python3 scripts/torch_baselines.py --shapes 5120x17408,5120x6144 --widths 1,8,16,32,40,48,56,64 --out /tmp/torch-q4-call12.json 2> /tmp/torch.txt || tail -5 /tmp/torch.txt
cp /tmp/torch-q4-call12.json $OUT/torch-q4-call12.json
python3 scripts/compare_baselines.py --all /tmp/torch-q4-call12.json $OUT/bench-q4_linear_add-recalibrated-call12.json 2>&1 | tee $OUT/compare-q4-call12.txt | grep -E "q4_linear_add|key" | tee -a $S
